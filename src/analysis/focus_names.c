/* The loop names of `memspy run --focus` against the run's loops (docs/mtool.md, "Focus"):
 * the runtime matched loops by their lines and function alone (src/rt/focus.c); here each
 * name must turn out to designate exactly one source loop, or the run is refused with the
 * candidates listed. */
#define _GNU_SOURCE
#include "focus_names.h"
#include "../format/focus_spec.h"
#include "../util/strbuf.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CANDIDATES 40

void ms_focus_loop_name(const ms_loop_stat *l, char *buf, size_t size)
{
    const char *func = l->function ? l->function : "??", *omp = strstr(func, "._omp_fn.");
    int flen = omp ? (int)(omp - func) : (int)strlen(func);
    if (l->end_line > l->line)
        snprintf(buf, size, "%.*s:loop@%d-%d", flen, func, l->line, l->end_line);
    else
        snprintf(buf, size, "%.*s:loop@%d", flen, func, l->line);
}

/* Whether function name fn (readable: C++ qualified, no parameters) is `want` as the runtime
 * matches it: the same name, its last component, a gcc clone (the name before a dot). */
static int function_is(const char *fn, const char *want, size_t wlen)
{
    for (size_t i = 0; i + 1 < wlen; i++)
        if (want[i] == ':' && want[i + 1] == ':') return function_is(fn, want + i + 2, wlen - i - 2);
    const char *last = fn;
    for (const char *q = fn; *q; q++)
        if (q[0] == ':' && q[1] == ':') last = q + 2;
    return !strncmp(last, want, wlen) && (last[wlen] == '\0' || last[wlen] == '.');
}

/* Whether path names file name[0..n): the same path, or its last components. */
static int file_is(const char *path, const char *name, size_t n)
{
    size_t pl = path ? strlen(path) : 0;
    if (!path || pl < n || strncmp(path + pl - n, name, n) != 0) return 0;
    return pl == n || path[pl - n - 1] == '/' || name[0] == '/';
}

/* Whether the runtime took loop l for spec s (lines, and function when named). */
static int runtime_match(const ms_loop_stat *l, const ms_focus_spec *s)
{
    if (l->line <= 0 || !ms_focus_spec_lines_match(s, (uint32_t)l->line, (uint32_t)l->end_line)) return 0;
    return !s->func || (l->function && function_is(l->function, s->func, s->func_len));
}

/* Whether loop i lies in (or is) a loop marked in set. */
static int inside(const ms_model *m, const char *set, uint32_t i, int strict)
{
    uint32_t l = strict ? m->loops[i].parent : i;
    for (size_t guard = 0; l != UINT32_MAX && l < m->nloops && guard < m->nloops; l = m->loops[l].parent, guard++)
        if (set[l]) return 1;
    return 0;
}

/* Whether loops a and b are the same source loop (versions of it). */
static int same_source(const ms_loop_stat *a, const ms_loop_stat *b)
{
    return a->line == b->line && a->end_line == b->end_line &&
           !strcmp(a->function ? a->function : "", b->function ? b->function : "") &&
           !strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

/* Append to sb the distinct source loops marked in set (all loops when set is NULL). */
static void list(ms_strbuf *sb, const ms_model *m, const char *set)
{
    size_t shown = 0, more = 0;
    for (size_t i = 0; i < m->nloops; i++) {
        const ms_loop_stat *l = &m->loops[i];
        if ((set && !set[i]) || l->line <= 0) continue;
        size_t j = 0;
        while (j < i && !(((!set || set[j]) && m->loops[j].line > 0) && same_source(&m->loops[j], l))) j++;
        if (j < i) continue;
        if (shown == MAX_CANDIDATES) {
            more++;
            continue;
        }
        char name[512];
        ms_focus_loop_name(l, name, sizeof name);
        const char *file = l->file ? strrchr(l->file, '/') : NULL;
        ms_strbuf_addf(sb, "\n  %s  (%s:%d-%d, depth %u)", name,
                       file      ? file + 1
                       : l->file ? l->file
                                 : "??",
                       l->line, l->end_line, l->depth);
        shown++;
    }
    if (more) ms_strbuf_addf(sb, "\n  ... and %zu more", more);
    if (!shown) ms_strbuf_addf(sb, " none (the program has no loops in plugin-instrumented code)");
}

/* Check one loop name; 0, or -1 with the message in sb. */
static int check_one(const ms_model *m, const char *name, size_t n, const ms_focus_spec *s, char *rt, char *user,
                     ms_strbuf *sb)
{
    size_t nrt = 0, nuser = 0, nother = 0;
    for (size_t i = 0; i < m->nloops; i++) {
        const ms_loop_stat *l = &m->loops[i];
        rt[i] = (char)runtime_match(l, s);
        user[i] = rt[i] && (!s->file || file_is(l->file, s->file, s->file_len));
        nrt += rt[i] != 0;
        nuser += user[i] != 0;
    }
    if (!nuser) {
        ms_strbuf_addf(sb, "--focus %.*s: no loop of the run has that name; its loops:", (int)n, name);
        list(sb, m, NULL);
        return -1;
    }
    if (nrt > nuser) {
        ms_strbuf_addf(sb,
                       "--focus %.*s: loops of other files have these lines too, and were simulated with it; "
                       "name it by its function:",
                       (int)n, name);
        list(sb, m, rt);
        return -1;
    }
    /* one source loop: the named loops that lie in no other named loop are its versions */
    char *top = calloc(m->nloops, 1);
    if (!top) return -1;
    size_t first = m->nloops;
    for (size_t i = 0; i < m->nloops; i++) {
        if (!user[i] || inside(m, user, (uint32_t)i, 1)) continue;
        top[i] = 1;
        if (first == m->nloops)
            first = i;
        else if (!same_source(&m->loops[first], &m->loops[i]))
            nother++;
    }
    /* the runtime names the loops it matched nothing for: a function symbol it did not read
     * as this name (the check above reads the demangled name) */
    for (size_t i = 0; !nother && i < m->nnotes; i++) {
        const char *note = m->notes[i], *at = strncmp(note, "focus: ", 7) ? NULL : note;
        while (at && (at = strstr(at, "; no loop named ")) != NULL) {
            at += 16;
            if (!strncmp(at, name, n) && (at[n] == '\0' || at[n] == ';')) {
                ms_strbuf_addf(sb,
                               "--focus %.*s: the program's runtime found no such loop (its function's symbol "
                               "was not recognised); name it by FILE:FIRST-LAST",
                               (int)n, name);
                free(top);
                return -1;
            }
        }
    }
    if (nother) {
        ms_strbuf_addf(sb, "--focus %.*s names more than one loop; say which:", (int)n, name);
        list(sb, m, top);
    }
    free(top);
    return nother ? -1 : 0;
}

int ms_focus_check_loops(const ms_model *m, const char *focus, char **msg)
{
    ms_strbuf sb = MS_STRBUF_INIT;
    char *rt = calloc(m->nloops + 1, 1), *user = calloc(m->nloops + 1, 1);
    int rc = rt && user ? 0 : -1;
    for (const char *p = focus; rc == 0 && p && *p;) {
        const char *start = p;
        while (*p && *p != ',') p++;
        size_t n = (size_t)(p - start);
        if (*p) p++;
        ms_focus_spec s;
        if (!n || ms_focus_spec_parse(start, n, &s) < 0 || s.kind != MS_FOCUS_LOOP) continue;
        rc = check_one(m, start, n, &s, rt, user, &sb);
    }
    free(rt);
    free(user);
    *msg = NULL;
    if (rc < 0) *msg = ms_strbuf_take(&sb);
    ms_strbuf_free(&sb);
    return rc;
}
