/* The multiprocessor simulator on synthetic streams with exact expected counts: read sharing,
 * invalidations (true/false, in/across region, with lock, followed by a coherence miss),
 * MESI versus MSI, downgrades with writeback, a shared last level, page-sized coherence
 * units, nodes with local/remote misses, invalidation pairs, the counters' layout, and the
 * multiprocessor path agreeing with the uniprocessor one on a single processor's stream. */
#include <stdint.h>
#include <stdlib.h>

#include "sim_mp_testutil.h"

/* Two processors reading the same line: one cold miss each, then hits; nothing invalidated. */
static void test_read_sharing(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    CHECK_EQ(ms_sim_nprocs(sim), 2);
    CHECK_EQ_INT(rd(sim, 0, 0, 0), 1);
    CHECK_EQ_INT(rd(sim, 1, 0, 0), 1);
    CHECK_EQ_INT(rd(sim, 0, 0, 0), 0);
    CHECK_EQ_INT(rd(sim, 1, 0, 0), 0);
    for (unsigned cpu = 0; cpu < 2; cpu++) {
        const ms_counters *c = at(sim, 0, cpu);
        CHECK_EQ(c->reads, 2);
        CHECK_EQ(c->level[0].read_misses, 1);
        CHECK_EQ(c->level[0].cause[MS_CAUSE_COLD], 1);
        CHECK_EQ(c->inval.received, 0);
        CHECK_EQ(c->inval.sent, 0);
        CHECK_EQ(c->local_misses, 1);
        CHECK_EQ(c->remote_misses, 0);
        CHECK_EQ(c->stall_read, 50);
    }
    ms_sim_destroy(sim);
}

/* cpu0 and cpu1 read a line, cpu1 writes it (an upgrade: no miss, but a directory trip),
 * cpu0 reads again: one true in-region invalidation followed by a coherence miss. */
static void test_write_after_read_sharing(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    rd(sim, 0, 0, 0);
    rd(sim, 1, 0, 1);
    CHECK_EQ_INT(wr(sim, 1, 0, 2), 0);
    CHECK_EQ_INT(rd(sim, 0, 0, 3), 1);
    const ms_counters *victim = at(sim, 0, 0), *writer = at(sim, 2, 1), *again = at(sim, 3, 0);
    CHECK_EQ(victim->inval.received, 1);
    CHECK_EQ(victim->inval.true_in, 1);
    CHECK_EQ(victim->inval.false_in + victim->inval.true_across + victim->inval.false_across, 0);
    CHECK_EQ(victim->inval.followed_by_miss, 1);
    CHECK_EQ(victim->inval.with_lock, 0);
    CHECK_EQ(writer->inval.sent, 1);
    CHECK_EQ(writer->level[0].write_misses, 0);
    CHECK_EQ(writer->stall_write, 50); /* the upgrade goes to the directory (memory) */
    CHECK_EQ(again->level[0].read_misses, 1);
    CHECK_EQ(again->level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(again->inval.followed_by_miss, 0); /* counted where the invalidation was */
    ms_counters total;
    ms_sim_totals(sim, &total);
    CHECK_EQ(total.inval.received, 1);
    CHECK_EQ(total.inval.sent, 1);
    CHECK_EQ(total.level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(total.level[0].cause[MS_CAUSE_COLD], 2);
    ms_sim_destroy(sim);
}

/* ccSIM's per-reference attribution: an invalidation is received by the reference that
 * fetched the copy (the read miss of f[i] += ...), not by a later hit on it (the write). */
static void test_received_by_fetching_reference(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    CHECK_EQ_INT(rd(sim, 0, 8, 1), 1); /* ctx 1 fetches the line on cpu 0 */
    CHECK_EQ_INT(wr(sim, 0, 8, 2), 0); /* ctx 2 writes it (hit, exclusive) */
    CHECK_EQ_INT(rd(sim, 1, 8, 3), 1); /* cpu 1 fetches it (downgrade) */
    CHECK_EQ_INT(wr(sim, 1, 8, 4), 0); /* and invalidates cpu 0's copy */
    CHECK_EQ(at(sim, 1, 0)->inval.received, 1);
    CHECK_EQ(at(sim, 1, 0)->inval.true_in, 1);
    CHECK_EQ(at(sim, 2, 0)->inval.received, 0);
    CHECK_EQ_INT(rd(sim, 0, 8, 1), 1); /* the coherence miss follows: counted on ctx 1 */
    CHECK_EQ(at(sim, 1, 0)->inval.followed_by_miss, 1);
    CHECK_EQ(at(sim, 1, 0)->level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(at(sim, 4, 1)->inval.sent, 1);
    ms_sim_destroy(sim);
}

typedef struct {
    ms_invalidation seen[8];
    int n;
} inval_list;

static void collect_invalidation(const ms_invalidation *e, void *ud)
{
    inval_list *l = ud;
    if (l->n < 8) l->seen[l->n] = *e;
    l->n++;
}

/* Two processors writing different bytes of one line alternately (4 writes each): every
 * invalidation is false sharing and in-region; after a region boundary, across-region. */
static void test_false_sharing(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    for (int i = 0; i < 4; i++) {
        wr(sim, 0, 0, 0);
        wr(sim, 1, 8, 1);
    }
    const ms_counters *c0 = at(sim, 0, 0), *c1 = at(sim, 1, 1);
    CHECK_EQ(c0->inval.received, 4); /* by each of cpu1's writes */
    CHECK_EQ(c0->inval.false_in, 4);
    CHECK_EQ(c0->inval.true_in, 0);
    CHECK_EQ(c0->inval.followed_by_miss, 3); /* the last one is not followed (yet) */
    CHECK_EQ(c0->inval.sent, 3);
    CHECK_EQ(c1->inval.received, 3);
    CHECK_EQ(c1->inval.false_in, 3);
    CHECK_EQ(c1->inval.followed_by_miss, 3);
    CHECK_EQ(c1->inval.sent, 4);
    CHECK_EQ(c0->level[0].write_misses, 4);
    CHECK_EQ(c0->level[0].cause[MS_CAUSE_COLD], 1);
    CHECK_EQ(c0->level[0].cause[MS_CAUSE_INVAL], 3);
    CHECK_EQ(c0->stall_write, 200);
    inval_list pairs = { 0 };
    ms_sim_each_invalidation(sim, collect_invalidation, &pairs);
    CHECK_EQ_INT(pairs.n, 2);
    CHECK_EQ(pairs.seen[0].victim_ctx, 0);
    CHECK_EQ(pairs.seen[0].victim_cpu, 0);
    CHECK_EQ(pairs.seen[0].inval_ctx, 1);
    CHECK_EQ(pairs.seen[0].inval_cpu, 1);
    CHECK_EQ(pairs.seen[0].count, 4);
    CHECK_EQ(pairs.seen[1].victim_ctx, 1);
    CHECK_EQ(pairs.seen[1].victim_cpu, 1);
    CHECK_EQ(pairs.seen[1].inval_ctx, 0);
    CHECK_EQ(pairs.seen[1].inval_cpu, 0);
    CHECK_EQ(pairs.seen[1].count, 3);
    ms_sim_next_region(sim);
    wr(sim, 0, 0, 0);
    CHECK_EQ(c1->inval.false_across, 1);
    CHECK_EQ(c1->inval.false_in, 3);
    ms_sim_destroy(sim);
}

/* A read then a write by one processor: MESI grants E on the read miss and the write is
 * silent; MSI grants S and the write must upgrade (a directory trip, still no miss). */
static void test_mesi_versus_msi(void)
{
    static const char *const configs[2] = { "L1=1K:2:64:0;mem=50;procs=2", "L1=1K:2:64:0;mem=50;procs=2;proto=msi" };
    static const uint64_t want_write_stall[2] = { 0, 50 };
    for (int i = 0; i < 2; i++) {
        ms_sim *sim = sim_from_text(configs[i]);
        rd(sim, 0, 0, 0);
        CHECK_EQ_INT(wr(sim, 0, 0, 0), 0);
        const ms_counters *c = at(sim, 0, 0);
        CHECK_EQ(c->stall_write, want_write_stall[i]);
        CHECK_EQ(c->level[0].write_misses, 0);
        CHECK_EQ(c->inval.sent, 0);
        ms_sim_destroy(sim);
    }
}

/* Shared L2: a read of a line another processor holds modified downgrades it (its data is
 * written back into L2, counted) and is served by L2; so is the later coherence miss. */
static void test_downgrade_and_shared_level(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0,L2=8K:4:64:10;mem=50;procs=2;shared=1");
    CHECK_EQ_INT(wr(sim, 0, 0, 0), 2);
    CHECK_EQ_INT(rd(sim, 1, 0, 1), 1);
    const ms_counters *reader = at(sim, 1, 1), *writer = at(sim, 0, 0);
    CHECK_EQ(reader->level[1].writebacks, 1);
    CHECK_EQ(reader->stall_read, 10);
    CHECK_EQ(reader->local_misses, 1);
    CHECK_EQ_INT(wr(sim, 0, 0, 0), 0); /* upgrade: invalidates cpu1, L2 is the directory */
    CHECK_EQ(writer->stall_write, 60);
    CHECK_EQ(reader->inval.true_in, 1);
    CHECK_EQ_INT(rd(sim, 1, 0, 1), 1); /* coherence miss served by the shared L2 */
    CHECK_EQ(reader->stall_read, 20);
    CHECK_EQ(reader->level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(reader->level[1].read_misses, 0);
    CHECK_EQ(reader->level[1].writebacks, 2);
    CHECK_EQ(reader->inval.followed_by_miss, 1);
    ms_sim_destroy(sim);
}

/* A private L2: the invalidation takes the line out of both levels; the miss is INVAL at both. */
static void test_private_two_levels(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0,L2=8K:4:64:10;mem=50;procs=2");
    rd(sim, 0, 0, 0);
    wr(sim, 1, 0, 1);
    CHECK_EQ_INT(rd(sim, 0, 0, 2), 2);
    const ms_counters *c = at(sim, 2, 0);
    CHECK_EQ(c->level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(c->level[1].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(c->stall_read, 50);
    CHECK_EQ(at(sim, 0, 0)->inval.received, 1); /* one per unit, not per level */
    CHECK_EQ(at(sim, 0, 0)->inval.followed_by_miss, 1);
    ms_sim_destroy(sim);
}

/* with_lock: in-region invalidations by a writer holding a lock; across-region ones are not. */
static void test_with_lock(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    rd(sim, 0, 0, 0);
    ms_sim_access(sim, 1, 0, 8, WR | MS_ACC_LOCKED, 1);
    rd(sim, 0, 0, 0);
    ms_sim_next_region(sim);
    ms_sim_access(sim, 1, 0, 8, WR | MS_ACC_LOCKED, 1);
    const ms_inval_counters *iv = &at(sim, 0, 0)->inval;
    CHECK_EQ(iv->received, 2);
    CHECK_EQ(iv->true_in, 1);
    CHECK_EQ(iv->true_across, 1);
    CHECK_EQ(iv->with_lock, 1);
    ms_sim_destroy(sim);
}

/* 4 KiB coherence unit: a write to byte 0 invalidates the victim's line at byte 2048 (false
 * sharing: different 64-byte granules); a line of the unit the victim never held stays cold. */
static void test_page_unit(void)
{
    ms_sim *sim = sim_from_text("L1=8K:2:64:0;mem=50;procs=2;unit=4096");
    rd(sim, 0, 2048, 0);
    wr(sim, 1, 0, 1);
    const ms_counters *victim = at(sim, 0, 0);
    CHECK_EQ(victim->inval.received, 1);
    CHECK_EQ(victim->inval.false_in, 1);
    CHECK_EQ_INT(rd(sim, 0, 2048, 2), 1);
    CHECK_EQ(at(sim, 2, 0)->level[0].cause[MS_CAUSE_INVAL], 1);
    CHECK_EQ(victim->inval.followed_by_miss, 1);
    CHECK_EQ_INT(rd(sim, 0, 64, 3), 1);
    CHECK_EQ(at(sim, 3, 0)->level[0].cause[MS_CAUSE_COLD], 1);
    /* True sharing within the granule: bytes 2056..2063 are in granule 32 like 2048. */
    wr(sim, 1, 2056, 1);
    CHECK_EQ(at(sim, 3, 0)->inval.true_in, 1); /* cpu0's last access (ctx 3) touched granule 1 */
    ms_sim_destroy(sim);
}

/* The invalidated way is refilled first: the set's other lines survive the next fill. */
static void test_invalidated_way_is_reused(void)
{
    ms_sim *sim = sim_from_text("L1=256:2:64:0;mem=50;procs=2"); /* 2 sets x 2 ways */
    rd(sim, 0, 128, 0);                                          /* B, set 0 */
    rd(sim, 0, 0, 0);                                            /* A, set 0, most recent */
    wr(sim, 1, 0, 1);                                            /* takes A (the most recent way) out of cpu0's L1 */
    CHECK_EQ_INT(rd(sim, 0, 256, 0), 1);                         /* C fills A's way */
    CHECK_EQ_INT(rd(sim, 0, 128, 0), 0);                         /* B is still there */
    rd(sim, 0, 0, 0);                                            /* A back (coherence miss), evicting C */
    wr(sim, 1, 0, 1);                                            /* A out again, now the LRU-ordered second way */
    CHECK_EQ_INT(rd(sim, 0, 384, 0), 1);
    CHECK_EQ_INT(rd(sim, 0, 128, 0), 0);
    ms_sim_destroy(sim);
}

/* Four processors on two nodes (cpu0-1 node 0, cpu2-3 node 1), units homed round robin. */
static void test_nodes(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=4;nodes=2;remote=200");
    rd(sim, 0, 0, 0);  /* unit 0, home 0: local */
    rd(sim, 0, 64, 1); /* unit 1, home 1: remote */
    rd(sim, 2, 0, 2);  /* remote */
    rd(sim, 3, 64, 3); /* local */
    CHECK_EQ(at(sim, 0, 0)->local_misses, 1);
    CHECK_EQ(at(sim, 0, 0)->stall_read, 50);
    CHECK_EQ(at(sim, 1, 0)->remote_misses, 1);
    CHECK_EQ(at(sim, 1, 0)->stall_read, 200);
    CHECK_EQ(at(sim, 2, 2)->remote_misses, 1);
    CHECK_EQ(at(sim, 2, 2)->stall_read, 200);
    CHECK_EQ(at(sim, 3, 3)->local_misses, 1);
    CHECK_EQ(at(sim, 3, 3)->stall_read, 50);
    /* Dirty data in another node's cache is remote even when the home is local, and the
     * other way round. */
    wr(sim, 2, 128, 4); /* unit 2, home 0: remote for cpu2 */
    CHECK_EQ(at(sim, 4, 2)->stall_write, 200);
    rd(sim, 0, 128, 5); /* from cpu2's cache (node 1) */
    CHECK_EQ(at(sim, 5, 0)->remote_misses, 1);
    CHECK_EQ(at(sim, 5, 0)->stall_read, 200);
    wr(sim, 2, 256, 6); /* unit 4, home 0 */
    rd(sim, 3, 256, 7); /* from cpu2's cache: same node */
    CHECK_EQ(at(sim, 7, 3)->local_misses, 1);
    CHECK_EQ(at(sim, 7, 3)->stall_read, 50);
    ms_sim_destroy(sim);
    sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2;nodes=2"); /* default: 2 x memory */
    rd(sim, 0, 64, 0);
    CHECK_EQ(at(sim, 0, 0)->stall_read, 100);
    ms_sim_destroy(sim);
}

/* Counters are indexed ctx * nprocs + cpu; a cpu out of range is refused. */
static void test_counters_layout(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=3");
    CHECK_EQ_INT(rd(sim, 1, 0, 2), 1);
    CHECK_EQ_INT(rd(sim, 3, 0, 0), -1);
    uint32_t n = 0;
    const ms_counters *c = ms_sim_counters(sim, &n);
    CHECK_EQ(n, 9);
    for (uint32_t i = 0; i < n; i++) CHECK_EQ(c[i].reads, i == 2 * 3 + 1 ? 1 : 0);
    ms_sim_destroy(sim);
    sim = sim_from_text("L1=1K:2:64:0;mem=50");
    CHECK_EQ(ms_sim_nprocs(sim), 1);
    CHECK_EQ_INT(rd(sim, 1, 0, 0), -1);
    ms_sim_destroy(sim);
}

/* A pseudo-random stream of one processor: the uniprocessor simulator, the same with
 * procs=1, and processor 0 of a 2-processor simulator give the same counters and pairs. */
typedef struct {
    ms_eviction e[4096];
    int n;
} eviction_list;

static void collect_eviction(const ms_eviction *e, void *ud)
{
    eviction_list *l = ud;
    if (l->n < 4096) l->e[l->n] = *e;
    l->n++;
}

static void run_stream(ms_sim *sim)
{
    uint64_t x = 12345;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t addr = (x >> 33) % 40000;
        unsigned flags = (x >> 20) % 4 == 0 ? WR : 0;
        ms_sim_access(sim, 0, addr, 1 + (uint32_t)((x >> 8) % 16), flags, (uint32_t)((x >> 12) % 5));
    }
}

static void test_one_processor_unchanged(void)
{
    static const char *const configs[3] = {
        "L1=1K:2:64:0,L2=4K:4:128:10:plru;mem=50",
        "L1=1K:2:64:0,L2=4K:4:128:10:plru;mem=50;procs=1",
        "L1=1K:2:64:0,L2=4K:4:128:10:plru;mem=50;procs=2",
    };
    static eviction_list pairs[3];
    ms_counters got[3][5];
    for (int s = 0; s < 3; s++) {
        ms_sim *sim = sim_from_text(configs[s]);
        run_stream(sim);
        ms_sim_finish(sim);
        for (uint32_t ctx = 0; ctx < 5; ctx++) {
            got[s][ctx] = *at(sim, ctx, 0);
            got[s][ctx].local_misses = 0; /* counted by the multiprocessor path only */
        }
        pairs[s].n = 0;
        ms_sim_each_eviction(sim, collect_eviction, &pairs[s]);
        ms_sim_destroy(sim);
    }
    CHECK(got[0][0].level[0].cause[MS_CAUSE_CONFLICT] > 0);
    CHECK(got[0][0].level[1].writebacks > 0);
    CHECK(pairs[0].n > 10);
    for (int s = 1; s < 3; s++) {
        CHECK(memcmp(got[0], got[s], sizeof got[0]) == 0);
        CHECK_EQ_INT(pairs[s].n, pairs[0].n);
        for (int i = 0; i < pairs[0].n && i < 4096; i++) {
            const ms_eviction *x = &pairs[0].e[i], *y = &pairs[s].e[i];
            CHECK(x->victim_ctx == y->victim_ctx && x->evictor_ctx == y->evictor_ctx && x->level == y->level &&
                  x->count == y->count);
        }
    }
}

/* Out of memory: allocation failures anywhere degrade numbers or refuse accesses, never
 * crash; everything is released. */
static void test_out_of_memory(void)
{
    ms_hier_config cfg;
    char err[200];
    CHECK_EQ_INT(ms_config_parse_full("L1=1K:2:64:0,L2=4K:4:64:10;mem=50;procs=4;shared=1", &cfg, err, sizeof err), 0);
    for (long budget = 0; budget < 40; budget++) {
        test_heap heap = { 0, budget };
        ms_allocator a = test_allocator(&heap);
        ms_sim *sim = NULL;
        if (ms_sim_create(&sim, &cfg, &a) == 0) {
            for (int i = 0; i < 3000; i++)
                ms_sim_access(sim, (unsigned)i % 4, (uint64_t)(i * 40) % 20000, 8, i % 3 ? 0 : WR, (uint32_t)i % 3);
            ms_sim_finish(sim);
            CHECK_EQ(ms_sim_memory(sim), heap.outstanding);
            ms_sim_destroy(sim);
        }
        CHECK_EQ(heap.outstanding, 0);
    }
}

int main(void)
{
    test_read_sharing();
    test_write_after_read_sharing();
    test_received_by_fetching_reference();
    test_false_sharing();
    test_mesi_versus_msi();
    test_downgrade_and_shared_level();
    test_private_two_levels();
    test_with_lock();
    test_page_unit();
    test_invalidated_way_is_reused();
    test_nodes();
    test_counters_layout();
    test_one_processor_unchanged();
    test_out_of_memory();
    CHECK_EQ(default_heap.outstanding, 0);
    return check_result();
}
