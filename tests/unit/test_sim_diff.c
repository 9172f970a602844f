/* Differential test: the simulator against a frozen copy of itself from before the speed work
 * of issue 10 (tests/unit/oracle, README.md there). Random and strided streams with
 * straddling references, byte ranges, new contexts, locked writes, region boundaries and
 * window on or off go through both on many hierarchies: 1-3 levels, LRU/PLRU/random,
 * direct-mapped to fully associative, lower levels with larger lines, and MESI/MSI
 * multiprocessors of 2-4 processors with private and shared levels, line and page-sized
 * coherence units and two nodes; the coherent ones also on "hot" streams (processors mostly
 * in their own lines, a quarter of the references to a few lines all of them share). Every access's served level, every counter of every
 * (context, processor), every replacement pair and every invalidation pair must be equal. The
 * coherent hierarchies' hot streams also go through the partitioned simulator's own loop
 * (one partition: its quiet hits are settled there, psim.c) against the oracle. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/oracle.h"
#include "sim/psim.h"
#include "sim_testutil.h"

#define MAX_ROWS 4096

typedef struct {
    uint32_t k[4];
    uint64_t count;
} row;

typedef struct {
    row rows[MAX_ROWS];
    int n;
} rows;

static void add_eviction(const ms_eviction *e, void *ud)
{
    rows *r = ud;
    if (r->n < MAX_ROWS) r->rows[r->n++] = (row){ { e->victim_ctx, e->evictor_ctx, e->level, 0 }, e->count };
}

static void add_invalidation(const ms_invalidation *e, void *ud)
{
    rows *r = ud;
    if (r->n < MAX_ROWS)
        r->rows[r->n++] = (row){ { e->victim_ctx, e->victim_cpu, e->inval_ctx, e->inval_cpu }, e->count };
}

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* One stream's shape: the footprint in 64-byte lines and what the references look like. */
typedef struct {
    unsigned footprint;
    int strided; /* 4 interleaved 8-byte walks (jumping now and then) instead of random lines */
    int odd;     /* straddling references, ranges, locked writes, region boundaries, counts */
    int hot;     /* each processor mostly in its own part (read and write hits on lines it holds
                  * alone: the coherent fast path), a quarter of the references to 8 hot lines
                  * all processors read and write (true and false sharing, upgrades, downgrades) */
} shape;

static int compare_rows(const char *what, const char *name, const rows *a, const rows *b)
{
    if (a->n != b->n) {
        fprintf(stderr, "%s: %d %s pairs, the oracle has %d\n", name, a->n, what, b->n);
        return 1;
    }
    for (int i = 0; i < a->n; i++)
        if (memcmp(&a->rows[i], &b->rows[i], sizeof a->rows[i]) != 0) {
            fprintf(stderr, "%s: %s pair %d differs: (%u %u %u %u) x%llu, oracle (%u %u %u %u) x%llu\n", name, what, i,
                    a->rows[i].k[0], a->rows[i].k[1], a->rows[i].k[2], a->rows[i].k[3],
                    (unsigned long long)a->rows[i].count, b->rows[i].k[0], b->rows[i].k[1], b->rows[i].k[2],
                    b->rows[i].k[3], (unsigned long long)b->rows[i].count);
            return 1;
        }
    return 0;
}

/* 1 (and a message) if the counters c1 (n1 rows) differ from the oracle's in any row. */
static int compare_counters(const char *name, unsigned nprocs, const ms_counters *c1, uint32_t n1, oracle_sim *ora)
{
    uint32_t n2 = 0;
    const ms_counters *c2 = oracle_ms_sim_counters(ora, &n2);
    CHECK_EQ_INT(n1, n2);
    for (uint32_t i = 0; i < n1 && i < n2; i++) {
        ms_counters live = c1[i];
#define MS_SPATIAL_COUNTER(member) live.member = 0; /* the oracle predates them */
#include "sim/counters.def"
        if (memcmp(&live, &c2[i], sizeof live) != 0) {
            fprintf(stderr, "%s: counters of row %u (ctx %u, cpu %u) differ from the oracle\n", name, i, i / nprocs,
                    i % nprocs);
            return 1;
        }
    }
    return n1 != n2;
}

/* Run n references of one stream through both simulators built from config text; window
 * says whether the hit window stays on (where it applies). */
static void run_case(const char *text, shape sh, int n, uint64_t seed, int window)
{
    char name[300];
    snprintf(name, sizeof name, "%s [%s%s, %u lines, window %s]", text,
             sh.hot       ? "hot"
             : sh.strided ? "strided"
                          : "random",
             sh.odd ? " + odd" : "", sh.footprint, window ? "on" : "off");
    ms_hier_config cfg;
    char err[200];
    if (ms_config_parse_full(text, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bad test config '%s': %s\n", text, err);
        exit(1);
    }
    ms_allocator a = test_allocator(&default_heap);
    ms_sim *sim = NULL;
    oracle_sim *ora = NULL;
    CHECK(ms_sim_create(&sim, &cfg, &a) == 0);
    CHECK(oracle_ms_sim_create(&ora, &cfg, &a) == 0);
    if (!sim || !ora) exit(1);
    ms_sim_set_window(sim, window);
    oracle_ms_sim_set_window(ora, window);
    unsigned nprocs = ms_sim_nprocs(sim);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1, walk[4];
    uint64_t bytes = (uint64_t)sh.footprint * 64;
    for (int k = 0; k < 4; k++) walk[k] = (uint64_t)k * (bytes / 4);
    int served_differs = 0;
    for (int i = 0; i < n && !served_differs; i++) {
        uint64_t r = next_rand(&x);
        unsigned cpu = (unsigned)((r >> 50) % nprocs);
        uint32_t ctx = (uint32_t)((r >> 24) % 6) + (i > n / 2 ? (uint32_t)((r >> 40) & 7) : 0);
        unsigned flags = (r >> 20) % 3 == 0 ? MS_ACC_WRITE : 0;
        uint64_t addr;
        uint32_t size = 8;
        if (sh.hot) {
            uint64_t part = sh.footprint / nprocs;
            if ((r >> 6) % 4 == 0) { /* a hot line: 8-byte words, several processors per line */
                addr = ((r >> 9) % 8) * 64 + ((r >> 12) % 8) * 8;
            } else {
                uint64_t off = (r >> 9) % part;
                if ((r >> 30) % 4) off %= part / 8 + 1; /* mostly a small, L1-resident share */
                addr = (8 + cpu * part + off) * 64 + ((r >> 13) & 7) * 8;
            }
        } else if (sh.strided) {
            int k = (int)((r >> 3) % 4);
            if ((r >> 40) % 97 == 0) walk[k] = ((r >> 8) % sh.footprint) * 64;
            addr = walk[k];
            walk[k] = (walk[k] + 8) % bytes;
            cpu = (unsigned)k % nprocs; /* each processor mostly walks its own part */
            if ((r >> 44) % 8 == 0) cpu = (unsigned)((r >> 50) % nprocs);
        } else {
            unsigned pick = (unsigned)(r >> 32);
            uint64_t line = (pick & 3) ? (pick >> 2) % (sh.footprint / 4 + 1) : (pick >> 2) % sh.footprint;
            addr = line * 64 + ((r >> 8) & 7) * 8;
        }
        if (sh.odd) {
            unsigned what = (unsigned)((r >> 56) % 32);
            if (what == 0) { /* a byte range over a few lines */
                uint64_t len = 1 + (r >> 9) % 300;
                ms_sim_access_range(sim, cpu, addr + ((r >> 5) & 63), len, flags, ctx);
                oracle_ms_sim_access_range(ora, cpu, addr + ((r >> 5) & 63), len, flags, ctx);
                continue;
            }
            if (what == 1) { /* references already counted by a window in front */
                if (nprocs == 1) { CHECK(ms_sim_count(sim, ctx, 3, 1) == oracle_ms_sim_count(ora, ctx, 3, 1)); }
                continue;
            }
            if (what == 2) {
                ms_sim_next_region(sim);
                oracle_ms_sim_next_region(ora);
            }
            if (what < 8) { /* straddling: ends in the next line */
                addr = (addr | 63) - ((r >> 4) & 7);
                size = 4 + (uint32_t)((r >> 12) % 29);
            } else if (what < 10) {
                size = 1 + (uint32_t)((r >> 12) % 64);
                addr &= ~(uint64_t)63;
            }
            if (what >= 30 && flags) flags |= MS_ACC_LOCKED;
        }
        int s1 = ms_sim_access(sim, cpu, addr, size, flags, ctx);
        int s2 = oracle_ms_sim_access(ora, cpu, addr, size, flags, ctx);
        if (s1 != s2) {
            fprintf(stderr,
                    "%s: reference %d (cpu %u, addr %#llx, size %u, flags %u, ctx %u) served by %d, oracle %d\n", name,
                    i, cpu, (unsigned long long)addr, size, flags, ctx, s1, s2);
            served_differs = 1;
        }
    }
    CHECK_EQ_INT(served_differs, 0);
    ms_sim_finish(sim);
    oracle_ms_sim_finish(ora);

    uint32_t n1 = 0;
    const ms_counters *c1 = ms_sim_counters(sim, &n1);
    int bad = compare_counters(name, nprocs, c1, n1, ora);
    static rows e1, e2, v1, v2;
    e1.n = e2.n = v1.n = v2.n = 0;
    ms_sim_each_eviction(sim, add_eviction, &e1);
    oracle_ms_sim_each_eviction(ora, add_eviction, &e2);
    ms_sim_each_invalidation(sim, add_invalidation, &v1);
    oracle_ms_sim_each_invalidation(ora, add_invalidation, &v2);
    bad |= compare_rows("replacement", name, &e1, &e2);
    bad |= compare_rows("invalidation", name, &v1, &v2);
    CHECK_EQ_INT(bad, 0);

    /* The stream must exercise what it claims to: capacity misses at L1, conflict misses
     * (unless L1 is fully associative), replacement pairs, and with several processors
     * invalidations and coherence misses. */
    ms_counters tot;
    ms_sim_totals(sim, &tot);
    int fully_associative = cfg.level[0].ways == cfg.level[0].size / cfg.level[0].line;
    uint64_t conflicts = 0;
    for (int k = 0; k < cfg.nlevels; k++) conflicts += tot.level[k].cause[MS_CAUSE_CONFLICT];
    int exercised = tot.level[0].cause[MS_CAUSE_CAPACITY] > 0 && e1.n > 0 && (fully_associative || conflicts > 0) &&
                    (nprocs == 1 || (v1.n > 0 && tot.level[0].cause[MS_CAUSE_INVAL] > 0));
    if (!exercised)
        fprintf(
            stderr,
            "%s: the stream does not exercise every cause (capacity %llu, conflict %llu, inval %llu, pairs %d, %d)\n",
            name, (unsigned long long)tot.level[0].cause[MS_CAUSE_CAPACITY],
            (unsigned long long)tot.level[0].cause[MS_CAUSE_CONFLICT],
            (unsigned long long)tot.level[0].cause[MS_CAUSE_INVAL], e1.n, v1.n);
    CHECK(exercised);
    ms_sim_destroy(sim);
    oracle_ms_sim_destroy(ora);
}

/* The partitioned simulator's queue, run as it fills (one worker, every partition). */
static ms_psim_batch *apply_batch(void *ud, ms_psim_batch *full)
{
    ms_psim *ps = *(ms_psim **)ud;
    ms_psim_apply(ps, full, ms_psim_worker_parts(ps, 0, 1));
    return full;
}

/* The partitioned simulator with one partition, whose loop settles a coherent hierarchy's
 * quiet hits itself (psim.c, apply_quiet64), against the oracle: n references of a hot
 * stream (as run_case's) of contexts 1-8, interleaved one processor after another at random,
 * with lines straddled, locked writes and region boundaries. */
static void run_psim_case(const char *text, int n, uint64_t seed)
{
    char name[300];
    snprintf(name, sizeof name, "%s [psim, hot, %d references]", text, n);
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_parse_full(text, &cfg, NULL, 0), 0);
    ms_allocator a = test_allocator(&default_heap);
    ms_psim *ps = NULL;
    oracle_sim *ora = NULL;
    CHECK(ms_psim_create(&ps, &cfg, &a, 1, apply_batch, &ps) == 0);
    CHECK(oracle_ms_sim_create(&ora, &cfg, &a) == 0);
    if (!ps || !ora) exit(1);
    unsigned nprocs = ms_psim_nprocs(ps);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1, part = 2400 / nprocs;
    for (int i = 0; i < n; i++) {
        uint64_t r = next_rand(&x);
        unsigned cpu = (unsigned)((r >> 50) % nprocs);
        uint32_t ctx = 1 + (uint32_t)((r >> 24) % 8);
        unsigned flags = (r >> 20) % 3 == 0 ? MS_ACC_WRITE : 0;
        uint64_t addr;
        uint32_t size = 8;
        if ((r >> 6) % 4 == 0) { /* a hot line all processors read and write */
            addr = ((r >> 9) % 8) * 64 + ((r >> 12) % 8) * 8;
        } else {
            uint64_t off = (r >> 9) % part;
            if ((r >> 30) % 4) off %= part / 8 + 1;
            addr = (8 + cpu * part + off) * 64 + ((r >> 13) & 7) * 8;
        }
        unsigned what = (unsigned)((r >> 56) % 64);
        if (what == 0) {
            ms_psim_next_region(ps);
            oracle_ms_sim_next_region(ora);
        } else if (what < 3) { /* ends in the next line */
            addr |= 60;
        } else if (what < 5 && flags) {
            flags |= MS_ACC_LOCKED;
        }
        CHECK_EQ_INT(ms_psim_access(ps, cpu, addr, size, flags, ctx), 0);
        oracle_ms_sim_access(ora, cpu, addr, size, flags, ctx);
    }
    ms_psim_flush(ps);
    uint32_t n1 = 0;
    const ms_counters *c1 = ms_psim_counters(ps, &n1);
    oracle_ms_sim_finish(ora);
    CHECK(c1 != NULL);
    int bad = c1 ? compare_counters(name, nprocs, c1, n1, ora) : 1;
    static rows e1, e2, v1, v2;
    e1.n = e2.n = v1.n = v2.n = 0;
    CHECK_EQ_INT(ms_psim_each_eviction(ps, add_eviction, &e1), 0);
    oracle_ms_sim_each_eviction(ora, add_eviction, &e2);
    CHECK_EQ_INT(ms_psim_each_invalidation(ps, add_invalidation, &v1), 0);
    oracle_ms_sim_each_invalidation(ora, add_invalidation, &v2);
    bad |= compare_rows("replacement", name, &e1, &e2);
    bad |= compare_rows("invalidation", name, &v1, &v2);
    CHECK_EQ_INT(bad, 0);
    CHECK(v1.n > 0); /* invalidations happened */
    ms_psim_destroy(ps);
    oracle_ms_sim_destroy(ora);
}

int main(void)
{
    static const char *const configs[] = {
        "L1=1K:1:64:0;mem=50", /* direct mapped */
        "L1=2K:4:64:4,L2=8K:8:64:14;mem=200",
        "L1=2K:8:64:4,L2=16K:16:64:14;mem=200",                 /* x86-l2's ways */
        "L1=4K:8:64:4,L2=16K:16:64:14,L3=64K:16:64:50;mem=200", /* x86's ways */
        "L1=2K:2:64:3,L2=8K:4:64:12,L3=16K:1:64:30;mem=100",    /* direct-mapped L3 */
        "L1=2K:8:64:4:plru,L2=16K:16:64:14:plru,L3=64K:16:64:40:plru;mem=200",
        "L1=2K:4:64:4:random,L2=8K:8:128:14:random;mem=200",               /* larger L2 lines */
        "L1=2K:4:64:4,L2=8K:4:128:14:plru,L3=32K:8:256:40:random;mem=300", /* mixed */
        "L1=4K:32:64:3,L2=32K:16:64:10;mem=100",                           /* > 16 ways */
        "L1=1K:16:64:2,L2=4K:64:64:10;mem=100",                            /* fully associative */
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=2;shared=2",
        /* x86's default for threads on 3 processors, scaled down: a 48-way shared L3 */
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=96K:48:64:40;mem=200;procs=3;shared=2",
        "L1=2K:4:64:4,L2=8K:8:64:14;mem=200;procs=4",
        "L1=2K:4:64:4:plru,L2=16K:8:128:14;mem=200;procs=3;shared=1;unit=256;proto=msi",
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=4;shared=2;unit=4096;nodes=2;remote=400",
    };
    int nconfigs = (int)(sizeof configs / sizeof configs[0]);
    for (int i = 0; i < nconfigs; i++) {
        shape random_lines = { 1500, 0, 0, 0 }, random_odd = { 3000, 0, 1, 0 };
        shape strided = { 2500, 1, 0, 0 }, strided_odd = { 1200, 1, 1, 0 };
        run_case(configs[i], random_lines, 60000, (uint64_t)i * 4 + 1, 1);
        run_case(configs[i], random_odd, 60000, (uint64_t)i * 4 + 2, 1);
        run_case(configs[i], strided, 80000, (uint64_t)i * 4 + 3, 1);
        run_case(configs[i], strided_odd, 80000, (uint64_t)i * 4 + 4, i % 2);
    }
    /* The coherent paths (coherence.c: the fast path of quiet L1 hits, its 64-byte instance,
     * the general path): MESI and MSI, private L1/L2 and a shared L3 (the threaded x86
     * default), every level private, line and page coherence units, L1 lines of 32 bytes. */
    static const char *const coherent[] = {
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=4;shared=2",
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=4;shared=2;proto=msi",
        "L1=2K:8:64:4,L2=16K:16:64:14;mem=200;procs=3",
        "L1=2K:4:64:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=4;shared=2;unit=4096;proto=msi",
        "L1=1K:4:32:4,L2=8K:8:64:14,L3=32K:16:64:40;mem=200;procs=2;shared=2",
        "L1=2K:4:64:4:plru,L2=8K:8:128:14,L3=32K:16:128:40;mem=200;procs=4;shared=2;unit=128;nodes=2",
    };
    int ncoherent = (int)(sizeof coherent / sizeof coherent[0]);
    for (int i = 0; i < ncoherent; i++) {
        shape hot = { 2400, 0, 0, 1 }, hot_odd = { 2400, 0, 1, 1 };
        run_case(coherent[i], hot, 80000, (uint64_t)i * 2 + 101, 1);
        run_case(coherent[i], hot_odd, 80000, (uint64_t)i * 2 + 102, 1);
        run_case(coherent[i], (shape){ 1500, 0, 0, 0 }, 60000, (uint64_t)i * 2 + 103, 1);
        run_case(coherent[i], (shape){ 2500, 1, 1, 0 }, 80000, (uint64_t)i * 2 + 104, 1);
        run_psim_case(coherent[i], 80000, (uint64_t)i + 201);
    }
    return check_result();
}
