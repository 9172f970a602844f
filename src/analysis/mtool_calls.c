/* Inclusive procedure times for MTOOL (see mtool_calls.h), by the shared gprof rule
 * (model/callgraph.h): recursion collapsed into one node, a callee's inclusive time going to
 * its callers in proportion to the calls each made to it. */
#include "mtool_calls.h"
#include <stdlib.h>
#include <string.h>
#include "../model/callgraph.h"

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
static int *estimability(const ms_callgraph *t, const double *ce)
{
    const ms_cg_edge *e = t->edges;
    const size_t *first = t->first;
    const uint64_t *in_calls = t->in_calls;
    size_t np = t->nnodes, nc = t->ncomp, words = (nc + 63) / 64;
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
    size_t *proc = calloc(np + 1, sizeof *proc), *size = calloc(np + 1, sizeof *size);
    ms_cg_edge *e = calloc(nedges + 1, sizeof *e);
    double *self = calloc(2 * (np + 1), sizeof *self); /* per procedure: estimated, measured */
    double *ce = calloc(2 * (np + 1), sizeof *ce);     /* per component: inclusive estimated, measured */
    ms_callgraph t = { 0 };
    int rc = -1;
    if (!proc || !size || !e || !self || !ce) goto out;
    np = 0;
    for (size_t i = 0; i < r->nmobjects; i++)
        if (r->mobjects[i].kind == MS_MOBJ_PROCEDURE) proc[np++] = i;
    size_t ne = 0;
    for (size_t i = 0; i < nedges; i++) {
        size_t f = procedure(r, proc, np, edges[i].caller), g = procedure(r, proc, np, edges[i].callee);
        if (f == SIZE_MAX || g == SIZE_MAX || !edges[i].count) continue;
        e[ne] = (ms_cg_edge){ f, g, edges[i].count, ne };
        ne++;
    }
    if (ms_callgraph_build(&t, np, e, ne) < 0) goto out;
    for (size_t v = 0; v < np; v++) {
        self[2 * v] = r->mobjects[proc[v]].estimated_s;
        self[2 * v + 1] = r->mobjects[proc[v]].measured_s;
        size[t.comp[v]]++;
    }
    ms_callgraph_inclusive_real(&t, 2, self, ce);
    int *verdict = estimability(&t, ce);
    for (size_t v = 0; v < np; v++) {
        ms_mobject *m = &r->mobjects[proc[v]];
        int est = verdict ? verdict[t.comp[v]] : EST_YES;
        if (est != EST_YES && m->nwarnings < MS_MOBJ_MAX_WARNINGS)
            m->warnings[m->nwarnings++] = est == EST_HEURISTIC ? MS_MOBJ_WARN_HEURISTIC : MS_MOBJ_WARN_SHARED;
        m->has_inclusive = 1;
        m->inclusive_estimated_s = ce[2 * t.comp[v]];
        m->inclusive_measured_s = ce[2 * t.comp[v] + 1];
        int self_call = 0;
        for (size_t k = t.first[v]; k < t.first[v + 1]; k++) self_call |= t.edges[k].to == v;
        if ((size[t.comp[v]] > 1 || self_call) && m->nwarnings < MS_MOBJ_MAX_WARNINGS)
            m->warnings[m->nwarnings++] = MS_MOBJ_WARN_RECURSIVE;
    }
    free(verdict);
    rc = 0;
out:
    ms_callgraph_free(&t);
    free(proc);
    free(size);
    free(e);
    free(self);
    free(ce);
    return rc;
}
