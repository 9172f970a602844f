/* The growable string (strbuf.h). */
#include "strbuf.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Room for n more bytes and the NUL; 0, or -1 (b->oom set) when out of memory. */
static int reserve(ms_strbuf *b, size_t n)
{
    if (b->oom) return -1;
    if (ms_grow((void **)&b->s, &b->cap, b->len + n + 1, 1) < 0) {
        b->oom = 1;
        return -1;
    }
    return 0;
}

void ms_strbuf_add(ms_strbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) < 0) return;
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void ms_strbuf_adds(ms_strbuf *b, const char *s) { ms_strbuf_add(b, s, strlen(s)); }

void ms_strbuf_addf(ms_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->oom = 1;
        return;
    }
    if (reserve(b, (size_t)n) < 0) return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *ms_strbuf_take(ms_strbuf *b)
{
    char *s = b->oom ? NULL : b->s;
    if (b->oom) free(b->s);
    *b = (ms_strbuf)MS_STRBUF_INIT;
    return s;
}

void ms_strbuf_free(ms_strbuf *b)
{
    free(b->s);
    *b = (ms_strbuf)MS_STRBUF_INIT;
}

char *ms_strprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (text) {
        va_start(ap, fmt);
        vsnprintf(text, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    return text;
}
