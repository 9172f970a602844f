/* Choosing bins by name on the command line (report, show, fullname, rename, combine): exact
 * short name, exact full name or glob; unknown names are errors that list the closest names. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/util.h"
#include "cli.h"

#define MAX_SUGGESTIONS 5

/* Levenshtein distance, for suggesting names close to a mistyped one. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = malloc((lb + 1) * sizeof *row);
    if (!row) return (size_t)-1;
    for (size_t j = 0; j <= lb; j++) row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best) best = up + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

typedef struct {
    size_t dist;
    size_t bin;
} suggestion;

static int cmp_suggestion(const void *a, const void *b)
{
    const suggestion *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->bin < y->bin ? -1 : x->bin > y->bin;
}

static const char *bin_name(const ms_model *m, int code, size_t i) { return code ? m->code[i].name : m->data[i].name; }

/* "memspy CMD: no data bin matches 'x'; closest: a, b, c". Returns MS_EXIT_USAGE. */
static int unknown_name(const char *cmd, const ms_model *m, int code, const char *pattern)
{
    size_t n = code ? m->ncode : m->ndata;
    const char *what = code ? "code segment" : "data bin";
    suggestion *s = malloc((n ? n : 1) * sizeof *s);
    if (!s || n == 0) {
        free(s);
        return ms_cli_error(cmd, "no %s matches '%s' (the run has none)", what, pattern);
    }
    for (size_t i = 0; i < n; i++) s[i] = (suggestion){ edit_distance(pattern, bin_name(m, code, i)), i };
    qsort(s, n, sizeof *s, cmp_suggestion);
    fprintf(stderr, "memspy %s: no %s matches '%s'; closest:", cmd, what, ms_term(pattern));
    for (size_t i = 0; i < n && i < MAX_SUGGESTIONS; i++)
        fprintf(stderr, "%s %s", i ? "," : "", ms_term(bin_name(m, code, s[i].bin)));
    fputc('\n', stderr);
    free(s);
    return MS_EXIT_USAGE;
}

/* Whether name is base itself or base followed by "@FUNCTION[:LINE]" or "#N" (the suffixes
 * that tell apart bins whose names clashed, analysis/databins.c). */
static int same_base_name(const char *name, const char *base)
{
    size_t n = strlen(base);
    if (!name || strncmp(name, base, n) != 0) return 0;
    if (name[n] == '\0') return 1;
    if (name[n] == '@' && name[n + 1] && !strchr(name + n + 1, '@')) return 1;
    if (name[n] != '#' || !name[n + 1]) return 0;
    for (const char *p = name + n + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

/* How many code segments (code) or data bins are named pattern, or pattern with a suffix. */
static size_t name_family(const ms_model *m, int code, const char *pattern)
{
    size_t n = code ? m->ncode : m->ndata, family = 0;
    for (size_t i = 0; i < n; i++) family += same_base_name(bin_name(m, code, i), pattern);
    return family;
}

/* A pattern that is the exact name of one bin while others share it (duplicates, or the same
 * name with an "@FUNCTION" or "#N" suffix), or the plain name that several bins carry with
 * their suffixes (none keeps it: analysis/databins.c), names none of them for sure: list them,
 * so that the user picks one instead of memspy silently picking one. Returns MS_EXIT_USAGE if
 * so, else 0. */
static int shared_name(const char *cmd, const ms_model *m, int code, const char *pattern)
{
    size_t n = code ? m->ncode : m->ndata, family = name_family(m, code, pattern);
    if (family < 2) return 0;
    fprintf(stderr, "memspy %s: '%s' is the name of %zu %s; give one of these names (or a glob):\n", cmd, pattern,
            family, code ? "code segments" : "data bins");
    for (size_t i = 0; i < n; i++) {
        const char *name = bin_name(m, code, i);
        if (!same_base_name(name, pattern)) continue;
        const char *full = code ? m->code[i].file : m->data[i].full_name;
        if (full && strcmp(full, name) != 0)
            fprintf(stderr, "  %s  (%s)\n", name, full);
        else
            fprintf(stderr, "  %s\n", name);
    }
    return MS_EXIT_USAGE;
}

/* Data bins of kind OTHER: `--data other` takes all of them (the unattributed accesses, by
 * mapping: other, other:[heap], other:libfoo.so, ...). Returns how many were added to sel. */
static size_t other_bins(const ms_model *m, uint32_t *sel, size_t nsel, char *taken)
{
    for (size_t i = 0; i < m->ndata; i++) {
        if (m->data[i].kind != MS_BIN_OTHER || taken[i]) continue;
        taken[i] = 1;
        sel[nsel++] = (uint32_t)i;
    }
    return nsel;
}

int ms_cli_unknown_bin(const char *cmd, const ms_model *m, const char *pattern)
{
    /* Suggest from the kind with the closer name. */
    size_t best_code = (size_t)-1, best_data = (size_t)-1;
    for (size_t i = 0; i < m->ncode; i++) {
        size_t d = edit_distance(pattern, m->code[i].name);
        if (d < best_code) best_code = d;
    }
    for (size_t i = 0; i < m->ndata; i++) {
        size_t d = edit_distance(pattern, m->data[i].name);
        if (d < best_data) best_data = d;
    }
    return unknown_name(cmd, m, best_code < best_data, pattern);
}

int ms_cli_find_bins(const char *cmd, const ms_model *m, int code, char **patterns, size_t npatterns, uint32_t **out,
                     size_t *nout)
{
    size_t nbins = code ? m->ncode : m->ndata;
    uint32_t *sel = malloc((nbins ? nbins : 1) * sizeof *sel), *hits = malloc((nbins ? nbins : 1) * sizeof *hits);
    char *taken = calloc(nbins ? nbins : 1, 1);
    size_t nsel = 0;
    int rc = 0;
    if (!sel || !hits || !taken) rc = ms_cli_error(cmd, "out of memory");
    for (size_t p = 0; rc == 0 && p < npatterns; p++) {
        rc = shared_name(cmd, m, code, patterns[p]);
        if (rc) break;
        if (!code && strcmp(patterns[p], "other") == 0) {
            size_t before = nsel;
            nsel = other_bins(m, sel, nsel, taken);
            if (nsel > before) continue;
        }
        size_t nhits =
            code ? ms_model_find_code(m, patterns[p], hits, nbins) : ms_model_find_data(m, patterns[p], hits, nbins);
        if (nhits == 0) rc = unknown_name(cmd, m, code, patterns[p]);
        for (size_t i = 0; rc == 0 && i < nhits && i < nbins; i++) {
            if (taken[hits[i]]) continue;
            taken[hits[i]] = 1;
            sel[nsel++] = hits[i];
        }
    }
    free(hits);
    free(taken);
    if (rc) {
        free(sel);
        return rc;
    }
    *out = sel;
    *nout = nsel;
    return 0;
}

int ms_cli_find_any_bins(const char *cmd, const ms_model *m, char **patterns, size_t npatterns, int *code,
                         uint32_t **out, size_t *nout)
{
    size_t ncode_hits = 0, ndata_hits = 0;
    for (size_t p = 0; p < npatterns; p++) {
        uint32_t dummy;
        size_t nc = ms_model_find_code(m, patterns[p], &dummy, 1), nd = ms_model_find_data(m, patterns[p], &dummy, 1);
        if (nc == 0 && nd == 0) { /* a plain name that several bins carry with suffixes: listed */
            nc = name_family(m, 1, patterns[p]) > 1;
            nd = !nc && name_family(m, 0, patterns[p]) > 1;
        }
        if (nc == 0 && nd == 0) return ms_cli_unknown_bin(cmd, m, patterns[p]);
        if (nc && nd)
            return ms_cli_error(cmd, "'%s' names both a code segment and a data bin; give its full name", patterns[p]);
        ncode_hits += nc > 0;
        ndata_hits += nd > 0;
    }
    if (ncode_hits && ndata_hits) return ms_cli_error(cmd, "cannot mix code segments and data bins");
    *code = ncode_hits > 0;
    return ms_cli_find_bins(cmd, m, *code, patterns, npatterns, out, nout);
}
