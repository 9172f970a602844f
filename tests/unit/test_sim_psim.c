/* The set-partitioned simulator (psim.h): for P = 1..16 partitions its merged results equal
 * one simulator's in every counter and pair, except that the capacity/conflict split may move
 * (their sum is equal); on random, strided and multiprocessor streams; the references queued
 * one call each (ms_psim_access) or written into the batch (ms_psim_room, 2 and 8 workers);
 * the batches run whole or routed in slices (apply_now). */
#include <stdlib.h>

#include "sim_testutil.h"
#include "sim/psim.h"

typedef struct {
    uint8_t cpu, write, region;
    uint64_t addr;
    uint32_t size, ctx;
} ref;

/* Runs each full batch at once (the caller's queue without threads); ud points to the psim.
 * As three workers would (partitions p % 3 == i for i = 0..2, fewer with fewer partitions):
 * every other batch each one passes over the whole batch (ms_psim_apply), the others are
 * routed in five slices, last one first, and each worker runs its lists in slice order. */
static ms_psim_batch *apply_now(void *ud, ms_psim_batch *full)
{
    static unsigned batches;
    ms_psim *ps = *(ms_psim **)ud;
    if (batches++ % 2 == 0) {
        for (unsigned i = 0; i < 3; i++) ms_psim_apply(ps, full, ms_psim_worker_parts(ps, i, 3));
        return full;
    }
    enum { SLICES = 5, CAP = (MS_PSIM_BATCH + SLICES - 1) / SLICES };
    static uint16_t idx[SLICES][3 * CAP];
    static uint32_t cnt[SLICES][3];
    uint8_t worker_of[MS_PSIM_MAX_PARTS];
    for (unsigned p = 0; p < MS_PSIM_MAX_PARTS; p++) worker_of[p] = (uint8_t)(p % 3);
    for (unsigned k = SLICES; k-- > 0;) {
        uint32_t lo = k * CAP < full->n ? k * CAP : full->n, hi = lo + CAP < full->n ? lo + CAP : full->n;
        ms_psim_route(ps, full, lo, hi, worker_of, 3, idx[k], CAP, cnt[k]);
    }
    for (unsigned i = 0; i < 3; i++)
        for (unsigned k = 0; k < SLICES; k++)
            ms_psim_apply_list(ps, full, idx[k] + i * CAP, cnt[k][i], ms_psim_worker_parts(ps, i, 3));
    return full;
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef struct {
    uint32_t k[4];
    uint64_t count;
} pair;
typedef struct {
    pair v[100000];
    size_t n;
} pairs;
static pairs ref_ev, got_ev, ref_inv, got_inv;

static void put_ev(const ms_eviction *e, void *ud)
{
    pairs *p = ud;
    if (p->n < 100000) p->v[p->n++] = (pair){ { e->level, e->victim_ctx, e->evictor_ctx, 0 }, e->count };
}
static void put_inv(const ms_invalidation *e, void *ud)
{
    pairs *p = ud;
    if (p->n < 100000) p->v[p->n++] = (pair){ { e->victim_ctx, e->victim_cpu, e->inval_ctx, e->inval_cpu }, e->count };
}
static int pair_cmp(const void *a, const void *b) { return memcmp(a, b, sizeof(uint32_t[4])); }

static void same_pairs(pairs *want, pairs *got, const char *what, unsigned parts)
{
    qsort(want->v, want->n, sizeof want->v[0], pair_cmp);
    CHECK_EQ(got->n, want->n);
    for (size_t i = 0; i < want->n && i < got->n; i++)
        if (memcmp(&want->v[i], &got->v[i], sizeof want->v[i]) != 0) {
            fprintf(stderr, "%s pair %zu differs with %u partitions\n", what, i, parts);
            CHECK(0);
            break;
        }
}

/* Compare a's and b's counters with the capacity/conflict split taken out; returns the number
 * of misses moved between capacity and conflict. */
static uint64_t same_counters(const ms_counters *a, const ms_counters *b, unsigned parts, uint32_t row)
{
    ms_counters x = *a, y = *b;
    uint64_t moved = 0;
    for (int k = 0; k < MS_MAX_LEVELS; k++) {
        uint64_t *cx = x.level[k].cause, *cy = y.level[k].cause;
        CHECK_EQ(cy[MS_CAUSE_CAPACITY] + cy[MS_CAUSE_CONFLICT], cx[MS_CAUSE_CAPACITY] + cx[MS_CAUSE_CONFLICT]);
        moved += cx[MS_CAUSE_CAPACITY] > cy[MS_CAUSE_CAPACITY] ? cx[MS_CAUSE_CAPACITY] - cy[MS_CAUSE_CAPACITY]
                                                               : cy[MS_CAUSE_CAPACITY] - cx[MS_CAUSE_CAPACITY];
        cx[MS_CAUSE_CAPACITY] = cy[MS_CAUSE_CAPACITY] = cx[MS_CAUSE_CONFLICT] = cy[MS_CAUSE_CONFLICT] = 0;
    }
    if (memcmp(&x, &y, sizeof x) != 0) {
        fprintf(stderr, "counters of row %u differ with %u partitions\n", row, parts);
        CHECK(0);
    }
    return moved;
}

/* Run refs through one simulator and through psim for P = 1, 2, 4, 8, 16 (as capped);
 * returns the largest number of misses moved between capacity and conflict. */
static uint64_t compare(const char *config, const ref *refs, size_t n, unsigned want_max_parts)
{
    ms_hier_config cfg;
    char err[200];
    if (ms_config_parse_full(config, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bad config %s: %s\n", config, err);
        exit(1);
    }
    ms_sim *one = sim_from_text(config);
    for (size_t i = 0; i < n; i++) {
        if (refs[i].region)
            ms_sim_next_region(one);
        else
            ms_sim_access(one, refs[i].cpu, refs[i].addr, refs[i].size, refs[i].write ? MS_ACC_WRITE : 0, refs[i].ctx);
    }
    ms_sim_finish(one);
    uint32_t nref;
    const ms_counters *want = ms_sim_counters(one, &nref);
    ref_ev.n = ref_inv.n = 0;
    ms_sim_each_eviction(one, put_ev, &ref_ev);
    ms_sim_each_invalidation(one, put_inv, &ref_inv);
    CHECK_EQ(ms_psim_parts_for(&cfg, 16), want_max_parts);
    uint64_t worst = 0;
    ms_allocator a = test_allocator(&default_heap);
    for (unsigned w = 1; w <= 16; w *= 2) {
        unsigned parts = ms_psim_parts_for(&cfg, w);
        ms_psim *ps = NULL;
        CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, parts, NULL, NULL), -1); /* no queue: refused */
        CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, parts, apply_now, &ps), 0);
        if (!ps) return worst;
        for (size_t i = 0; i < n; i++) {
            uint32_t room = 0;
            ms_psim_op *o = w == 2 || w == 8 ? ms_psim_room(ps, &room) : NULL; /* appended directly */
            if (refs[i].region)
                ms_psim_next_region(ps);
            else if (room && refs[i].cpu < ms_psim_nprocs(ps)) {
                ms_psim_op_ref(o, refs[i].cpu, refs[i].addr, refs[i].size, refs[i].write ? MS_ACC_WRITE : 0,
                               refs[i].ctx);
                ms_psim_commit(ps, 1);
            } else
                ms_psim_access(ps, refs[i].cpu, refs[i].addr, refs[i].size, refs[i].write ? MS_ACC_WRITE : 0,
                               refs[i].ctx);
        }
        ms_psim_flush(ps);
        uint32_t ngot;
        const ms_counters *got = ms_psim_counters(ps, &ngot);
        CHECK_EQ(ngot, nref);
        for (uint32_t r = 0; got && r < ngot && r < nref; r++) {
            uint64_t moved = same_counters(&got[r], &want[r], parts, r);
            if (moved > worst) worst = moved;
        }
        got_ev.n = got_inv.n = 0;
        CHECK_EQ_INT(ms_psim_each_eviction(ps, put_ev, &got_ev), 0);
        CHECK_EQ_INT(ms_psim_each_invalidation(ps, put_inv, &got_inv), 0);
        same_pairs(&ref_ev, &got_ev, "eviction", parts);
        same_pairs(&ref_inv, &got_inv, "invalidation", parts);
        CHECK_EQ(ms_psim_lost(ps), 0);
        CHECK_EQ(ms_psim_straddles(ps), 0);
        ms_psim_destroy(ps);
    }
    ms_sim_destroy(one);
    return worst;
}

static ref refs[400000];

/* Random single-line references of 4 contexts over 256 KiB (no straddles), reads and writes. */
static size_t random_stream(unsigned nprocs, int regions)
{
    size_t n = 0;
    for (size_t i = 0; i < 300000; i++) {
        uint64_t r = next_rand();
        if (regions && i % 5000 == 4999) refs[n++] = (ref){ 0, 0, 1, 0, 0, 0 };
        unsigned size = 1u << (r % 4);
        uint64_t addr = ((r >> 8) % (256 * 1024)) & ~(uint64_t)(size - 1);
        refs[n++] = (ref){ (uint8_t)((r >> 40) % nprocs), (uint8_t)((r >> 50) % 3 == 0), 0, 0x100000 + addr, size,
                           1 + (uint32_t)((r >> 44) % 4) };
    }
    return n;
}

/* Three arrays walked with strides 8, 64 and 4160 bytes (ctx 1..3), repeated. */
static size_t strided_stream(void)
{
    size_t n = 0;
    for (int rep = 0; rep < 4; rep++)
        for (uint64_t i = 0; i < 20000; i++) {
            refs[n++] = (ref){ 0, 0, 0, 0x200000 + i * 8 % (96 * 1024), 8, 1 };
            refs[n++] = (ref){ 0, 1, 0, 0x400000 + i * 64 % (200 * 1024), 8, 2 };
            refs[n++] = (ref){ 0, 0, 0, 0x800000 + i * 4160 % (1024 * 1024), 4, 3 };
        }
    return n;
}

/* The stall every reference's counters got (stall_read + stall_write of every row). */
static uint64_t counted_stall(ms_psim *ps)
{
    uint32_t n = 0;
    const ms_counters *c = ms_psim_counters(ps, &n);
    uint64_t sum = 0;
    for (uint32_t i = 0; c && i < n; i++) sum += c[i].stall_read + c[i].stall_write;
    return sum;
}

/* One reference of a direct-mode test: processor, flags, address, and what it must give: the
 * serving level, whether it communicated, its stall. */
typedef struct {
    unsigned cpu, flags;
    uint64_t addr;
    int level, comm;
    uint64_t stall;
} direct_step;

/* Each step's reference (8 bytes, context 1) checked against its expectations; with again, the
 * same reference once more through the one-call path (an L1 hit, no communication). The sum of
 * the stalls. */
static uint64_t run_steps(ms_psim *ps, const direct_step *steps, size_t n, int again)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) {
        int comm = -1;
        uint64_t stall = 1;
        CHECK_EQ_INT(ms_psim_access(ps, steps[i].cpu, steps[i].addr, 8, steps[i].flags, 1), 0);
        CHECK_EQ_INT(ms_psim_take_level(ps, &comm, &stall), steps[i].level);
        CHECK_EQ_INT(comm, steps[i].comm);
        CHECK_EQ(stall, steps[i].stall);
        if (again) {
            int comm1 = -1;
            CHECK_EQ(ms_psim_access_stall(ps, steps[i].cpu, steps[i].addr, 8, steps[i].flags, 1, &comm1), 0);
            CHECK_EQ_INT(comm1, 0);
        }
        total += stall;
    }
    return total;
}

/* Direct mode with two nodes (processor p on node p, a unit's home node its number mod 2),
 * private L1 (1 cycle) and L2 (10), memory 100, remote memory 400: a miss served by the other
 * node's memory stalls 399, an upgrade of a unit homed there the remote directory's 399. */
static void test_direct_remote(void)
{
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_parse_full("L1=1K:2:64:1,L2=64K:8:64:10;mem=100;procs=2;nodes=2;remote=400", &cfg, NULL, 0),
                 0);
    ms_allocator a = test_allocator(&default_heap);
    ms_psim *ps = NULL;
    CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, 1, apply_now, &ps), 0);
    CHECK_EQ_INT(ms_psim_set_direct(ps), 0);
    const direct_step steps[] = {
        { 0, 0, 0x10040, 2, 1, 399 },            /* unit 0x401, home node 1: remote memory */
        { 0, 0, 0x10000, 2, 0, 99 },             /* unit 0x400, home node 0: local memory */
        { 1, 0, 0x10040, 2, 0, 99 },             /* local to cpu 1 */
        { 0, MS_ACC_WRITE, 0x10040, 0, 1, 399 }, /* an upgrade at the remote home's directory */
        { 0, 0, 0x10040, 0, 0, 0 },              /* a hit */
    };
    uint64_t total = run_steps(ps, steps, sizeof steps / sizeof steps[0], 1);
    CHECK_EQ(total, 996);
    CHECK_EQ(counted_stall(ps), 996);
    ms_psim_destroy(ps);
    CHECK_EQ(default_heap.outstanding, 0);
}

/* Direct mode (the timed replay): each reference's serving level, whether it communicated
 * (ms_sim_comm_refs) and its stall (exactly its counters'), on two processors with private
 * L1s (1 cycle) and a shared L2 (10), memory 100: an upgrade stalls the directory's L2. */
static void test_direct_comm(void)
{
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_parse_full("L1=1K:2:64:1,L2=64K:8:64:10;mem=100;procs=2;shared=1", &cfg, NULL, 0), 0);
    ms_allocator a = test_allocator(&default_heap);
    ms_psim *ps = NULL;
    CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, 1, apply_now, &ps), 0);
    CHECK_EQ_INT(ms_psim_set_direct(ps), 0);
    const direct_step steps[] = {
        { 0, 0, 0x10000, 2, 0, 99 },            /* cold, from memory */
        { 1, 0, 0x10000, 1, 0, 9 },             /* cold, from the shared L2 (clean) */
        { 0, MS_ACC_WRITE, 0x10000, 0, 1, 9 },  /* an upgrade invalidating cpu 1's copy: no miss,
                                                * the directory's latency, communication */
        { 1, 0, 0x10000, 1, 1, 9 },             /* invalidated by cpu 0's write: a coherence miss */
        { 1, MS_ACC_WRITE, 0x20000, 2, 0, 99 }, /* cold, nobody else's data */
        { 0, 0, 0x20000, 1, 1, 9 },             /* cold start: cpu 1's dirty line */
        { 0, 0, 0x10000, 0, 0, 0 },             /* a hit */
    };
    uint64_t total = run_steps(ps, steps, sizeof steps / sizeof steps[0], 0);
    CHECK_EQ(total, 234);
    /* capacity misses of cpu 0's own data (1 KiB L1, 4 KiB walked twice) do not communicate */
    int any = 0;
    for (int rep = 0; rep < 2; rep++)
        for (uint64_t off = 0; off < 4096; off += 64) {
            int comm;
            uint64_t stall;
            ms_psim_access(ps, 0, 0x40000 + off, 8, 0, 2);
            CHECK_EQ_INT(ms_psim_take_level(ps, &comm, &stall), rep ? 1 : 2);
            CHECK_EQ(stall, rep ? 9u : 99u);
            total += stall;
            any |= comm;
        }
    CHECK_EQ_INT(any, 0);
    CHECK_EQ(total, 234 + 64 * 99 + 64 * 9);
    CHECK_EQ(counted_stall(ps), total);
    ms_psim_destroy(ps);
    CHECK_EQ(default_heap.outstanding, 0);
}

/* References written into the room as they are (as the replay's sink copies its runs): those
 * straddling partitions, beyond a line, of context 0 or size 0 among plain ones give the
 * counters of the same references through ms_psim_access / ms_psim_access_range with context
 * 0 and size 0 left out (the sink's policy), at P = 1, 2, 4 and 8, whole and routed batches;
 * the straddles are counted alike, the ones left out as unattributed. */
static void test_room_copies(void)
{
    ms_hier_config cfg;
    CHECK_EQ_INT(ms_config_parse_full("L1=4K:2:64:1,L2=64K:8:64:10;mem=100;procs=2", &cfg, NULL, 0), 0);
    ms_allocator a = test_allocator(&default_heap);
    for (unsigned parts = 1; parts <= 8; parts *= 2) {
        ms_psim *by_call = NULL, *by_copy = NULL;
        CHECK_EQ_INT(ms_psim_create(&by_call, &cfg, &a, parts, apply_now, &by_call), 0);
        CHECK_EQ_INT(ms_psim_create(&by_copy, &cfg, &a, parts, apply_now, &by_copy), 0);
        uint64_t skipped = 0;
        for (uint64_t i = 0; i < 30000; i++) {
            uint64_t r = next_rand();
            unsigned cpu = (unsigned)(r >> 60) & 1, flags = (r >> 61) & 1 ? MS_ACC_WRITE : 0;
            uint64_t addr = 0x100000 + (r >> 8) % (128 * 1024), size = 1u << (r % 4);
            uint32_t ctx = 1 + (uint32_t)((r >> 40) % 3);
            switch (r >> 50 & 15) {
            case 0: size = 200; break;    /* a range of four lines */
            case 1: addr |= 60; break;    /* size 8 straddles two lines (and partitions, P > 1) */
            case 2: ctx = 0; break;       /* left out */
            case 3: size = 0; break;      /* left out */
            default: addr &= ~(size - 1); /* plain */
            }
            if (!ctx || !size)
                skipped++;
            else if (size > 64)
                ms_psim_access_range(by_call, cpu, addr, size, flags, ctx);
            else
                CHECK_EQ_INT(ms_psim_access(by_call, cpu, addr, (uint32_t)size, flags, ctx), 0);
            uint32_t room = 0;
            ms_psim_op *o = ms_psim_room(by_copy, &room);
            if (room) {
                ms_psim_op_ref(o, cpu, addr, size, flags, ctx);
                ms_psim_commit(by_copy, 1);
            } else if (ctx && size) { /* the operation that fills the batch: as the sink does */
                if (size > 64)
                    ms_psim_access_range(by_copy, cpu, addr, size, flags, ctx);
                else
                    ms_psim_access(by_copy, cpu, addr, (uint32_t)size, flags, ctx);
            } else {
                skipped--; /* not queued: the sink counts it itself */
            }
            if (i % 7000 == 6999) {
                ms_psim_next_region(by_call);
                ms_psim_next_region(by_copy);
            }
        }
        ms_psim_flush(by_call);
        ms_psim_flush(by_copy);
        uint32_t n1, n2;
        const ms_counters *c1 = ms_psim_counters(by_call, &n1), *c2 = ms_psim_counters(by_copy, &n2);
        CHECK_EQ(n1, n2);
        for (uint32_t r = 0; c1 && c2 && r < n1 && r < n2; r++)
            if (memcmp(&c1[r], &c2[r], sizeof c1[r]) != 0) {
                fprintf(stderr, "copied references: row %u differs with %u partitions\n", r, parts);
                CHECK(0);
                break;
            }
        CHECK_EQ(ms_psim_straddles(by_copy), ms_psim_straddles(by_call));
        CHECK(parts == 1 || ms_psim_straddles(by_call) > 300); /* size 8 at offset 60: about 470 */
        CHECK_EQ(ms_psim_unattributed(by_copy), skipped);
        CHECK(skipped > 3000);
        ms_psim_destroy(by_call);
        ms_psim_destroy(by_copy);
    }
    CHECK_EQ(default_heap.outstanding, 0);
}

int main(void)
{
    test_room_copies();
    test_direct_comm();
    test_direct_remote();
    size_t n = random_stream(1, 0);
    /* 32 L1 sets: P up to 16. */
    uint64_t moved = compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100", refs, n, 16);
    CHECK(moved > 0); /* the split does move on this stream (the test can see it) */
    compare("L1=4K:2:64:1:plru,L2=32K:4:128:10;mem=100", refs, n, 16);
    compare("L1=1K:2:64:1;mem=50", refs, n, 8);        /* 8 sets: capped at 8 */
    compare("L1=4K:2:64:1:random;mem=50", refs, n, 1); /* random replacement: one */
    n = strided_stream();
    compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100", refs, n, 16);
    /* Spatial utilisation: each line's mask lives in one partition, the merged counters (used
     * bytes summed, referenced offsets OR-ed) are those of one simulator. */
    compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100;util=1", refs, n, 16);
    /* Multiprocessor: coherence, invalidation pairs, regions, patterns. */
    n = random_stream(4, 1);
    compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100;procs=4", refs, n, 16);
    compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100;procs=4;util=1", refs, n, 16);
    compare("L1=4K:2:64:1,L2=64K:8:64:10;mem=100;procs=4;shared=2;nodes=2", refs, n, 16);
    /* A 1 KiB coherence unit: the key is the unit number; 4 KiB / 2 ways / 1 KiB = 2. */
    compare("L1=4K:2:64:1;mem=100;procs=4;unit=1024", refs, n, 2);

    /* A reference straddling lines of two partitions is split into one per line (counted). */
    ms_hier_config cfg;
    ms_config_parse_full("L1=4K:2:64:1;mem=50", &cfg, NULL, 0);
    ms_allocator a = test_allocator(&default_heap);
    ms_psim *ps = NULL;
    CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, 2, apply_now, &ps), 0);
    CHECK_EQ_INT(ms_psim_access(ps, 0, 0x1000 + 60, 8, 0, 1), 0);
    CHECK_EQ_INT(ms_psim_access(ps, 1, 0x1000, 8, 0, 1), -1); /* no processor 1 */
    ms_psim_flush(ps);
    uint32_t nc;
    const ms_counters *c = ms_psim_counters(ps, &nc);
    CHECK_EQ(ms_psim_straddles(ps), 1);
    CHECK_EQ(c[1].reads, 2);
    CHECK_EQ(c[1].level[0].cause[MS_CAUSE_COLD], 2);
    ms_psim_destroy(ps);
    CHECK_EQ(default_heap.outstanding, 0);
    /* Out of memory in the partitions: the references are not simulated but counted as lost. */
    CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, 4, apply_now, &ps), 0);
    default_heap.allocs_left = 0;
    for (uint64_t i = 0; i < 10; i++) ms_psim_access(ps, 0, 0x1000 + 64 * i, 4, 0, 1);
    ms_psim_flush(ps);
    CHECK_EQ(ms_psim_lost(ps), 10);
    CHECK(ms_psim_counters(ps, &nc) == NULL); /* no memory for the merge either */
    default_heap.allocs_left = -1;
    c = ms_psim_counters(ps, &nc);
    CHECK(c != NULL);
    ms_psim_destroy(ps);
    CHECK_EQ(default_heap.outstanding, 0);
    /* P not allowed by the config is refused. */
    CHECK_EQ_INT(ms_psim_create(&ps, &cfg, &a, 64, apply_now, &ps), -1);
    return check_result();
}
