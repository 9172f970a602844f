/* Helpers shared by the simulator tests: a counting calloc-based allocator (optionally failing
 * after a budget of allocations) and a one-call simulator constructor from canonical text. */
#ifndef MEMSPY_TEST_SIM_TESTUTIL_H
#define MEMSPY_TEST_SIM_TESTUTIL_H
#include <stdlib.h>

#include "check.h"
#include "sim/sim.h"

typedef struct {
    size_t outstanding; /* bytes allocated and not yet released */
    long allocs_left;   /* < 0: unlimited */
} test_heap;

static void *test_alloc(void *ud, size_t bytes)
{
    test_heap *h = ud;
    if (h->allocs_left == 0) return NULL;
    if (h->allocs_left > 0) h->allocs_left--;
    void *p = calloc(1, bytes);
    if (p) h->outstanding += bytes;
    return p;
}

static void test_release(void *ud, void *p, size_t bytes)
{
    test_heap *h = ud;
    h->outstanding -= bytes;
    free(p);
}

static inline ms_allocator test_allocator(test_heap *h)
{
    ms_allocator a = { test_alloc, test_release, h };
    return a;
}

static test_heap default_heap = { 0, -1 };

/* A simulator for the canonical config text (e.g. "L1=1K:1:64:0;mem=50"); aborts the test on
 * a bad config since every later check would be meaningless. */
static inline ms_sim *sim_from_text(const char *text)
{
    ms_hier_config cfg;
    char err[200];
    if (ms_config_parse_full(text, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bad test config '%s': %s\n", text, err);
        exit(1);
    }
    ms_allocator a = test_allocator(&default_heap);
    ms_sim *sim = NULL;
    if (ms_sim_create(&sim, &cfg, &a) != 0) {
        fprintf(stderr, "ms_sim_create failed for '%s'\n", text);
        exit(1);
    }
    return sim;
}

static inline const ms_counters *ctx_counters(const ms_sim *sim, uint32_t ctx)
{
    uint32_t n = 0;
    const ms_counters *c = ms_sim_counters(sim, &n);
    if (ctx >= n) {
        fprintf(stderr, "context %u was never seen (%u contexts)\n", ctx, n);
        exit(1);
    }
    return &c[ctx];
}

#endif
