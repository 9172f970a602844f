/* Inclusive procedure times for MTOOL (see mtool_calls.h). The call graph's strongly connected
 * components (Tarjan) are collapsed, so recursion is a single node; the components are then
 * summed callees first (Tarjan emits them in that order), a callee's inclusive time going to
 * its callers in proportion to the calls each made to it. */
#include "mtool_calls.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    size_t from, to; /* procedure indices */
    uint64_t count;
} edge;

typedef struct {
    size_t np, ne;
    const edge *e;
    const size_t *first; /* edges of procedure p: e[first[p] .. first[p+1]) (sorted by from) */
    size_t *index, *low, *stack, *comp, nstack, next_index, ncomp;
    int *on_stack;
} tarjan;

/* Tarjan's algorithm from v, iteratively (a deep call graph must not overflow the C stack):
 * comp[] receives component numbers in reverse topological order (callees first). */
static void strongconnect(tarjan *t, size_t v, size_t *work, size_t *edge_at)
{
    size_t depth = 0;
    work[depth] = v;
    edge_at[v] = t->first[v];
    t->index[v] = t->low[v] = ++t->next_index;
    t->stack[t->nstack++] = v;
    t->on_stack[v] = 1;
    while (1) {
        size_t u = work[depth];
        if (edge_at[u] < t->first[u + 1]) {
            size_t w = t->e[edge_at[u]++].to;
            if (!t->index[w]) {
                work[++depth] = w;
                edge_at[w] = t->first[w];
                t->index[w] = t->low[w] = ++t->next_index;
                t->stack[t->nstack++] = w;
                t->on_stack[w] = 1;
            } else if (t->on_stack[w] && t->index[w] < t->low[u]) {
                t->low[u] = t->index[w];
            }
            continue;
        }
        if (t->low[u] == t->index[u]) { /* u roots a component */
            size_t w;
            do {
                w = t->stack[--t->nstack];
                t->on_stack[w] = 0;
                t->comp[w] = t->ncomp;
            } while (w != u);
            t->ncomp++;
        }
        if (depth == 0) return;
        size_t parent = work[--depth];
        if (t->low[u] < t->low[parent]) t->low[parent] = t->low[u];
    }
}

enum { EST_YES, EST_HEURISTIC, EST_NO };

/* The largest call graph (components) the estimability test runs on: it keeps a bit set of
 * descendants per component. */
#define EST_MAX_COMPONENTS 8192u

/* MTOOL's estimability test (the paper's section 4) per component, callees first:
 * Tot(v) = 1 + sum over calls v -> w of Tot(w) x calls(v->w) / calls(->w), TDES(v) = 1 +
 * descendants; v's inclusive estimate is exact when Tot(v) = TDES(v) (all of its
 * descendants' work is done on its behalf). Otherwise the paper's two heuristics, applied to
 * every call v -> w shared with other callers: at least 98% of w's calls come from v, or w's
 * share is negligible (under 1% of v's inclusive estimate); when every shared call passes
 * and the callees are themselves estimable, v is EST_HEURISTIC. NULL (no verdict) when out of
 * memory or for a graph too large. */
static int *estimability(const tarjan *t, const edge *e, const size_t *first, const uint64_t *in_calls,
                         const double *ce, size_t np)
{
    size_t nc = t->ncomp, words = (nc + 63) / 64;
    if (!nc || nc > EST_MAX_COMPONENTS) return NULL;
    uint64_t *reach = calloc(nc * words, sizeof *reach);
    double *tot = calloc(nc, sizeof *tot);
    uint64_t *to_comp = calloc(nc, sizeof *to_comp); /* calls from the current component, by callee */
    int *verdict = calloc(nc, sizeof *verdict);
    if (!reach || !tot || !to_comp || !verdict) {
        free(reach);
        free(tot);
        free(to_comp);
        free(verdict);
        return NULL;
    }
    for (size_t c = 0; c < nc; c++) {
        uint64_t *rc = reach + c * words;
        for (size_t v = 0; v < np; v++) {
            if (t->comp[v] != c) continue;
            for (size_t k = first[v]; k < first[v + 1]; k++) {
                size_t d = t->comp[e[k].to];
                if (d == c) continue;
                to_comp[d] += e[k].count;
                rc[d / 64] |= 1ull << (d % 64);
                for (size_t w = 0; w < words; w++) rc[w] |= reach[d * words + w];
            }
        }
        size_t ndesc = 0;
        for (size_t w = 0; w < words; w++) ndesc += (size_t)__builtin_popcountll(rc[w]);
        tot[c] = 1;
        int shared = 0, unsure = 0;
        for (size_t d = 0; d < c; d++) {
            if (!to_comp[d]) continue;
            double frac = in_calls[d] ? (double)to_comp[d] / (double)in_calls[d] : 1;
            tot[c] += tot[d] * frac;
            if (verdict[d] == EST_NO) unsure = 1;
            if (frac < 1 - 1e-12) {
                shared = 1;
                int most_calls = frac >= 0.98, negligible = frac * ce[2 * d] < 0.01 * ce[2 * c];
                if (!most_calls && !negligible) unsure = 1;
            }
            if (verdict[d] == EST_HEURISTIC) shared = 1;
            to_comp[d] = 0;
        }
        double tdes = 1 + (double)ndesc;
        verdict[c] = tot[c] >= tdes - 1e-9 * tdes && !shared ? EST_YES : unsure ? EST_NO : EST_HEURISTIC;
    }
    free(reach);
    free(tot);
    free(to_comp);
    return verdict;
}

static int by_from(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* The procedure mobject named fn, or SIZE_MAX. */
static size_t procedure(const ms_mtool_result *r, const size_t *proc, size_t np, const char *fn)
{
    for (size_t i = 0; fn && i < np; i++)
        if (r->mobjects[proc[i]].function && !strcmp(r->mobjects[proc[i]].function, fn)) return i;
    return SIZE_MAX;
}

int ms_mtool_inclusive(ms_mtool_result *r, const ms_mtool_edge *edges, size_t nedges)
{
    size_t np = 0;
    for (size_t i = 0; i < r->nmobjects; i++) np += r->mobjects[i].kind == MS_MOBJ_PROCEDURE;
    size_t *proc = calloc(np + 1, sizeof *proc), *first = calloc(np + 2, sizeof *first);
    edge *e = calloc(nedges + 1, sizeof *e);
    size_t *mem = calloc(7 * (np + 1), sizeof *mem);
    int *on_stack = calloc(np + 1, sizeof *on_stack);
    double *ce = calloc(2 * (np + 1), sizeof *ce);         /* per component: inclusive estimated, measured */
    uint64_t *in_calls = calloc(np + 1, sizeof *in_calls); /* by component */
    int rc = -1;
    if (!proc || !first || !e || !mem || !on_stack || !ce || !in_calls) goto out;
    np = 0;
    for (size_t i = 0; i < r->nmobjects; i++)
        if (r->mobjects[i].kind == MS_MOBJ_PROCEDURE) proc[np++] = i;
    size_t ne = 0;
    for (size_t i = 0; i < nedges; i++) {
        size_t f = procedure(r, proc, np, edges[i].caller), g = procedure(r, proc, np, edges[i].callee);
        if (f == SIZE_MAX || g == SIZE_MAX || !edges[i].count) continue;
        e[ne++] = (edge){ f, g, edges[i].count };
    }
    qsort(e, ne, sizeof *e, by_from);
    for (size_t i = 0, p = 0; p <= np; p++) {
        while (i < ne && e[i].from < p) i++;
        first[p] = i;
    }
    first[np + 1] = ne;
    tarjan t = { np, ne, e, first, mem, mem + (np + 1), mem + 2 * (np + 1), mem + 3 * (np + 1), 0, 0, 0, on_stack };
    size_t *work = mem + 4 * (np + 1), *edge_at = mem + 5 * (np + 1), *size = mem + 6 * (np + 1);
    for (size_t v = 0; v < np; v++)
        if (!t.index[v]) strongconnect(&t, v, work, edge_at);
    /* calls into each component from outside it (gprof: a cycle is entered as a whole, and the
     * calls within it do not divide the time it passes up) */
    for (size_t k = 0; k < ne; k++)
        if (t.comp[e[k].from] != t.comp[e[k].to]) in_calls[t.comp[e[k].to]] += e[k].count;
    /* own times per component, then components in Tarjan's order (callees before callers) */
    for (size_t v = 0; v < np; v++) {
        ce[2 * t.comp[v]] += r->mobjects[proc[v]].estimated_s;
        ce[2 * t.comp[v] + 1] += r->mobjects[proc[v]].measured_s;
        size[t.comp[v]]++;
    }
    for (size_t c = 0; c < t.ncomp; c++) /* c's callees are in components < c: complete */
        for (size_t v = 0; v < np; v++) {
            if (t.comp[v] != c) continue;
            for (size_t k = first[v]; k < first[v + 1]; k++) {
                size_t g = e[k].to;
                if (t.comp[g] == c || !in_calls[t.comp[g]]) continue;
                double share = (double)e[k].count / (double)in_calls[t.comp[g]];
                ce[2 * c] += share * ce[2 * t.comp[g]];
                ce[2 * c + 1] += share * ce[2 * t.comp[g] + 1];
            }
        }
    int *verdict = estimability(&t, e, first, in_calls, ce, np);
    for (size_t v = 0; v < np; v++) {
        ms_mobject *m = &r->mobjects[proc[v]];
        int est = verdict ? verdict[t.comp[v]] : EST_YES;
        if (est != EST_YES && m->nwarnings < MS_MOBJ_MAX_WARNINGS)
            m->warnings[m->nwarnings++] = est == EST_HEURISTIC ? MS_MOBJ_WARN_HEURISTIC : MS_MOBJ_WARN_SHARED;
        m->has_inclusive = 1;
        m->inclusive_estimated_s = ce[2 * t.comp[v]];
        m->inclusive_measured_s = ce[2 * t.comp[v] + 1];
        int self_call = 0;
        for (size_t k = first[v]; k < first[v + 1]; k++) self_call |= e[k].to == v;
        if ((size[t.comp[v]] > 1 || self_call) && m->nwarnings < MS_MOBJ_MAX_WARNINGS)
            m->warnings[m->nwarnings++] = MS_MOBJ_WARN_RECURSIVE;
    }
    free(verdict);
    rc = 0;
out:
    free(proc);
    free(first);
    free(e);
    free(mem);
    free(on_stack);
    free(ce);
    free(in_calls);
    return rc;
}
