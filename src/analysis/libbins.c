/* Blocks allocated by libraries without DWARF (libbins.h). A raw heap bin's call path, innermost
 * first, is its allocation pc then its return addresses; the library part is the run of pcs in
 * the allocating pc's module, the program's call into it the first pc outside. */
#include "libbins.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    const ms_raw_bin *b;
    size_t from; /* index (innermost first) of the first pc outside the library */
} lib_path;

/* The pc at index k (innermost first) of b's call path. */
static uint64_t path_pc(const ms_raw_bin *b, size_t k) { return k == 0 ? b->pc : b->path[b->depth - k]; }

static const char *module_of(ms_symbolizer *sym, uint64_t pc)
{
    const ms_sym *s = ms_symbolize(sym, pc, true);
    return s && s->nframes ? s->frames[0].module : NULL;
}

/* Whether b was allocated by library code; *from: its first pc outside the library. */
static bool library_path(const ms_raw_bin *b, ms_symbolizer *sym, size_t *from)
{
    if (b->kind != MS_BIN_HEAP) return false;
    const char *lib = module_of(sym, b->pc);
    if (!lib) return false;
    size_t k = 1;
    while (k <= b->depth) {
        const char *m = module_of(sym, path_pc(b, k));
        if (!m || strcmp(m, lib) != 0) break;
        k++;
    }
    *from = k;
    return true;
}

/* Order by the call path from the call into the library outwards. */
static int cmp_outer(const void *a, const void *b)
{
    const lib_path *x = a, *y = b;
    size_t nx = x->b->depth + 1 - x->from, ny = y->b->depth + 1 - y->from;
    for (size_t i = 0; i < nx && i < ny; i++) {
        uint64_t px = path_pc(x->b, x->from + i), py = path_pc(y->b, y->from + i);
        if (px != py) return px < py ? -1 : 1;
    }
    return (nx > ny) - (nx < ny);
}

bool *ms_library_exclusive(const ms_raw_bin *all, size_t nall, const ms_raw_bin *bins, size_t nbins, ms_symbolizer *sym)
{
    bool *out = calloc(nbins ? nbins : 1, sizeof *out);
    lib_path *lp = malloc((nall ? nall : 1) * sizeof *lp);
    if (!out || !lp) {
        free(out);
        free(lp);
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < nall; i++)
        if (library_path(&all[i], sym, &lp[n].from)) lp[n++].b = &all[i];
    qsort(lp, n, sizeof *lp, cmp_outer);
    for (size_t i = 0; i < nbins; i++) {
        lib_path key;
        if (!library_path(&bins[i], sym, &key.from) || key.from > bins[i].depth) continue; /* no call of the program */
        key.b = &bins[i];
        const lib_path *hit = bsearch(&key, lp, n, sizeof *lp, cmp_outer);
        if (!hit) continue;
        size_t at = (size_t)(hit - lp), same = 1;
        if (at > 0 && cmp_outer(&lp[at - 1], &key) == 0) same++;
        if (at + 1 < n && cmp_outer(&lp[at + 1], &key) == 0) same++;
        out[i] = same == 1;
    }
    free(lp);
    return out;
}
