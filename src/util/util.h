/* Small helpers every layer of memspy's tools shares. errorf.c is also compiled into the
 * runtime (it only formats into a buffer); read_file.c is for the tools only. */
#ifndef MEMSPY_UTIL_UTIL_H
#define MEMSPY_UTIL_UTIL_H
#include <stddef.h>
#include <stdio.h>

/* Format an error message into err (if err and errlen are non-zero) and return -1, so that a
 * failing function can `return ms_errorf(err, errlen, "...", ...)`. */
int ms_errorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Make the malloc'd array *items (capacity *cap elements of elsize bytes) hold at least need
 * elements, doubling it. 0, or -1 with *items untouched if out of memory. For the tools. */
int ms_grow(void **items, size_t *cap, size_t need, size_t elsize);

/* Why ms_read_file failed; the callers word their own messages. */
typedef enum {
    MS_READ_OK = 0,
    MS_READ_OPEN,    /* fopen failed: errno says why */
    MS_READ_IO,      /* a read error */
    MS_READ_TOO_BIG, /* larger than max_bytes */
    MS_READ_NOMEM,   /* out of memory */
} ms_read_status;

/* Read the whole file at path into a malloc'd buffer with a NUL after its last byte (so a text
 * file is also a string; *len, if not NULL, excludes the NUL). max_bytes > 0 refuses larger
 * files. On failure *out is NULL and, for MS_READ_OPEN, errno is fopen's. */
ms_read_status ms_read_file(const char *path, size_t max_bytes, char **out, size_t *len);

/* ---- output files that are complete or absent (out_file.c) ---- */

/* An output file being written: f is written to a temporary file next to the destination
 * (DIR/.NAME.XXXXXX) that ms_out_commit renames over it, so the destination keeps its
 * previous content until the new one is complete. Devices, pipes and terminals are written
 * in place (tmp is then NULL). */
typedef struct {
    FILE *f;
    char *path, *tmp;
    int exclusive; /* set by the caller: commit fails with MS_OUT_EXISTS rather than replace */
} ms_out_file;

#define MS_OUT_EXISTS (-2) /* ms_out_commit of an exclusive file whose destination exists */

/* Start writing path. Returns 0, or -1 with err ("cannot write PATH: reason"). */
int ms_out_open(ms_out_file *o, const char *path, char *err, size_t errlen);
/* Flush, sync and rename into place. Returns 0, or -1 (MS_OUT_EXISTS for an exclusive file
 * whose destination exists) with err; the temporary file is then removed and the
 * destination left as it was. */
int ms_out_commit(ms_out_file *o, char *err, size_t errlen);
/* Give up: remove the temporary file; the destination stays as it was. Safe on a zeroed o. */
void ms_out_abort(ms_out_file *o);

/* ---- terminal safety (term_escape.c) ---- */

/* Escape the control characters of src (C0, DEL, UTF-8 C1; tab and newline kept when
 * keep_layout) as \xHH into dst (always NUL-terminated when dstlen > 0). Returns the length
 * the escaped text needs, without the NUL (like snprintf). */
size_t ms_term_escape(char *dst, size_t dstlen, const char *src, int keep_layout);
/* True if s holds a character ms_term_escape would escape (tab and newline included). */
int ms_term_needs_escape(const char *s);
/* s itself when it is safe to print, else an escaped copy that stays valid for the next 15
 * calls (for printf arguments: printf("%s", ms_term(name))). NULL stays NULL. Tools only. */
const char *ms_term(const char *s);

#endif
