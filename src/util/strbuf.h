/* A growable string for the tools (never the runtime, which must not use malloc): append
 * pieces, then take the malloc'd result. Running out of memory is remembered and reported once,
 * by ms_strbuf_take, so that callers append without checking each step. */
#ifndef MEMSPY_UTIL_STRBUF_H
#define MEMSPY_UTIL_STRBUF_H
#include <stddef.h>

typedef struct {
    char *s; /* NUL-terminated once anything was added; NULL before */
    size_t len, cap;
    int oom; /* an append ran out of memory: the content is incomplete */
} ms_strbuf;

#define MS_STRBUF_INIT \
    {                  \
        NULL, 0, 0, 0  \
    }

/* Append n bytes of s. */
void ms_strbuf_add(ms_strbuf *b, const char *s, size_t n);

/* Append the string s. */
void ms_strbuf_adds(ms_strbuf *b, const char *s);

/* Append printf-formatted text. */
void ms_strbuf_addf(ms_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The built string (the caller frees it), or NULL when out of memory or when nothing was
 * added; b is empty afterwards. */
char *ms_strbuf_take(ms_strbuf *b);

/* A new printf-formatted string (the caller frees it), NULL when out of memory. */
char *ms_strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Drop the content without taking it. */
void ms_strbuf_free(ms_strbuf *b);

#endif
