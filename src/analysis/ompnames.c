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

/* 2 if record rec is a region record holding func from file, 1 if it holds func (from
 * another file), 0 if not; fills out when it holds func. */
static int match(const char *rec, const char *func, const char *file, ms_omp_region *out)
{
    /* omp FILE PARENT KIND LINE FUNC... */
    if (strncmp(rec, "omp\t", 4) != 0) return 0;
    char *buf, *f[MAX_FIELDS];
    size_t n = split(rec, &buf, f);
    int found = 0;
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

bool ms_omp_region_find(const ms_raw *raw, const char *func, const char *file, ms_omp_region *out)
{
    ms_omp_region r;
    bool any = false;
    for (size_t i = 0; raw && func && i < raw->ndests; i++) {
        int m = raw->dests[i] ? match(raw->dests[i], func, file, &r) : 0;
        if (!m || (any && m < 2)) continue;
        *out = r;
        any = true;
        if (m == 2) return true;
    }
    return any;
}

char *ms_omp_region_name(const ms_raw *raw, const char *func, const char *file, int first_line)
{
    ms_omp_region r;
    char *out = NULL;
    if (ms_omp_region_find(raw, func, file, &r))
        return asprintf(&out, "%s: omp %s @%d", r.parent, r.kind, r.line) < 0 ? NULL : out;
    const char *dot = strstr(func, "._omp_fn.");
    if (dot) return asprintf(&out, "%.*s: omp region @%d", (int)(dot - func), func, first_line) < 0 ? NULL : out;
    return asprintf(&out, "omp region @%d", first_line) < 0 ? NULL : out;
}

void ms_omp_function(const ms_raw *raw, const char *func, const char *file, char *buf, size_t size)
{
    ms_omp_region r;
    const char *dot = strstr(func, "._omp_fn.");
    if (ms_omp_region_find(raw, func, file, &r))
        snprintf(buf, size, "%s", r.parent);
    else
        snprintf(buf, size, "%.*s", dot ? (int)(dot - func) : (int)strlen(func), func);
}
