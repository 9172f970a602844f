/* Inclusive costs over a call graph by gprof's rule, shared by MTOOL's inclusive times
 * (analysis/mtool_calls.c) and the callgrind export's call costs (report/export_callgrind.c):
 * the graph's strongly connected components (recursion) are collapsed into one node each, and
 * a component's inclusive cost goes to its callers in proportion to the calls each made into
 * it; calls inside a component pass nothing up. Pure: no I/O. */
#ifndef MEMSPY_MODEL_CALLGRAPH_H
#define MEMSPY_MODEL_CALLGRAPH_H
#include <stddef.h>
#include <stdint.h>

/* A call edge between nodes 0..nnodes-1, with its count; id is the caller's own (its index
 * in the caller's table, say), kept with the edge and ordering edges with equal callers. */
typedef struct {
    size_t from, to;
    uint64_t count;
    size_t id;
} ms_cg_edge;

typedef struct {
    size_t nnodes, nedges;
    ms_cg_edge *edges; /* the edges, sorted by caller, then id */
    size_t *first;     /* the edges of node v: edges[first[v] .. first[v + 1]) */
    size_t *comp;      /* each node's component, numbered callees first (reverse topological) */
    size_t ncomp;
    uint64_t *in_calls; /* per component: the calls into it from other components */
} ms_callgraph;

/* Build g from the nedges edges (copied; node indices must be < nnodes). Components by
 * Tarjan's algorithm, iteratively (a deep call graph does not overflow the C stack).
 * Returns 0, or -1 when out of memory (g empty). */
int ms_callgraph_build(ms_callgraph *g, size_t nnodes, const ms_cg_edge *edges, size_t nedges);
void ms_callgraph_free(ms_callgraph *g);

/* Inclusive values in real numbers (MTOOL's times): k values per node, self[v * k + j];
 * incl[c * k + j] receives component c's own values plus, for each call into another
 * component d, count / in_calls[d] of d's inclusive values. */
void ms_callgraph_inclusive_real(const ms_callgraph *g, size_t k, const double *self, double *incl);

/* The same rule in exact integers (event counts): a component's inclusive value is divided
 * among the calls entering it from other components by largest remainders, so that the
 * shares sum to it exactly. self[v * k + j] per node; incl[c * k + j] per component;
 * edge_cost[e * k + j] per edge of g->edges (zero for calls inside a component).
 * Returns 0, or -1 when out of memory. */
int ms_callgraph_inclusive(const ms_callgraph *g, size_t k, const uint64_t *self, uint64_t *incl, uint64_t *edge_cost);

#endif
