/* Simulator behaviour on synthetic address streams with exact expected counts: LRU order,
 * the 3C rule, cold misses, write-allocate and writebacks, multi-level hierarchies, stall
 * cycles, replacement attribution, straddling and range accesses, memory accounting. */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "sim_testutil.h"

#define LINE 64u
#define RD 0u
#define WR MS_ACC_WRITE

/* Read L1 line number `line` (64-byte lines) as ctx; returns the serving level. */
static int read_line(ms_sim *sim, uint64_t line, uint32_t ctx)
{
    return ms_sim_access(sim, 0, line * LINE, 8, RD, ctx);
}

static int write_line(ms_sim *sim, uint64_t line, uint32_t ctx)
{
    return ms_sim_access(sim, 0, line * LINE, 8, WR, ctx);
}

/* 2-way set: A B A C B -> A, B, C cold; A hits; C evicts B (LRU); B misses as a conflict. */
static void test_lru_order_in_one_set(void)
{
    ms_sim *sim = sim_from_text("L1=256:2:64:0;mem=10"); /* 2 sets x 2 ways */
    uint64_t a = 0, b = 2, c = 4;                        /* all in set 0 */
    CHECK_EQ_INT(read_line(sim, a, 0), 1);
    CHECK_EQ_INT(read_line(sim, b, 0), 1);
    CHECK_EQ_INT(read_line(sim, a, 0), 0);
    CHECK_EQ_INT(read_line(sim, c, 0), 1);
    CHECK_EQ_INT(read_line(sim, b, 0), 1);
    CHECK_EQ_INT(read_line(sim, a, 0), 1); /* B evicted A (A was LRU after C) */
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->reads, 6);
    CHECK_EQ(k->level[0].read_misses, 5);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 3);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 2); /* the 4-line shadow holds all three */
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 0);
    CHECK_EQ(k->stall_read, 50);
    ms_sim_destroy(sim);
}

/* Direct-mapped, 16 lines: two lines of one set alternating are conflicts; a cycle over 17
 * lines (more than the cache holds) gives capacity misses. */
static void test_conflict_versus_capacity(void)
{
    ms_sim *sim = sim_from_text("L1=1K:1:64:0;mem=50");
    for (int i = 0; i < 10; i++) {
        read_line(sim, 0, 0);
        read_line(sim, 16, 0);
    }
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->level[0].read_misses, 20);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 2);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 18);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 0);
    ms_sim_destroy(sim);

    sim = sim_from_text("L1=1K:1:64:0;mem=50");
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t line = 0; line <= 16; line++) read_line(sim, line, 0);
    k = ctx_counters(sim, 0);
    /* Passes 2 and 3: lines 0 and 16 evict each other, lines 1..15 hit. */
    CHECK_EQ(k->level[0].read_misses, 17 + 2 + 2);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 17);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 4);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 0);
    ms_sim_destroy(sim);
}

/* 100 distinct lines, twice, through L1 (16 lines) and L2 (64 lines): each level counts each
 * line cold exactly once; the second pass is capacity at both levels. */
static void test_cold_once_per_line_per_level(void)
{
    ms_sim *sim = sim_from_text("L1=1K:1:64:1,L2=4K:4:64:5;mem=20");
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t line = 0; line < 100; line++) CHECK_EQ_INT(read_line(sim, line, 0), 2);
    const ms_counters *k = ctx_counters(sim, 0);
    for (int level = 0; level < 2; level++) {
        CHECK_EQ(k->level[level].read_misses, 200);
        CHECK_EQ(k->level[level].cause[MS_CAUSE_COLD], 100);
        CHECK_EQ(k->level[level].cause[MS_CAUSE_CAPACITY], 100);
        CHECK_EQ(k->level[level].cause[MS_CAUSE_CONFLICT], 0);
    }
    CHECK_EQ(k->stall_read, 200 * 19);
    ms_sim_destroy(sim);
}

/* Writes allocate in L1 dirty; evicting a dirty L1 line writes it back into L2 (present:
 * marked dirty; absent: allocated dirty, evicting in turn). */
static void test_write_allocate_and_writebacks(void)
{
    /* L1: 2 lines direct-mapped; L2: 8 sets x 2 ways. Lines 0 and 2 share L1 set 0. */
    ms_sim *sim = sim_from_text("L1=128:1:64:0,L2=1K:2:64:10;mem=100");
    CHECK_EQ_INT(write_line(sim, 0, 0), 2); /* A: cold everywhere, dirty in L1 */
    CHECK_EQ_INT(write_line(sim, 2, 0), 2); /* C evicts dirty A -> writeback 1 into L2 */
    CHECK_EQ_INT(read_line(sim, 0, 0), 1);  /* A from L2; dirty C -> writeback 2 */
    CHECK_EQ_INT(read_line(sim, 0, 0), 0);
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->writes, 2);
    CHECK_EQ(k->reads, 2);
    CHECK_EQ(k->level[0].write_misses, 2);
    CHECK_EQ(k->level[0].read_misses, 1);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 1);
    CHECK_EQ(k->level[1].write_misses, 2);
    CHECK_EQ(k->level[1].read_misses, 0);
    CHECK_EQ(k->level[1].writebacks, 2);
    CHECK_EQ(k->level[0].writebacks, 0);
    CHECK_EQ(k->stall_write, 200);
    CHECK_EQ(k->stall_read, 10);
    ms_sim_destroy(sim);

    /* L1: 4 sets direct-mapped; L2: 2 sets x 2 ways. X = line 1 (L1 set 1, L2 set 1). */
    sim = sim_from_text("L1=256:1:64:0,L2=256:2:64:10;mem=100");
    write_line(sim, 1, 0);                 /* X dirty in L1, clean in L2 */
    read_line(sim, 3, 0);                  /* L2 set 1: 3, 1 */
    read_line(sim, 7, 0);                  /* L2 evicts X (clean): 7, 3 */
    CHECK_EQ_INT(read_line(sim, 5, 0), 2); /* L1 evicts dirty X: allocated dirty in L2 */
    k = ctx_counters(sim, 0);
    CHECK_EQ(k->level[1].writebacks, 1);
    CHECK_EQ_INT(read_line(sim, 1, 0), 1); /* X is in L2 again, without a reference */
    CHECK_EQ(k->level[1].read_misses + k->level[1].write_misses, 4);
    ms_sim_destroy(sim);
}

/* Three levels: L2 sees only L1 misses, L3 only L2 misses; stall = served latency - L1's. */
static void test_three_levels(void)
{
    ms_sim *sim = sim_from_text("L1=128:1:64:2,L2=512:1:64:10,L3=2K:2:64:30;mem=100");
    static const uint64_t stream[] = { 0, 0, 1, 2, 3, 0, 1, 2, 3 };
    static const int served[] = { 3, 0, 3, 3, 3, 1, 1, 1, 1 };
    for (int i = 0; i < 9; i++) CHECK_EQ_INT(read_line(sim, stream[i], 0), served[i]);
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->reads, 9);
    CHECK_EQ(k->level[0].read_misses, 8);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 4);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 4);
    CHECK_EQ(k->level[1].read_misses, 4);
    CHECK_EQ(k->level[1].cause[MS_CAUSE_COLD], 4);
    CHECK_EQ(k->level[2].read_misses, 4);
    CHECK_EQ(k->level[2].cause[MS_CAUSE_COLD], 4);
    CHECK_EQ(k->stall_read, 4 * (100 - 2) + 4 * (10 - 2));
    ms_sim_destroy(sim);

    /* Two levels: the L2 serves the L1 conflict misses. */
    sim = sim_from_text("L1=1K:1:64:4,L2=8K:2:64:14;mem=200");
    for (int i = 0; i < 5; i++) {
        read_line(sim, 0, 0);
        read_line(sim, 16, 0);
    }
    k = ctx_counters(sim, 0);
    CHECK_EQ(k->level[0].read_misses, 10);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 8);
    CHECK_EQ(k->level[1].read_misses, 2);
    CHECK_EQ(k->level[1].cause[MS_CAUSE_COLD], 2);
    CHECK_EQ(k->stall_read, 2 * 196 + 8 * 10);
    ms_sim_destroy(sim);
}

/* The memspy92 preset: one direct-mapped level, every miss stalls 50 cycles. */
static void test_memspy92_stall(void)
{
    ms_hier_config cfg;
    char err[200];
    CHECK_EQ_INT(ms_config_preset("memspy92", &cfg, err, sizeof err), 0);
    ms_allocator a = test_allocator(&default_heap);
    ms_sim *sim = NULL;
    CHECK_EQ_INT(ms_sim_create(&sim, &cfg, &a), 0);
    for (uint64_t line = 0; line < 1000; line++) ms_sim_access(sim, 0, line * 64 + 8, 4, line % 3 == 0 ? WR : RD, 0);
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->writes, 334);
    CHECK_EQ(k->reads, 666);
    CHECK_EQ(k->stall_write, 334 * 50);
    CHECK_EQ(k->stall_read, 666 * 50);
    ms_sim_destroy(sim);
}

typedef struct {
    ms_eviction seen[8];
    int n;
} eviction_log;

static void log_eviction(const ms_eviction *e, void *ud)
{
    eviction_log *log = ud;
    if (log->n < 8) log->seen[log->n] = *e;
    log->n++;
}

/* ctx 1 streams A, ctx 2 evicts it, ctx 1 re-reads: the pair (1, 2, L1) counts each re-read. */
static void test_eviction_attribution(void)
{
    ms_sim *sim = sim_from_text("L1=1K:1:64:0;mem=50");
    for (int round = 0; round < 3; round++) {
        for (uint64_t line = 0; line < 4; line++) read_line(sim, line, 1);
        for (uint64_t line = 16; line < 20; line++) read_line(sim, line, 2);
    }
    eviction_log log = { .n = 0 };
    ms_sim_each_eviction(sim, log_eviction, &log);
    CHECK_EQ_INT(log.n, 2);
    CHECK_EQ(log.seen[0].victim_ctx, 1);
    CHECK_EQ(log.seen[0].evictor_ctx, 2);
    CHECK_EQ(log.seen[0].level, 0);
    CHECK_EQ(log.seen[0].count, 8); /* rounds 2 and 3, four lines each */
    CHECK_EQ(log.seen[1].victim_ctx, 2);
    CHECK_EQ(log.seen[1].evictor_ctx, 1);
    CHECK_EQ(log.seen[1].count, 8);
    uint32_t n = 0;
    ms_sim_counters(sim, &n);
    CHECK_EQ(n, 3);
    CHECK_EQ(ctx_counters(sim, 0)->reads, 0);
    CHECK_EQ(ctx_counters(sim, 1)->level[0].cause[MS_CAUSE_COLD], 4);
    CHECK_EQ(ctx_counters(sim, 1)->level[0].cause[MS_CAUSE_CONFLICT], 8);
    ms_sim_destroy(sim);
}

/* A straddling access is one reference; the cause comes from the first missing line and the
 * stall is the larger of the two lines'. */
static void test_straddling_access(void)
{
    ms_sim *sim = sim_from_text("L1=1K:1:64:1,L2=4K:4:64:10;mem=100");
    CHECK_EQ_INT(ms_sim_access(sim, 0, 60, 8, RD, 0), 2); /* lines 0 and 1, both cold */
    CHECK_EQ_INT(ms_sim_access(sim, 0, 60, 8, RD, 0), 0);
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->reads, 2);
    CHECK_EQ(k->level[0].read_misses, 1);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 1);
    CHECK_EQ(k->level[1].read_misses, 1);
    CHECK_EQ(k->stall_read, 99);

    read_line(sim, 4, 1);
    read_line(sim, 20, 1); /* ctx 1 evicts line 4 from L1 */
    /* Lines 4 (L1 conflict miss, L2 hit) and 5 (cold, from memory). */
    CHECK_EQ_INT(ms_sim_access(sim, 0, 5 * 64 - 4, 8, RD, 3), 2);
    k = ctx_counters(sim, 3);
    CHECK_EQ(k->reads, 1);
    CHECK_EQ(k->level[0].read_misses, 1);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CONFLICT], 1);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 0);
    CHECK_EQ(k->level[1].read_misses, 1);
    CHECK_EQ(k->level[1].cause[MS_CAUSE_COLD], 1);
    CHECK_EQ(k->stall_read, 99);
    eviction_log log = { .n = 0 };
    ms_sim_each_eviction(sim, log_eviction, &log);
    CHECK_EQ_INT(log.n, 1);
    CHECK_EQ(log.seen[0].victim_ctx, 3);
    CHECK_EQ(log.seen[0].evictor_ctx, 1);
    CHECK_EQ(log.seen[0].count, 1);
    ms_sim_destroy(sim);
}

/* A range is one reference per touched line. */
static void test_range_access(void)
{
    ms_sim *sim = sim_from_text("L1=1K:1:64:0;mem=50");
    ms_sim_access_range(sim, 0, 32, 200, WR, 0); /* bytes 32..231: lines 0..3 */
    const ms_counters *k = ctx_counters(sim, 0);
    CHECK_EQ(k->writes, 4);
    CHECK_EQ(k->level[0].write_misses, 4);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 4);
    CHECK_EQ(k->stall_write, 200);
    ms_sim_access_range(sim, 0, 64, 64, RD, 0);  /* exactly line 1: one hit */
    ms_sim_access_range(sim, 0, 4096, 0, RD, 0); /* empty */
    CHECK_EQ(k->reads, 1);
    CHECK_EQ(k->level[0].read_misses, 0);
    ms_sim_destroy(sim);
}

/* Totals sum contexts; ms_sim_memory matches the allocator; destroy releases everything;
 * allocation failures are reported, not crashed on. */
static void test_totals_memory_and_oom(void)
{
    test_heap heap = { 0, -1 };
    ms_allocator a = test_allocator(&heap);
    ms_hier_config cfg;
    char err[200];
    CHECK_EQ_INT(ms_config_preset("x86", &cfg, err, sizeof err), 0);
    ms_sim *sim = NULL;
    CHECK_EQ_INT(ms_sim_create(&sim, &cfg, &a), 0);
    for (uint32_t ctx = 0; ctx < 40; ctx++)
        for (uint64_t i = 0; i < 1000; i++) ms_sim_access(sim, 0, (i * 7919 + ctx * 1000003) * 8, 8, i & 1, ctx);
    ms_counters total;
    ms_sim_totals(sim, &total);
    CHECK_EQ(total.reads + total.writes, 40000);
    uint64_t causes = 0;
    for (int c = 0; c < MS_NCAUSES; c++) causes += total.level[0].cause[c];
    CHECK_EQ(causes, total.level[0].read_misses + total.level[0].write_misses);
    CHECK_EQ(ms_sim_memory(sim), heap.outstanding);
    ms_sim_destroy(sim);
    CHECK_EQ(heap.outstanding, 0);

    ms_hier_config broken = cfg;
    broken.level[1].line = 48;
    sim = (ms_sim *)&heap;
    CHECK_EQ_INT(ms_sim_create(&sim, &broken, &a), -1);
    CHECK(sim == NULL);
    CHECK_EQ(heap.outstanding, 0);

    /* Budgets from none to a few allocations past creation: creation fails cleanly, then a
     * created simulator runs out of memory for counters, records and pairs. */
    int created = 0;
    for (long budget = 0; budget < 24; budget++) {
        test_heap small = { 0, budget };
        ms_allocator sa = test_allocator(&small);
        ms_sim *s = NULL;
        int rc = ms_sim_create(&s, &cfg, &sa);
        if (rc == 0) {
            created++;
            int served = ms_sim_access(s, 0, 4096, 8, RD, 5);
            CHECK(served == -1 || served == 3);
            ms_sim_destroy(s);
        } else {
            CHECK(s == NULL);
        }
        CHECK_EQ(small.outstanding, 0);
    }
    CHECK(created > 2); /* the loop reaches past creation (each part allocated adds one) */
}

/* Not a check: prints the cost of an L1-hit-dominated stream for the record. */
static void bench_l1_hits(void)
{
    ms_sim *sim = sim_from_text("L1=32K:8:64:4:lru,L2=1M:16:64:14:lru,L3=2M:16:64:50:lru;mem=200");
    const uint64_t n = 20000000;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = 0; i < n; i++) /* 16 KB working set, 8-byte stride: mostly same-line */
        ms_sim_access(sim, 0, 0x10000 + (i * 8 & 0x3fff), 8, (unsigned)(i & 1), (uint32_t)(i & 3));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t i = 0; i < n; i++) /* same set of lines, one new line per access */
        ms_sim_access(sim, 0, 0x10000 + ((i * 64 * 37) & 0x3fff), 8, RD, 0);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns2 = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
    fprintf(stderr, "bench: sequential L1 hits %.2f ns/access, line-hopping L1 hits %.2f ns/access\n", ns / (double)n,
            ns2 / (double)n);
    ms_sim_destroy(sim);
}

int main(void)
{
    test_lru_order_in_one_set();
    test_conflict_versus_capacity();
    test_cold_once_per_line_per_level();
    test_write_allocate_and_writebacks();
    test_three_levels();
    test_memspy92_stall();
    test_eviction_attribution();
    test_straddling_access();
    test_range_access();
    test_totals_memory_and_oom();
    if (getenv("MEMSPY_BENCH")) bench_l1_hits();
    CHECK_EQ(default_heap.outstanding, 0);
    return check_result();
}
