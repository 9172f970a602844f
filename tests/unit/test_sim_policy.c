/* Replacement policies (LRU vs tree-PLRU vs deterministic random) and the private building
 * blocks: the fully associative LRU shadow against a brute-force model, and linemeta. */
#include <stdint.h>
#include <stdlib.h>

#include "sim/sim_internal.h"
#include "sim_testutil.h"

static int read_line(ms_sim *sim, uint64_t line) { return ms_sim_access(sim, 0, line * 64, 8, 0, 0); }

/* One 4-way set, stream A B C D A E B C. LRU: E evicts B, B evicts C -> 7 misses.
 * PLRU: after A the tree points at C, so E evicts C, B hits, C misses -> 6 misses. */
static void test_plru_versus_lru(void)
{
    static const uint64_t stream[] = { 0, 1, 2, 3, 0, 4, 1, 2 };
    static const int lru_served[] = { 1, 1, 1, 1, 0, 1, 1, 1 };
    static const int plru_served[] = { 1, 1, 1, 1, 0, 1, 0, 1 };
    ms_sim *lru = sim_from_text("L1=256:4:64:0:lru;mem=10");
    ms_sim *plru = sim_from_text("L1=256:4:64:0:plru;mem=10");
    for (int i = 0; i < 8; i++) {
        CHECK_EQ_INT(read_line(lru, stream[i]), lru_served[i]);
        CHECK_EQ_INT(read_line(plru, stream[i]), plru_served[i]);
    }
    const ms_counters *k = ctx_counters(lru, 0);
    CHECK_EQ(k->level[0].read_misses, 7);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 5);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 2);
    k = ctx_counters(plru, 0);
    CHECK_EQ(k->level[0].read_misses, 6);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_COLD], 5);
    CHECK_EQ(k->level[0].cause[MS_CAUSE_CAPACITY], 1);
    ms_sim_destroy(lru);
    ms_sim_destroy(plru);

    /* 8-way PLRU, one set: after filling ways 0..7 in order, the victim is way 0; touching
     * way 0 moves the victim to way 4 (the other half of the tree). */
    plru = sim_from_text("L1=512:8:64:0:plru;mem=10");
    for (uint64_t line = 0; line < 8; line++) read_line(plru, line);
    read_line(plru, 0);
    read_line(plru, 8); /* evicts line 4 */
    CHECK_EQ_INT(read_line(plru, 0), 0);
    CHECK_EQ_INT(read_line(plru, 3), 0);
    CHECK_EQ_INT(read_line(plru, 5), 0);
    CHECK_EQ_INT(read_line(plru, 4), 1);
    ms_sim_destroy(plru);
}

static uint64_t lcg(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static void test_random_is_deterministic(void)
{
    const char *cfg = "L1=4K:4:64:1:random,L2=16K:8:64:10:random;mem=100";
    ms_sim *a = sim_from_text(cfg), *b = sim_from_text(cfg),
           *lru = sim_from_text("L1=4K:4:64:1:lru,L2=16K:8:64:10:lru;mem=100");
    uint64_t seed = 42;
    for (int i = 0; i < 200000; i++) {
        uint64_t line = lcg(&seed) % 600; /* 600 distinct lines at most */
        unsigned flags = (unsigned)(lcg(&seed) & 1);
        int sa = ms_sim_access(a, 0, line * 64, 8, flags, 0);
        int sb = ms_sim_access(b, 0, line * 64, 8, flags, 0);
        ms_sim_access(lru, 0, line * 64, 8, flags, 0);
        if (sa != sb) {
            CHECK_EQ_INT(sa, sb);
            break;
        }
    }
    const ms_counters *ka = ctx_counters(a, 0), *kb = ctx_counters(b, 0), *kl = ctx_counters(lru, 0);
    for (int level = 0; level < 2; level++) {
        CHECK_EQ(ka->level[level].read_misses, kb->level[level].read_misses);
        CHECK_EQ(ka->level[level].write_misses, kb->level[level].write_misses);
        CHECK_EQ(ka->level[level].writebacks, kb->level[level].writebacks);
        CHECK_EQ(ka->level[level].cause[MS_CAUSE_COLD], 600); /* each line once per level */
        CHECK_EQ(kl->level[level].cause[MS_CAUSE_COLD], 600);
    }
    CHECK_EQ(ka->stall_read, kb->stall_read);
    CHECK(ka->level[0].read_misses != kl->level[0].read_misses); /* the policy does matter */
    ms_sim_destroy(a);
    ms_sim_destroy(b);
    ms_sim_destroy(lru);

    /* Random never evicts while a set has an empty way. */
    a = sim_from_text("L1=256:4:64:0:random;mem=10");
    for (int pass = 0; pass < 3; pass++)
        for (uint64_t line = 0; line < 4; line++) CHECK_EQ_INT(read_line(a, line), pass == 0 ? 1 : 0);
    ms_sim_destroy(a);
}

/* The shadow against a brute-force LRU list, including its hash deletions. */
static void test_fa_shadow_matches_brute_force(void)
{
    static const uint32_t capacities[] = { 1, 3, 8, 100 };
    for (int c = 0; c < 4; c++) {
        uint32_t cap = capacities[c];
        test_heap heap = { 0, -1 };
        ms_mem mem = { test_allocator(&heap), 0 };
        ms_fa fa;
        CHECK_EQ_INT(ms_fa_init(&fa, cap, &mem), 0);
        uint64_t model[100];
        uint32_t used = 0, hits = 0, model_hits = 0;
        uint64_t seed = cap;
        for (int i = 0; i < 50000; i++) {
            uint64_t line = lcg(&seed) % (cap * 2 + 3) * 977; /* sparse keys collide in the hash */
            uint32_t pos = used;
            for (uint32_t j = 0; j < used; j++)
                if (model[j] == line) pos = j;
            int model_hit = pos < used;
            if (!model_hit) pos = used < cap ? used++ : cap - 1; /* drop the LRU (last) entry */
            for (uint32_t j = pos; j > 0; j--) model[j] = model[j - 1];
            model[0] = line;
            int hit = ms_fa_access(&fa, line);
            hits += (uint32_t)hit;
            model_hits += (uint32_t)model_hit;
            if (hit != model_hit) {
                CHECK_EQ_INT(hit, model_hit);
                break;
            }
        }
        CHECK_EQ(hits, model_hits);
        CHECK(hits > 0);
        CHECK_EQ(mem.bytes, heap.outstanding);
        ms_fa_free(&fa, &mem);
        CHECK_EQ(heap.outstanding, 0);
    }
}

static void test_linemeta(void)
{
    test_heap heap = { 0, -1 };
    ms_mem mem = { test_allocator(&heap), 0 };
    ms_linemeta lm;
    ms_linemeta_init(&lm, 3, &mem);
    /* Keys spread over many chunks force several table doublings. */
    for (uint64_t i = 0; i < 5000; i++) {
        uint32_t *w = ms_linemeta_lookup(&lm, i * 1000003ull);
        CHECK(w != NULL);
        if (!w) break;
        CHECK_EQ(w[0] | w[1] | w[2], 0);
        w[0] = (uint32_t)i;
        w[2] = MS_META_HELD | 7u;
    }
    uint64_t bad = 0;
    for (uint64_t i = 0; i < 5000; i++) {
        uint32_t *w = ms_linemeta_lookup(&lm, i * 1000003ull);
        if (w[0] != (uint32_t)i || w[1] != 0 || w[2] != (MS_META_HELD | 7u)) bad++;
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(lm.nchunks, 5000);
    uint32_t *neighbour = ms_linemeta_lookup(&lm, 1); /* same chunk as key 0 */
    CHECK_EQ(neighbour[0], 0);
    CHECK_EQ(lm.nchunks, 5000);
    ms_linemeta_free(&lm);
    CHECK_EQ(heap.outstanding, 0);
}

int main(void)
{
    test_plru_versus_lru();
    test_random_is_deterministic();
    test_fa_shadow_matches_brute_force();
    test_linemeta();
    CHECK_EQ(default_heap.outstanding, 0);
    return check_result();
}
