/* gprof's inclusive rule over a call graph (see callgraph.h). */
#define _GNU_SOURCE /* qsort_r */
#include "callgraph.h"
#include <stdlib.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;

typedef struct {
    const ms_callgraph *g;
    size_t *index, *low, *stack, nstack, next_index;
    int *on_stack;
} tarjan;

/* Tarjan's algorithm from v, iteratively: g->comp[] receives component numbers in reverse
 * topological order (callees first). */
static void strongconnect(tarjan *t, ms_callgraph *g, size_t v, size_t *work, size_t *edge_at)
{
    size_t depth = 0;
    work[depth] = v;
    edge_at[v] = g->first[v];
    t->index[v] = t->low[v] = ++t->next_index;
    t->stack[t->nstack++] = v;
    t->on_stack[v] = 1;
    while (1) {
        size_t u = work[depth];
        if (edge_at[u] < g->first[u + 1]) {
            size_t w = g->edges[edge_at[u]++].to;
            if (!t->index[w]) {
                work[++depth] = w;
                edge_at[w] = g->first[w];
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
                g->comp[w] = g->ncomp;
            } while (w != u);
            g->ncomp++;
        }
        if (depth == 0) return;
        size_t parent = work[--depth];
        if (t->low[u] < t->low[parent]) t->low[parent] = t->low[u];
    }
}

static int by_from(const void *a, const void *b)
{
    const ms_cg_edge *x = a, *y = b;
    if (x->from != y->from) return x->from < y->from ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

void ms_callgraph_free(ms_callgraph *g)
{
    free(g->edges);
    free(g->first);
    free(g->comp);
    free(g->in_calls);
    memset(g, 0, sizeof *g);
}

int ms_callgraph_build(ms_callgraph *g, size_t nnodes, const ms_cg_edge *edges, size_t nedges)
{
    memset(g, 0, sizeof *g);
    g->nnodes = nnodes;
    g->nedges = nedges;
    g->edges = malloc((nedges ? nedges : 1) * sizeof *g->edges);
    g->first = calloc(nnodes + 2, sizeof *g->first);
    g->comp = calloc(nnodes + 1, sizeof *g->comp);
    g->in_calls = calloc(nnodes + 1, sizeof *g->in_calls);
    size_t *mem = calloc(5 * (nnodes + 1), sizeof *mem);
    int *on_stack = calloc(nnodes + 1, sizeof *on_stack);
    if (!g->edges || !g->first || !g->comp || !g->in_calls || !mem || !on_stack) {
        free(mem);
        free(on_stack);
        ms_callgraph_free(g);
        return -1;
    }
    if (nedges) memcpy(g->edges, edges, nedges * sizeof *edges);
    qsort(g->edges, nedges, sizeof *g->edges, by_from);
    for (size_t i = 0, p = 0; p <= nnodes; p++) {
        while (i < nedges && g->edges[i].from < p) i++;
        g->first[p] = i;
    }
    g->first[nnodes + 1] = nedges;
    tarjan t = { g, mem, mem + (nnodes + 1), mem + 2 * (nnodes + 1), 0, 0, on_stack };
    size_t *work = mem + 3 * (nnodes + 1), *edge_at = mem + 4 * (nnodes + 1);
    for (size_t v = 0; v < nnodes; v++)
        if (!t.index[v]) strongconnect(&t, g, v, work, edge_at);
    /* gprof: a cycle is entered as a whole, and the calls within it do not divide the cost it
     * passes up */
    for (size_t k = 0; k < nedges; k++)
        if (g->comp[g->edges[k].from] != g->comp[g->edges[k].to])
            g->in_calls[g->comp[g->edges[k].to]] += g->edges[k].count;
    free(mem);
    free(on_stack);
    return 0;
}

/* Whether edge k calls from one component into another that is entered at all. */
static int passes_up(const ms_callgraph *g, size_t k)
{
    const ms_cg_edge *e = &g->edges[k];
    return g->comp[e->from] != g->comp[e->to] && g->in_calls[g->comp[e->to]] != 0;
}

void ms_callgraph_inclusive_real(const ms_callgraph *g, size_t k, const double *self, double *incl)
{
    memset(incl, 0, g->ncomp * k * sizeof *incl);
    for (size_t v = 0; v < g->nnodes; v++)
        for (size_t j = 0; j < k; j++) incl[g->comp[v] * k + j] += self[v * k + j];
    for (size_t c = 0; c < g->ncomp; c++) /* c's callees are in components < c: complete */
        for (size_t v = 0; v < g->nnodes; v++) {
            if (g->comp[v] != c) continue;
            for (size_t e = g->first[v]; e < g->first[v + 1]; e++) {
                if (!passes_up(g, e)) continue;
                size_t d = g->comp[g->edges[e].to];
                double share = (double)g->edges[e].count / (double)g->in_calls[d];
                for (size_t j = 0; j < k; j++) incl[c * k + j] += share * incl[d * k + j];
            }
        }
}

typedef struct {
    uint64_t rest; /* I x count mod in_calls */
    size_t edge;
} remainder;

static int by_rest(const void *a, const void *b)
{
    const remainder *x = a, *y = b;
    if (x->rest != y->rest) return x->rest > y->rest ? -1 : 1;
    return (x->edge > y->edge) - (x->edge < y->edge);
}

/* Divide component d's inclusive values among the calls entering it (into[0..n), edge
 * indices): floor shares, then one more to the largest remainders until they sum up. */
static void apportion(const ms_callgraph *g, size_t k, size_t d, const uint64_t *incl, const size_t *into, size_t n,
                      remainder *rem, uint64_t *edge_cost)
{
    uint64_t calls = g->in_calls[d];
    for (size_t j = 0; j < k; j++) {
        uint64_t total = incl[d * k + j], given = 0;
        for (size_t i = 0; i < n; i++) {
            u128 x = (u128)total * g->edges[into[i]].count;
            edge_cost[into[i] * k + j] = (uint64_t)(x / calls);
            given += edge_cost[into[i] * k + j];
            rem[i] = (remainder){ (uint64_t)(x % calls), into[i] };
        }
        if (given == total) continue;
        qsort(rem, n, sizeof *rem, by_rest);
        for (size_t i = 0; i < n && given < total; i++, given++) edge_cost[rem[i].edge * k + j]++;
    }
}

static int by_target_comp(const void *a, const void *b, void *gp)
{
    const ms_callgraph *g = gp;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    size_t cx = g->comp[g->edges[x].to], cy = g->comp[g->edges[y].to];
    if (cx != cy) return cx < cy ? -1 : 1;
    return (x > y) - (x < y);
}

int ms_callgraph_inclusive(const ms_callgraph *g, size_t k, const uint64_t *self, uint64_t *incl, uint64_t *edge_cost)
{
    size_t *into = malloc((g->nedges ? g->nedges : 1) * sizeof *into);
    size_t *nodes = malloc((g->nnodes ? g->nnodes : 1) * sizeof *nodes);
    size_t *start = calloc(g->ncomp + 1, sizeof *start), *fill = calloc(g->ncomp + 1, sizeof *fill);
    remainder *rem = malloc((g->nedges ? g->nedges : 1) * sizeof *rem);
    int rc = into && nodes && start && fill && rem ? 0 : -1;
    if (rc < 0) goto out;
    size_t ninto = 0;
    for (size_t e = 0; e < g->nedges; e++)
        if (passes_up(g, e)) into[ninto++] = e;
    qsort_r(into, ninto, sizeof *into, by_target_comp, (void *)g);
    /* nodes by component: a counting sort */
    for (size_t v = 0; v < g->nnodes; v++) start[g->comp[v] + 1]++;
    for (size_t c = 0; c < g->ncomp; c++) start[c + 1] += start[c];
    for (size_t v = 0; v < g->nnodes; v++) nodes[start[g->comp[v]] + fill[g->comp[v]]++] = v;
    memset(incl, 0, g->ncomp * k * sizeof *incl);
    memset(edge_cost, 0, g->nedges * k * sizeof *edge_cost);
    size_t at = 0; /* into[at..]: the calls into the components not yet finished */
    for (size_t c = 0; c < g->ncomp; c++) {
        for (size_t i = start[c]; i < start[c + 1]; i++) {
            size_t v = nodes[i];
            for (size_t j = 0; j < k; j++) incl[c * k + j] += self[v * k + j];
            for (size_t e = g->first[v]; e < g->first[v + 1]; e++)
                if (passes_up(g, e))
                    for (size_t j = 0; j < k; j++) incl[c * k + j] += edge_cost[e * k + j];
        }
        size_t n = 0;
        while (at + n < ninto && g->comp[g->edges[into[at + n]].to] == c) n++;
        if (n) apportion(g, k, c, incl, into + at, n, rem, edge_cost);
        at += n;
    }
out:
    free(start);
    free(fill);
    free(into);
    free(nodes);
    free(rem);
    return rc;
}
