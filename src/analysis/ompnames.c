/* OpenMP region names (ompnames.h) from the plugins' region records. */
#define _GNU_SOURCE /* asprintf */
#include "ompnames.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ms_omp_outlined(const char *func) { return strstr(func, "._omp_fn.") || strstr(func, "omp_outlined"); }

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

#define MAX_FIELDS 16

/* Split a copy of rec at tabs into f; returns the number of fields (the copy is *buf). */
static size_t split(const char *rec, char **buf, char **f)
{
    *buf = strdup(rec);
    if (!*buf) return 0;
    size_t n = 0;
    for (char *p = *buf; n < MAX_FIELDS;) {
        f[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

/* Fill out from region record rec (omp FILE PARENT KIND LINE FUNC...); returns 2 if it
 * lists func and comes from file, 1 if it lists func (or func is NULL), 0 if not (or rec is
 * no region record). */
static int match(const char *rec, const char *func, const char *file, ms_omp_region *out)
{
    if (strncmp(rec, "omp\t", 4) != 0) return 0;
    char *buf, *f[MAX_FIELDS];
    size_t n = split(rec, &buf, f);
    int found = func ? 0 : 1;
    for (size_t i = 5; i < n && !found; i++)
        if (strcmp(f[i], func) == 0) found = 1;
    if (found && n >= 6) {
        snprintf(out->parent, sizeof out->parent, "%s", f[2]);
        snprintf(out->kind, sizeof out->kind, "%s", f[3]);
        out->line = atoi(f[4]);
        if (file && *f[1] && strcmp(base_name(f[1]), base_name(file)) == 0) found = 2;
    } else {
        found = 0;
    }
    free(buf);
    return found;
}

static bool find(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                 ms_omp_region *out)
{
    ms_omp_region r;
    bool any = false;
    bool by_pc = sym && code && code->entry && raw && raw->dest_pcs;
    for (size_t i = 0; raw && i < raw->ndests; i++) {
        if (!raw->dests[i] || strncmp(raw->dests[i], "omp\t", 4) != 0) continue;
        if (by_pc) { /* the function itself, or one inlined into it that the record lists */
            const ms_sym *label = ms_symbolize(sym, raw->dest_pcs[2 * i], false);
            if (!label || label->entry != code->entry) continue;
            bool outer = !func || !code->nframes || strcmp(code->frames[code->nframes - 1].func, func) == 0;
            if (match(raw->dests[i], outer ? NULL : func, NULL, out)) return true;
            continue;
        }
        int m = func ? match(raw->dests[i], func, file, &r) : 0;
        if (!m || (any && m < 2)) continue;
        *out = r;
        any = true;
        if (m == 2) break;
    }
    return any;
}

bool ms_omp_region_find(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                        ms_omp_region *out)
{
    if (!find(raw, sym, code, func, file, out)) return false;
    const char *parent = sym ? ms_symbolizer_readable(sym, out->parent) : NULL;
    if (parent && parent != out->parent) snprintf(out->parent, sizeof out->parent, "%s", parent);
    return true;
}

char *ms_omp_region_name(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                         int first_line)
{
    ms_omp_region r;
    char *out = NULL;
    if (ms_omp_region_find(raw, sym, code, func, file, &r))
        return asprintf(&out, "%s: omp %s @%d", r.parent, r.kind, r.line) < 0 ? NULL : out;
    const char *dot = strstr(func, "._omp_fn.");
    if (dot) return asprintf(&out, "%.*s: omp region @%d", (int)(dot - func), func, first_line) < 0 ? NULL : out;
    return asprintf(&out, "omp region @%d", first_line) < 0 ? NULL : out;
}

void ms_omp_function(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                     char *buf, size_t size)
{
    ms_omp_region r;
    const char *dot = strstr(func, "._omp_fn.");
    if (ms_omp_region_find(raw, sym, code, func, file, &r))
        snprintf(buf, size, "%s", r.parent);
    else
        snprintf(buf, size, "%.*s", dot ? (int)(dot - func) : (int)strlen(func), func);
}
