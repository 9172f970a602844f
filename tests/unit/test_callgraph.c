/* gprof's inclusive rule (model/callgraph.c): components, exact integer shares by largest
 * remainders, recursion collapsed, and the same rule in reals (MTOOL's). */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "model/callgraph.h"

enum { MAIN, A, B, REC, P, Q, NODES };

/* The cost of the edge whose id is id, event j. */
static uint64_t cost(const ms_callgraph *g, const uint64_t *edge_cost, size_t k, size_t id, size_t j)
{
    for (size_t e = 0; e < g->nedges; e++)
        if (g->edges[e].id == id) return edge_cost[e * k + j];
    return UINT64_MAX;
}

/* main -> a (10 calls) -> b (20), main -> b (10), main -> rec (10) -> rec (200), main -> p (5),
 * main -> q (5), p <-> q (3 each way). Two events per node. */
static const ms_cg_edge edges[] = {
    { MAIN, A, 10, 0 }, { A, B, 20, 1 },   { MAIN, B, 10, 2 }, { MAIN, REC, 10, 3 }, { REC, REC, 200, 4 },
    { MAIN, P, 5, 5 },  { MAIN, Q, 5, 6 }, { P, Q, 3, 7 },     { Q, P, 3, 8 },
};
#define NEDGES (sizeof edges / sizeof edges[0])
static const uint64_t self[NODES * 2] = { 4, 1, 10, 3, 7, 5, 3, 2, 1, 0, 2, 1 };

static void test_components(void)
{
    ms_callgraph g;
    CHECK_EQ(ms_callgraph_build(&g, NODES, edges, NEDGES), 0);
    CHECK_EQ(g.ncomp, 5); /* main, a, b, rec, {p, q} */
    CHECK(g.comp[P] == g.comp[Q]);
    CHECK(g.comp[B] < g.comp[A] && g.comp[A] < g.comp[MAIN] && g.comp[REC] < g.comp[MAIN]);
    CHECK_EQ(g.in_calls[g.comp[B]], 30);
    CHECK_EQ(g.in_calls[g.comp[REC]], 10); /* its calls of itself do not count */
    CHECK_EQ(g.in_calls[g.comp[P]], 10);   /* nor p's and q's of each other */
    CHECK_EQ(g.in_calls[g.comp[MAIN]], 0);
    ms_callgraph_free(&g);
}

static void test_exact_shares(void)
{
    ms_callgraph g;
    uint64_t incl[NODES * 2], edge_cost[NEDGES * 2];
    CHECK_EQ(ms_callgraph_build(&g, NODES, edges, NEDGES), 0);
    CHECK_EQ(ms_callgraph_inclusive(&g, 2, self, incl, edge_cost), 0);
    /* b's 7 over 20 + 10 calls: 4.67 and 2.33, the larger remainder (a's) gets the 1 left */
    CHECK_EQ(cost(&g, edge_cost, 2, 1, 0), 5);
    CHECK_EQ(cost(&g, edge_cost, 2, 2, 0), 2);
    /* b's 5: 3.33 and 1.67, main's remainder is larger */
    CHECK_EQ(cost(&g, edge_cost, 2, 1, 1), 3);
    CHECK_EQ(cost(&g, edge_cost, 2, 2, 1), 2);
    CHECK_EQ(incl[g.comp[A] * 2], 15);
    CHECK_EQ(incl[g.comp[A] * 2 + 1], 6);
    CHECK_EQ(cost(&g, edge_cost, 2, 0, 0), 15);
    /* recursion: rec's own, its calls of itself cost nothing */
    CHECK_EQ(cost(&g, edge_cost, 2, 3, 0), 3);
    CHECK_EQ(cost(&g, edge_cost, 2, 4, 0), 0);
    CHECK_EQ(cost(&g, edge_cost, 2, 4, 1), 0);
    /* the cycle {p, q}: its 3 and 1 shared by main's 5 + 5 calls into it, nothing inside */
    CHECK_EQ(incl[g.comp[P] * 2], 3);
    CHECK_EQ(cost(&g, edge_cost, 2, 5, 0) + cost(&g, edge_cost, 2, 6, 0), 3);
    CHECK_EQ(cost(&g, edge_cost, 2, 5, 1) + cost(&g, edge_cost, 2, 6, 1), 1);
    CHECK_EQ(cost(&g, edge_cost, 2, 7, 0) + cost(&g, edge_cost, 2, 8, 0), 0);
    /* main: everything, exactly */
    CHECK_EQ(incl[g.comp[MAIN] * 2], 4 + 10 + 7 + 3 + 1 + 2);
    CHECK_EQ(incl[g.comp[MAIN] * 2 + 1], 1 + 3 + 5 + 2 + 0 + 1);
    ms_callgraph_free(&g);
}

static void test_real_shares(void)
{
    ms_callgraph g;
    double s[NODES], incl[NODES];
    for (size_t v = 0; v < NODES; v++) s[v] = (double)self[v * 2];
    CHECK_EQ(ms_callgraph_build(&g, NODES, edges, NEDGES), 0);
    ms_callgraph_inclusive_real(&g, 1, s, incl);
    CHECK(fabs(incl[g.comp[A]] - (10 + 7.0 * 20 / 30)) < 1e-12);
    CHECK(fabs(incl[g.comp[MAIN]] - 27) < 1e-12);
    CHECK(fabs(incl[g.comp[REC]] - 3) < 1e-12);
    ms_callgraph_free(&g);
}

/* A chain deeper than any C stack: built iteratively, every node its own component. */
static void test_deep_chain(void)
{
    enum { DEEP = 200000 };
    ms_cg_edge *e = malloc((DEEP - 1) * sizeof *e);
    uint64_t *s = malloc(DEEP * sizeof *s), *incl = malloc(DEEP * sizeof *incl), *c = malloc(DEEP * sizeof *c);
    CHECK(e && s && incl && c);
    if (!e || !s || !incl || !c) return;
    for (size_t i = 0; i + 1 < DEEP; i++) e[i] = (ms_cg_edge){ i, i + 1, 1, i };
    for (size_t i = 0; i < DEEP; i++) s[i] = 1;
    ms_callgraph g;
    CHECK_EQ(ms_callgraph_build(&g, DEEP, e, DEEP - 1), 0);
    CHECK_EQ(g.ncomp, DEEP);
    CHECK_EQ(ms_callgraph_inclusive(&g, 1, s, incl, c), 0);
    CHECK_EQ(incl[g.comp[0]], DEEP);
    ms_callgraph_free(&g);
    free(e);
    free(s);
    free(incl);
    free(c);
}

int main(void)
{
    test_components();
    test_exact_shares();
    test_real_shares();
    test_deep_chain();
    return check_result();
}
