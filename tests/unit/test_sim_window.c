/* The hit window (src/sim/window.c) changes no result: the same streams through a simulator
 * with the window and one without must give the same served level for every reference and
 * identical counters and replacement pairs, including references straddling two lines, byte
 * ranges, contexts first seen while a window is open, windows that do not pay (the filter then
 * pauses), the window switched on and off mid-stream, and a window run in front of the
 * simulator as the runtime does. It must also stay off where it would not be exact (non-LRU
 * L1, an L1 too small to hold a window, several processors). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"
#include "sim_testutil.h"

#define MAX_PAIRS 4096

typedef struct {
    ms_eviction e[MAX_PAIRS];
    int n;
} pair_list;

static void collect(const ms_eviction *e, void *ud)
{
    pair_list *p = ud;
    if (p->n < MAX_PAIRS) p->e[p->n++] = *e;
}

/* A simulator for config without the window. */
static ms_sim *unfiltered(const char *config)
{
    ms_sim *sim = sim_from_text(config);
    ms_sim_set_window(sim, 0);
    return sim;
}

/* One reference to both simulators; 1 if they served it from different levels. */
static int both(ms_sim *a, ms_sim *b, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return ms_sim_access(a, 0, addr, size, flags, ctx) != ms_sim_access(b, 0, addr, size, flags, ctx);
}

/* Same counters and pairs in both simulators, which are then destroyed. */
static void check_same_then_destroy(const char *name, ms_sim *a, ms_sim *b)
{
    uint32_t na = 0, nb = 0;
    const ms_counters *ca = ms_sim_counters(a, &na), *cb = ms_sim_counters(b, &nb);
    CHECK_EQ(na, nb);
    for (uint32_t i = 0; i < na && i < nb; i++)
        if (memcmp(&ca[i], &cb[i], sizeof ca[i]) != 0) {
            fprintf(stderr, "%s: counters of context %u differ\n", name, i);
            CHECK(0);
        }
    static pair_list pa, pb;
    pa.n = pb.n = 0;
    ms_sim_each_eviction(a, collect, &pa);
    ms_sim_each_eviction(b, collect, &pb);
    CHECK_EQ_INT(pa.n, pb.n);
    CHECK(pa.n > 0);
    if (pa.n == pb.n && memcmp(pa.e, pb.e, (size_t)pa.n * sizeof pa.e[0]) != 0) {
        fprintf(stderr, "%s: replacement pairs differ\n", name);
        CHECK(0);
    }
    ms_sim_destroy(a);
    ms_sim_destroy(b);
}

static uint64_t next(uint64_t *x)
{
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Strided walks with straddling references, byte ranges and new contexts over time. */
static void mixed_stream(const char *config, unsigned footprint, int n)
{
    ms_sim *with = sim_from_text(config), *without = unfiltered(config);
    CHECK_EQ_INT(with->win.on, 1);
    CHECK_EQ_INT(without->win.on, 0);
    uint64_t x = 88172645463325252ull, walk[3] = { 0, 4096, 9000 };
    int bad_served = 0;
    for (int i = 0; i < n; i++) {
        uint64_t r = next(&x);
        int k = (int)(r % 3);
        unsigned flags = (r >> 8) % 4 == 0 ? MS_ACC_WRITE : 0;
        uint32_t ctx = (uint32_t)((r >> 16) % 4 + (uint64_t)i / (n / 8)); /* new ones keep coming */
        if ((r >> 24) % 500 == 0) {                                       /* memcpy-like range */
            uint64_t at = (r >> 32) % ((uint64_t)footprint * 64);
            ms_sim_access_range(with, 0, at, 200, flags, ctx);
            ms_sim_access_range(without, 0, at, 200, flags, ctx);
            continue;
        }
        uint64_t addr = walk[k];
        uint32_t size = 8;
        if ((r >> 24) % 61 == 0) /* straddles two lines */
            addr = (addr | 63) - 3;
        if ((r >> 40) % 131 == 0)
            walk[k] = ((r >> 12) % footprint) * 64;
        else
            walk[k] = (walk[k] + 8) % ((uint64_t)footprint * 64);
        bad_served += both(with, without, addr, size, flags, ctx);
    }
    CHECK_EQ_INT(bad_served, 0);
    CHECK(with->win.filtered_total > (uint64_t)n / 8); /* direct-mapped: a sixth */
    check_same_then_destroy(config, with, without);
}

/* The window run in front of a simulator whose own window is off, as the runtime does
 * (src/rt/events.c): counted references go in as per-context counts at the end of each chunk
 * of 4096, closing operations in order before the reference that closed the window, and
 * straddling references after closing it. Same results as no window at all. */
static void in_front(const char *config, int n)
{
    ms_sim *front = unfiltered(config), *without = unfiltered(config);
    ms_hier_config cfg;
    char err[200];
    CHECK_EQ_INT(ms_config_parse_full(config, &cfg, err, sizeof err), 0);
    ms_mem mem = { test_allocator(&default_heap), 0 };
    ms_window w;
    CHECK_EQ_INT(ms_window_init(&w, &cfg, &mem), 0);
    CHECK_EQ_INT(w.on, 1);
    static uint64_t reads[64], writes[64];
    uint64_t x = 4242, walk[3] = { 0, 8192, 20000 };
    for (int i = 0; i < n; i++) {
        uint64_t r = next(&x);
        int k = (int)(r % 3);
        unsigned flags = (r >> 8) % 4 == 0 ? MS_ACC_WRITE : 0;
        uint32_t ctx = (uint32_t)((r >> 16) % 8 + (uint64_t)i / (n / 4)) + 1;
        uint64_t addr = walk[k];
        if ((r >> 24) % 61 == 0) addr = (addr | 63) - 3; /* straddles two lines */
        walk[k] = (r >> 40) % 131 == 0 ? ((r >> 12) % 2000) * 64 : (walk[k] + 8) % (2000 * 64);
        ms_sim_access(without, 0, addr, 8, flags, ctx);
        if ((addr >> 6) != ((addr + 7) >> 6)) {
            ms_sim_window_ops(front, w.ops, ms_window_close(&w));
            ms_sim_access(front, 0, addr, 8, flags, ctx);
        } else {
            int got = ms_window_ref(&w, addr >> 6, flags & MS_ACC_WRITE, ms_used_bits(front, addr >> 6, addr, 8));
            if (got < 0) {
                (flags ? writes : reads)[ctx]++;
            } else {
                ms_sim_window_ops(front, w.ops, (uint32_t)got);
                ms_sim_access(front, 0, addr, 8, flags, ctx);
            }
        }
        if (i % 4096 == 4095 || i == n - 1) /* the end of a chunk: the counts */
            for (uint32_t c = 0; c < 64; c++) {
                if (reads[c] || writes[c]) CHECK_EQ_INT(ms_sim_count(front, c, reads[c], writes[c]), 0);
                reads[c] = writes[c] = 0;
            }
    }
    CHECK(w.filtered_total > (uint64_t)n / 4);
    check_same_then_destroy("window in front", front, without);
    ms_window_free(&w, &mem);
}

/* Mostly new lines: windows do not pay, the filter pauses; results are unchanged. */
static void no_reuse(void)
{
    const char *config = "L1=2K:4:64:1,L2=8K:8:64:10;mem=100";
    ms_sim *with = sim_from_text(config), *without = unfiltered(config);
    uint64_t x = 1234567;
    for (int i = 0; i < 200000; i++) {
        uint64_t r = next(&x);
        uint64_t addr = (i % 3 == 2) ? (r % 4096) * 64 : (uint64_t)i * 64; /* new lines, some reuse */
        both(with, without, addr, 8, (r >> 20) & 1 ? MS_ACC_WRITE : 0, (uint32_t)(i % 3));
    }
    CHECK(with->win.paused > 0);
    check_same_then_destroy("no reuse", with, without);
}

/* The window switched off and on mid-stream against one never on. */
static void toggled(void)
{
    const char *config = "L1=1K:2:64:1,L2=4K:4:64:10;mem=100";
    ms_sim *with = sim_from_text(config), *without = unfiltered(config);
    uint64_t x = 99, walk[2] = { 0, 2048 };
    for (int i = 0; i < 100000; i++) {
        if (i % 7000 == 0) ms_sim_set_window(with, (i / 7000) % 2 == 0);
        uint64_t r = next(&x);
        int k = (int)(r & 1);
        uint64_t addr = walk[k];
        walk[k] = (r >> 30) % 97 == 0 ? ((r >> 8) % 300) * 64 : (walk[k] + 4) % (300 * 64);
        both(with, without, addr, 4, (r >> 20) % 3 == 0 ? MS_ACC_WRITE : 0, (uint32_t)k);
    }
    CHECK(with->win.filtered_total > 0);
    check_same_then_destroy("toggled", with, without);
}

/* Off where it would not be exact; on for a multi-way LRU L1 of the usual size. */
static void where_on(void)
{
    static const struct {
        const char *config;
        int on;
    } cases[] = {
        { "L1=32K:8:64:4,L2=1M:16:64:14;mem=200", 1 },
        { "L1=32K:1:64:0;mem=50", 1 }, /* direct-mapped: LRU with one way */
        { "L1=32K:8:64:4:plru;mem=200", 0 },
        { "L1=32K:8:64:4:random;mem=200", 0 },
        { "L1=64:1:64:0;mem=50", 0 },           /* one line */
        { "L1=128:2:64:0;mem=50", 0 },          /* a window of one line would not pay */
        { "L1=32K:8:64:4;mem=200;procs=2", 0 }, /* multiprocessor: never */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_sim *sim = sim_from_text(cases[i].config);
        if (sim->win.on != cases[i].on) fprintf(stderr, "window of '%s': on = %d\n", cases[i].config, sim->win.on);
        CHECK_EQ_INT(sim->win.on, cases[i].on);
        ms_sim_set_window(sim, 1); /* asking cannot turn it on where it does not apply */
        CHECK_EQ_INT(sim->win.on, cases[i].on);
        ms_sim_destroy(sim);
    }
}

int main(void)
{
    mixed_stream("L1=4K:8:64:4,L2=16K:16:64:14,L3=64K:16:64:40;mem=200", 3000, 400000);
    mixed_stream("L1=2K:1:64:1,L2=8K:4:64:10;mem=100", 600, 300000);
    mixed_stream("L1=4K:32:64:2;mem=60", 400, 200000);
    in_front("L1=4K:8:64:4,L2=16K:16:64:14,L3=64K:16:64:40;mem=200", 300000);
    in_front("L1=2K:2:64:1,L2=8K:4:64:10;mem=100", 200000);
    no_reuse();
    toggled();
    where_on();
    return check_result();
}
