/* Annotated source: a source file of the run with each line's references, L1 misses and
 * stall cycles, and the line's share of the run's stall time, as a column or (in a terminal)
 * as a background shade from light to dark. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "../util/util.h"
#include "text_fmt.h"

#define MAX_LISTED_FILES 8

/* ANSI 256-colour backgrounds from light to dark red, and a readable foreground for each. */
static const int SHADE_BG[] = { 224, 217, 210, 203, 196, 160, 124, 88 };
#define NSHADES (int)(sizeof SHADE_BG / sizeof *SHADE_BG)
#define FIRST_DARK_SHADE 4

typedef struct {
    uint64_t refs, misses, stall;
} line_cost;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether `path` ends with the path components of `suffix` ("c/d.c" matches "/a/b/c/d.c"). */
static int has_path_suffix(const char *path, const char *suffix)
{
    size_t lp = strlen(path), ls = strlen(suffix);
    if (ls > lp || strcmp(path + lp - ls, suffix) != 0) return 0;
    return ls == lp || path[lp - ls - 1] == '/';
}

/* Indices of the run's files that `file` names: same real path, else a path suffix, else
 * the same basename (the first rule with any match wins). Returns how many (idx holds up to
 * cap). */
static size_t match_files(const ms_model *m, const char *file, uint32_t *idx, size_t cap)
{
    char want[PATH_MAX], have[PATH_MAX];
    const char *suffix = file;
    while (strncmp(suffix, "./", 2) == 0) suffix += 2;
    int have_real = realpath(file, want) != NULL;
    for (int rule = 0; rule < 3; rule++) {
        size_t n = 0;
        for (size_t i = 0; i < m->nfiles; i++) {
            const char *f = m->files[i];
            int hit = 0;
            if (!f) continue;
            if (rule == 0)
                hit = have_real && (strcmp(f, want) == 0 || (realpath(f, have) && strcmp(have, want) == 0));
            else if (rule == 1)
                hit = has_path_suffix(f, suffix);
            else
                hit = strcmp(base_name(f), base_name(suffix)) == 0;
            if (hit && n++ < cap) idx[n - 1] = (uint32_t)i;
        }
        if (n) return n;
    }
    return 0;
}

/* "a, b, c and 4 more" of the run's files idx[0..n) (all files when idx is NULL). */
static void list_files(const ms_model *m, const uint32_t *idx, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && i < MAX_LISTED_FILES && used < len; i++) {
        const char *f = m->files[idx ? idx[i] : i];
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", f ? f : "?");
    }
    if (n > MAX_LISTED_FILES && used < len) snprintf(buf + used, len - used, " and %zu more", n - MAX_LISTED_FILES);
}

/* The whole file as a NUL-terminated string; NULL if unreadable. */
static char *read_text(const char *path)
{
    char *text;
    return ms_read_file(path, 0, &text, NULL) == MS_READ_OK ? text : NULL;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;
    for (const char *p = text; *p; p++) n += *p == '\n';
    return n + (*text && text[strlen(text) - 1] != '\n');
}

static int digits(uint64_t v)
{
    int d = 1;
    while (v >= 10) v /= 10, d++;
    return d;
}

static int max_int(int a, int b) { return a > b ? a : b; }

typedef struct {
    int refs, misses, stall, line; /* column widths */
} widths;

static void print_header(FILE *out, const widths *w, int color)
{
    fprintf(out, "%*s %*s %*s %s%*s  Source\n", w->refs, "Refs", w->misses, "L1 miss", w->stall, "Stall",
            color ? "" : "Stall%  ", w->line, "Line");
}

/* One source line: numbers (blank when the line has no cost), share, line number, text. */
/* len bytes of a source line, its control characters (but tabs) escaped. */
static void print_source_text(FILE *out, const char *text, size_t len)
{
    char *copy = strndup(text, len);
    if (!copy) {
        fputs("(out of memory)", out);
        return;
    }
    for (char *p = copy; *p; p++)
        if (*p == '\n') *p = ' '; /* (a line holds none; a NUL byte ends the copy early) */
    size_t n = ms_term_escape(NULL, 0, copy, 1);
    char *safe = malloc(n + 1);
    if (safe) ms_term_escape(safe, n + 1, copy, 1);
    fputs(safe ? safe : "(out of memory)", out);
    free(safe);
    free(copy);
}

static void print_line(FILE *out, const widths *w, int color, int lineno, const line_cost *c, uint64_t total_stall,
                       const char *text, size_t len)
{
    int costly = c->refs || c->stall;
    double share = ms_ratio(c->stall, total_stall);
    int shaded = color && c->stall > 0;
    if (shaded) {
        int shade = (int)(share * NSHADES);
        if (shade >= NSHADES) shade = NSHADES - 1;
        fprintf(out, "\033[48;5;%dm\033[38;5;%dm", SHADE_BG[shade], shade >= FIRST_DARK_SHADE ? 231 : 16);
    }
    if (costly)
        fprintf(out, "%*llu %*llu %*llu ", w->refs, (unsigned long long)c->refs, w->misses,
                (unsigned long long)c->misses, w->stall, (unsigned long long)c->stall);
    else
        fprintf(out, "%*s %*s %*s ", w->refs, "", w->misses, "", w->stall, "");
    if (!color) {
        if (c->stall)
            fprintf(out, "%5.1f%%  ", 100.0 * share);
        else
            fputs("        ", out);
    }
    fprintf(out, "%*d  ", w->line, lineno);
    print_source_text(out, text, len);
    if (shaded) fputs("\033[0m", out);
    fputc('\n', out);
}

/* One line's total cost, for picking the hottest lines of one file or of the run. */
typedef struct {
    uint32_t file;
    int line;
    uint64_t stall, refs;
} hot_line;

static int hot_order(const void *pa, const void *pb)
{
    const hot_line *a = pa, *b = pb;
    if (a->stall != b->stall) return a->stall > b->stall ? -1 : 1;
    if (a->refs != b->refs) return a->refs > b->refs ? -1 : 1;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_place(const void *pa, const void *pb)
{
    const hot_line *a = pa, *b = pb;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The run's lines (of file `only`, or of every file when only is UINT32_MAX) with their costs
 * summed over bins, hottest first; only lines with stall or references. *n receives the
 * count. NULL if out of memory (or no line). */
static hot_line *hottest_lines(const ms_model *m, uint32_t only, size_t *n)
{
    hot_line *v = malloc((m->nlines ? m->nlines : 1) * sizeof *v);
    size_t k = 0;
    if (!v) return NULL;
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *ls = &m->lines[i];
        if ((only != UINT32_MAX && ls->file != only) || ls->file >= m->nfiles || !m->files[ls->file] || ls->line < 1)
            continue;
        v[k++] = (hot_line){ ls->file, ls->line, ms_counters_stall(&ls->c), ms_counters_refs(&ls->c) };
    }
    /* Sum the rows of one (file, line) (one per bin pair): sort by place, merge, sort by cost. */
    qsort(v, k, sizeof *v, cmp_place);
    size_t w = 0;
    for (size_t i = 0; i < k; i++) {
        if (w && v[w - 1].file == v[i].file && v[w - 1].line == v[i].line) {
            v[w - 1].stall += v[i].stall;
            v[w - 1].refs += v[i].refs;
        } else
            v[w++] = v[i];
    }
    qsort(v, w, sizeof *v, hot_order);
    *n = w;
    return v;
}

/* Print one source file of the run (index fi; its text read from `given` if not NULL and
 * readable, else from the recorded path). show[line] (NULL: every line) marks the lines to
 * print; runs of hidden lines become one "..." line. Returns 0 or -1 with err. */
static int print_file(FILE *out, const ms_model *m, uint32_t fi, const char *given, const ms_annotate_opts *opts,
                      const hot_line *hot, size_t nhot, char *err, size_t errlen)
{
    const char *recorded = m->files[fi];
    char *text = given ? read_text(given) : NULL;
    if (!text) text = read_text(recorded);
    if (!text)
        return ms_errorf(err, errlen, "cannot read the source of '%s' (recorded as %s)", given ? given : recorded,
                         recorded);

    size_t nsrc = count_lines(text), beyond = 0;
    line_cost *cost = calloc(nsrc + 1, sizeof *cost);
    char *show = opts->hot > 0 ? calloc(nsrc + 2, 1) : NULL;
    if (!cost || (opts->hot > 0 && !show)) {
        free(cost);
        free(show);
        free(text);
        return ms_errorf(err, errlen, "out of memory");
    }
    widths w = { 4, 7, 5, max_int(4, digits(nsrc)) };
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *ls = &m->lines[i];
        if (ls->file != fi) continue;
        if (ls->line < 1 || (size_t)ls->line > nsrc) {
            beyond++;
            continue;
        }
        line_cost *c = &cost[ls->line];
        c->refs += ms_counters_refs(&ls->c);
        c->misses += ms_counters_misses(&ls->c, 0);
        c->stall += ms_counters_stall(&ls->c);
        w.refs = max_int(w.refs, digits(c->refs));
        w.misses = max_int(w.misses, digits(c->misses));
        w.stall = max_int(w.stall, digits(c->stall));
    }
    for (size_t i = 0; show && i < nhot; i++) {
        if (hot[i].file != fi || hot[i].line < 1 || (size_t)hot[i].line > nsrc) continue;
        size_t lo = (size_t)hot[i].line > (size_t)opts->context ? (size_t)hot[i].line - (size_t)opts->context : 1;
        size_t hi = (size_t)hot[i].line + (size_t)opts->context;
        for (size_t l = lo; l <= hi && l <= nsrc; l++) show[l] = 1;
    }
    uint64_t total_stall = ms_counters_stall(&m->totals);
    fprintf(out, "-- %s\n-- Total stall of the run: %llu cycles; per line: references, L1 misses, stall cycles%s\n",
            ms_term(recorded), (unsigned long long)total_stall,
            opts->color ? ", shaded by share of stall" : " and share of the run's stall");
    print_header(out, &w, opts->color);
    const char *p = text;
    int elided = 0;
    for (size_t line = 1; line <= nsrc; line++) {
        const char *end = strchr(p, '\n');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (!show || show[line]) {
            print_line(out, &w, opts->color, (int)line, &cost[line], total_stall, p, len);
            elided = 0;
        } else if (!elided) {
            fprintf(out, "%*s ...\n", w.refs + w.misses + w.stall + w.line + (opts->color ? 3 : 11), "");
            elided = 1;
        }
        p += len + (end != NULL);
    }
    if (beyond)
        fprintf(out, "-- %zu line statistic(s) lie beyond the end of the file: has it changed since the run?\n",
                beyond);
    free(cost);
    free(show);
    free(text);
    return 0;
}

int ms_report_annotate(FILE *out, const ms_model *m, const char *file, const ms_annotate_opts *opts, char *err,
                       size_t errlen)
{
    uint32_t idx[MAX_LISTED_FILES + 1];
    char names[2048];
    if (!file && opts->hot <= 0) return ms_errorf(err, errlen, "no source file named");
    size_t nmatch = file ? match_files(m, file, idx, MAX_LISTED_FILES + 1) : 1;
    if (nmatch == 0) {
        list_files(m, NULL, m->nfiles, names, sizeof names);
        return ms_errorf(err, errlen, "no source file of the run matches '%s'; the run's files: %s", file,
                         m->nfiles ? names : "(none)");
    }
    if (nmatch > 1) {
        list_files(m, idx, nmatch, names, sizeof names);
        return ms_errorf(err, errlen, "'%s' matches several source files of the run: %s", file, names);
    }
    if (opts->hot <= 0) {
        if (print_file(out, m, idx[0], file, opts, NULL, 0, err, errlen) < 0) return -1;
    } else {
        size_t nhot = 0;
        hot_line *hot = hottest_lines(m, file ? idx[0] : UINT32_MAX, &nhot);
        if (!hot) return ms_errorf(err, errlen, "out of memory");
        if (nhot > (size_t)opts->hot) nhot = (size_t)opts->hot;
        if (!nhot)
            fprintf(out, "-- no line of %s has references or stall in this run\n", file ? ms_term(file) : "the run");
        /* Files in the order of their hottest line; each printed once. */
        for (size_t i = 0; i < nhot; i++) {
            size_t j = 0;
            while (j < i && hot[j].file != hot[i].file) j++;
            if (j < i) continue;
            if (i) fputc('\n', out);
            if (print_file(out, m, hot[i].file, file, opts, hot, nhot, err, errlen) == 0) continue;
            if (file) {
                free(hot);
                return -1;
            }
            /* Across the run, a file whose source is gone is named with its hot lines. */
            fprintf(out, "-- %s: %s; its hot lines:", ms_term(m->files[hot[i].file]), ms_term(err));
            for (size_t k = i; k < nhot; k++)
                if (hot[k].file == hot[i].file) fprintf(out, " %d", hot[k].line);
            fputc('\n', out);
        }
        free(hot);
    }
    if (ferror(out)) return ms_errorf(err, errlen, "cannot write the annotated source");
    return 0;
}
