/* Spatial utilisation of L1 (docs/simulator.md, "Spatial utilisation"): the bytes of each
 * fetched L1 line used before it left L1, on synthetic streams with known answers, through
 * every path of the simulator (the one-processor LRU path with and without the hit window,
 * the general path of other policies, wider lines, straddling references, private L1s of a
 * multiprocessor). test_sim_psim checks that partitions merge to the same counters. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "sim/sim.h"
#include "sim_testutil.h"

#define ARRAY (64 * 1024) /* bytes walked: 64 times the 1 KiB L1, every line fetched once */

/* Reads of `size` bytes every `stride` bytes over ARRAY bytes at base by ctx on cpu. */
static void walk(ms_sim *sim, unsigned cpu, uint64_t base, uint32_t stride, uint32_t size, uint32_t ctx)
{
    for (uint64_t off = 0; off < ARRAY; off += stride) CHECK(ms_sim_access(sim, cpu, base + off, size, 0, ctx) >= 0);
}

/* After the walk and ms_sim_finish, context ctx (cpu 0) fetched ARRAY bytes and used `used`. */
static void expect(const char *config, int window, uint32_t stride, uint32_t size, uint64_t used)
{
    ms_sim *sim = sim_from_text(config);
    ms_sim_set_window(sim, window);
    walk(sim, 0, 1u << 20, stride, size, 1);
    walk(sim, 0, 1u << 20, stride, size, 1); /* again: every line is fetched a second time */
    ms_sim_finish(sim);
    const ms_counters *c = ctx_counters(sim, 1);
    CHECK_EQ(c->l1_fetched_bytes, 2ull * ARRAY);
    CHECK_EQ(c->l1_used_bytes, 2ull * used);
    ms_sim_finish(sim); /* idempotent */
    CHECK_EQ(ctx_counters(sim, 1)->l1_used_bytes, 2ull * used);
    if (stride == 16 && size == 8 && !strstr(config, ":128:")) /* 8 of every 16 bytes of each line */
        CHECK_EQ(ctx_counters(sim, 1)->l1_ref_bits, 0x00ff00ff00ff00ffull);
    ms_sim_destroy(sim);
}

static void strides(void)
{
    static const char *const configs[] = {
        "L1=1K:2:64:1,L2=8K:8:64:10;mem=100;util=1",      /* the one-processor LRU path */
        "L1=1K:8:64:1,L2=8K:16:64:10;mem=100;util=1",     /* ... its 8/16-way instance */
        "L1=1K:4:64:1:plru,L2=8K:8:64:10;mem=100;util=1", /* the general path */
        "L1=1K:16:64:1;mem=100;util=1",                   /* one set */
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        for (int window = 0; window <= 1; window++) {
            expect(configs[i], window, 16, 8, ARRAY / 2); /* stride 16, 8 bytes: 50% */
            expect(configs[i], window, 8, 8, ARRAY);      /* every byte: 100% */
            expect(configs[i], window, 64, 8, ARRAY / 8); /* one double a line: 12.5% */
            expect(configs[i], window, 4, 1, ARRAY / 4);  /* a byte in four: 25% */
            expect(configs[i], window, 64, 64, ARRAY);    /* whole lines */
        }
    /* Lines of 128 bytes: granules of 2 bytes; one byte every 16 counts its granule. */
    expect("L1=2K:2:128:1;mem=100;util=1", 1, 16, 1, ARRAY / 8);
    expect("L1=2K:2:128:1;mem=100;util=1", 0, 16, 8, ARRAY / 2);
}

/* The line's used bytes go to the context whose miss fetched it, whoever used them; a
 * reference straddling two lines uses bytes of both. */
static void attribution_and_straddles(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:1;mem=100;util=1");
    ms_sim_access(sim, 0, 4096, 8, 0, 1);      /* ctx 1 fetches the line */
    ms_sim_access(sim, 0, 4096 + 32, 8, 0, 2); /* ctx 2 uses 8 more bytes of it */
    ms_sim_access(sim, 0, 8192 + 60, 8, 0, 3); /* bytes 60..63 and 0..3 of two lines */
    ms_sim_access(sim, 0, 8192 + 62, 1, 0, 3); /* nothing new */
    ms_sim_finish(sim);
    CHECK_EQ(ctx_counters(sim, 1)->l1_fetched_bytes, 64);
    CHECK_EQ(ctx_counters(sim, 1)->l1_used_bytes, 16);
    CHECK_EQ(ctx_counters(sim, 2)->l1_fetched_bytes, 0);
    CHECK_EQ(ctx_counters(sim, 2)->l1_used_bytes, 0);
    CHECK_EQ(ctx_counters(sim, 3)->l1_fetched_bytes, 128);
    CHECK_EQ(ctx_counters(sim, 3)->l1_used_bytes, 8);
    /* the bytes each context referenced, by offset in the line: 0..7 and 32..39; 60..63 and 0..3 */
    CHECK_EQ(ctx_counters(sim, 1)->l1_ref_bits, 0xffull);
    CHECK_EQ(ctx_counters(sim, 2)->l1_ref_bits, 0xffull << 32);
    CHECK_EQ(ctx_counters(sim, 3)->l1_ref_bits, 0xf00000000000000full);
    ms_counters c = *ctx_counters(sim, 1);
    CHECK(ms_counters_utilisation(&c) == 0.25);
    ms_sim_destroy(sim);
}

/* Two processors with private L1s, each walking its own array: the same shares. */
static void multiprocessor(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0,L2=8K:4:64:10;mem=50;procs=2;util=1");
    walk(sim, 0, 1u << 20, 16, 8, 1);
    walk(sim, 1, 1u << 24, 32, 8, 2);
    ms_sim_finish(sim);
    unsigned np = ms_sim_nprocs(sim);
    uint32_t n = 0;
    const ms_counters *c = ms_sim_counters(sim, &n);
    CHECK_EQ(c[1 * np + 0].l1_fetched_bytes, ARRAY);
    CHECK_EQ(c[1 * np + 0].l1_used_bytes, ARRAY / 2);
    CHECK_EQ(c[2 * np + 1].l1_fetched_bytes, ARRAY);
    CHECK_EQ(c[2 * np + 1].l1_used_bytes, ARRAY / 4);
    ms_sim_destroy(sim);
}

/* A checksum of the replacement pairs, in the order given. */
static void pairs_sum(const ms_eviction *e, void *ud)
{
    uint64_t *sum = ud;
    *sum = *sum * 1000003u + ((uint64_t)e->victim_ctx << 40 ^ (uint64_t)e->evictor_ctx << 20 ^ e->level) + e->count;
}

/* Off (the default, no ";util=1"): the spatial counters stay 0 and every other counter and
 * replacement pair is the same as with utilisation on, on a random stream of reads, writes,
 * straddling references and several contexts, on every path (the _util instances do the
 * same simulation plus the masks). */
static void off_is_identical(void)
{
    static const char *const configs[] = {
        "L1=1K:2:64:1,L2=8K:8:64:10;mem=100",        "L1=2K:8:64:1,L2=8K:16:64:10,L3=16K:16:64:20;mem=100",
        "L1=1K:4:64:1:plru,L2=8K:8:64:10;mem=100",   "L1=1K:2:64:1:random,L2=4K:4:64:10;mem=100",
        "L1=1K:2:64:0,L2=8K:4:64:10;mem=50;procs=2",
    };
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++)
        for (int window = 0; window <= 1; window++) {
            char text[200];
            snprintf(text, sizeof text, "%s;util=1", configs[i]);
            ms_sim *off = sim_from_text(configs[i]), *on = sim_from_text(text);
            ms_sim_set_window(off, window);
            ms_sim_set_window(on, window);
            uint64_t x = 88172645463325252ull;
            for (int n = 0; n < 200000; n++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                uint64_t addr = (1u << 20) + ((x >> 8) & (n & 1 ? 0xfff : 0x7fff));
                uint32_t size = 1u << ((x >> 40) & 3), ctx = 1 + (uint32_t)((x >> 44) & 3);
                unsigned cpu = (unsigned)((x >> 50) % ms_sim_nprocs(off)), flags = x >> 60 & 1 ? MS_ACC_WRITE : 0;
                ms_sim_access(off, cpu, addr, size, flags, ctx);
                ms_sim_access(on, cpu, addr, size, flags, ctx);
            }
            ms_sim_finish(off);
            ms_sim_finish(on);
            uint32_t n1 = 0, n2 = 0;
            const ms_counters *c1 = ms_sim_counters(off, &n1), *c2 = ms_sim_counters(on, &n2);
            CHECK_EQ(n1, n2);
            uint64_t fetched = 0;
            for (uint32_t k = 0; k < n1 && k < n2; k++) {
                ms_counters a = c1[k], b = c2[k];
                CHECK_EQ(a.l1_fetched_bytes, 0);
                CHECK_EQ(a.l1_used_bytes, 0);
                CHECK_EQ(a.l1_ref_bits, 0);
                CHECK(b.l1_used_bytes <= b.l1_fetched_bytes);
                fetched += b.l1_fetched_bytes;
                b.l1_fetched_bytes = b.l1_used_bytes = b.l1_ref_bits = 0;
                if (memcmp(&a, &b, sizeof a) != 0) {
                    fprintf(stderr, "%s window %d: counters %u differ with utilisation on\n", configs[i], window, k);
                    CHECK(0);
                }
            }
            CHECK(fetched > 0);
            uint64_t p1 = 0, p2 = 0;
            ms_sim_each_eviction(off, pairs_sum, &p1);
            ms_sim_each_eviction(on, pairs_sum, &p2);
            CHECK(p1 != 0);
            CHECK_EQ(p1, p2);
            ms_sim_destroy(off);
            ms_sim_destroy(on);
        }
}

int main(void)
{
    strides();
    attribution_and_straddles();
    multiprocessor();
    off_is_identical();
    return check_result();
}
