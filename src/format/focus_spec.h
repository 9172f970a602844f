/* The names `memspy run --focus` takes (MEMSPY_FOCUS=NAME,NAME... in the program's
 * environment), read by the runtime (src/rt/focus.c) and by the run's check of loop names
 * (src/analysis/focus_names.c). No libc: the runtime parses them before anything is set up.
 *
 *   FUNC:loop@A-B, FUNC:loop@A   a loop as code bins and waiting name it: its function and
 *                                its source lines (A alone: the loop whose lines start at A)
 *   FILE:A-B, FILE:A             a loop as `memspy mtool`'s source column names it
 *   anything else                a function (symbol, C++ identifier, gcc clone: focus.c) */
#ifndef MEMSPY_FOCUS_SPEC_H
#define MEMSPY_FOCUS_SPEC_H

#include <stddef.h>
#include <stdint.h>

enum { MS_FOCUS_FUNCTION = 0, MS_FOCUS_LOOP = 1 };

typedef struct {
    int kind;           /* MS_FOCUS_FUNCTION or MS_FOCUS_LOOP */
    const char *func;   /* a loop's function (FUNC:loop@...), the function's name; NULL if none */
    size_t func_len;    /* its length (the name is not NUL-terminated there) */
    const char *file;   /* FILE:A-B's file, NULL otherwise */
    size_t file_len;    /* its length */
    uint32_t line, end; /* a loop's first and last line; end 0: any last line */
} ms_focus_spec;

/* Digits at s[0..n) as a line number (1 and up) into *v; 0, or -1 if they are not one. */
static inline int ms_focus_spec_number(const char *s, size_t n, uint32_t *v)
{
    uint64_t x = 0;
    if (n == 0 || n > 9) return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        x = x * 10 + (uint64_t)(s[i] - '0');
    }
    *v = (uint32_t)x;
    return x ? 0 : -1;
}

/* "A" or "A-B" at s[0..n) into *line and *end (0 for "A"); 0, or -1 if not lines. */
static inline int ms_focus_spec_lines(const char *s, size_t n, uint32_t *line, uint32_t *end)
{
    size_t dash = 0;
    while (dash < n && s[dash] != '-') dash++;
    *end = 0;
    if (ms_focus_spec_number(s, dash, line) < 0) return -1;
    if (dash == n) return 0;
    return ms_focus_spec_number(s + dash + 1, n - dash - 1, end) < 0 || *end < *line ? -1 : 0;
}

/* Parse name[0..n) into *s: always 0 for a function; a loop form with bad lines ("f:loop@x")
 * is -1. */
static inline int ms_focus_spec_parse(const char *name, size_t n, ms_focus_spec *s)
{
    static const char tag[] = ":loop@";
    const size_t tlen = sizeof tag - 1;
    *s = (ms_focus_spec){ MS_FOCUS_FUNCTION, name, n, NULL, 0, 0, 0 };
    for (size_t i = 0; i + tlen <= n; i++) {
        size_t k = 0;
        while (k < tlen && name[i + k] == tag[k]) k++;
        if (k < tlen) continue;
        s->kind = MS_FOCUS_LOOP;
        s->func_len = i;
        if (i == 0) s->func = NULL;
        return ms_focus_spec_lines(name + i + tlen, n - i - tlen, &s->line, &s->end);
    }
    size_t colon = n;
    while (colon > 0 && name[colon - 1] != ':') colon--;
    if (colon < 2 || name[colon - 2] == ':') return 0; /* no FILE, or C++'s ns::f */
    uint32_t line, end;
    if (ms_focus_spec_lines(name + colon, n - colon, &line, &end) < 0) return 0;
    *s = (ms_focus_spec){ MS_FOCUS_LOOP, NULL, 0, name, colon - 1, line, end };
    return 0;
}

/* Whether a loop with lines [line, end] is the one s names. */
static inline int ms_focus_spec_lines_match(const ms_focus_spec *s, uint32_t line, uint32_t end)
{
    return line == s->line && (s->end == 0 || end == s->end);
}

#endif
