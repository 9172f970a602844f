/* Small helpers every layer of memspy's tools shares. errorf.c is also compiled into the
 * runtime (it only formats into a buffer); read_file.c is for the tools only. */
#ifndef MEMSPY_UTIL_UTIL_H
#define MEMSPY_UTIL_UTIL_H
#include <stddef.h>

/* Format an error message into err (if err and errlen are non-zero) and return -1, so that a
 * failing function can `return ms_errorf(err, errlen, "...", ...)`. */
int ms_errorf(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Make the malloc'd array *items (capacity *cap elements of elsize bytes) hold at least need
 * elements, doubling it. 0, or -1 with *items untouched if out of memory. For the tools. */
int ms_grow(void **items, size_t *cap, size_t need, size_t elsize);

/* Why ms_read_file failed; the callers word their own messages. */
typedef enum {
    MS_READ_OK = 0,
    MS_READ_OPEN,       /* fopen failed: errno says why */
    MS_READ_IO,         /* a read error */
    MS_READ_TOO_BIG,    /* larger than max_bytes */
    MS_READ_NOMEM,      /* out of memory */
} ms_read_status;

/* Read the whole file at path into a malloc'd buffer with a NUL after its last byte (so a text
 * file is also a string; *len, if not NULL, excludes the NUL). max_bytes > 0 refuses larger
 * files. On failure *out is NULL and, for MS_READ_OPEN, errno is fopen's. */
ms_read_status ms_read_file(const char *path, size_t max_bytes, char **out, size_t *len);

#endif
