/* The specialised one-processor path: a reference within one L1 line on a hierarchy whose
 * levels are all LRU with an order word (at most 16 ways) and all have L1's line size (every
 * preset). ms_sim_create chooses it once; it does exactly what
 * the general path (sim.c: ms_simulate_line, ms_simulate_miss, fill_level, commit) does for
 * such a hierarchy, in the same order, with the configuration's tests taken out: one record
 * serves every level, no coherence marks, no policy dispatch, straight-line set updates.
 * Lower levels are only looked at on a miss, and keep their lines in place (MS_POLICY_IN_PLACE:
 * a hit or a fill writes the order word and one way); their writeback fills go through the
 * general code. */
#include "sim_internal.h"

/* The helpers below take the level's number of ways as an argument: a constant in the
 * instances for the presets' geometries (uni_line_*), so that searches unroll. U (0 or 1, a
 * constant in every instance) says whether spatial utilisation is kept (cfg.utilisation: the
 * _util instances); without it no used mask or owner is touched. */
#define INLINE static inline __attribute__((always_inline))

/* A hit in way w > 0 of set set_no: the line moves to way 0, the old front line to way w. */
INLINE void lru_promote(ms_cache *c, uint64_t set_no, uint64_t *set, uint32_t w, unsigned dirty, uint32_t ways)
{
    uint64_t tag = set[w] | dirty;
    uint8_t *fp = c->fp + set_no * ways;
    uint8_t f = fp[w];
    uint32_t **recs = c->recs + set_no * ways, *rec = recs[w];
    recs[w] = recs[0];
    recs[0] = rec;
    c->order[set_no] = ms_order_promote(c->order[set_no], ms_order_position(c->order[set_no], w), w);
    set[w] = set[0];
    set[0] = tag;
    fp[w] = fp[0];
    fp[0] = f;
}

/* Look line up in a lower level (in place, MS_POLICY_IN_PLACE): 1 on a hit, its way now the
 * most recent in the order word; the line, its fingerprint and record stay where they are. */
INLINE int lower_lookup(ms_cache *c, uint64_t line, uint32_t ways)
{
    uint64_t set_no = line & c->set_mask;
    int w = ms_cache_find_ways(c, set_no, line, ways);
    if (w < 0) return 0;
    uint64_t order = c->order[set_no];
    c->order[set_no] = ms_order_to_front(order, ms_order_position(order, (uint32_t)w), (uint32_t)w);
    return 1;
}

/* A dirty victim of level k - 1 arrives at level k (of `ways` ways; memory when k == n):
 * ms_write_back in line, the level's set searched here, a fill through the general code. */
INLINE void write_back(ms_sim *sim, int k, uint64_t line, uint32_t ctx, ms_counters *c, uint32_t ways, int n)
{
    if (k >= n || k >= MS_MAX_LEVELS) return; /* memory absorbs it */
    c->level[k].writebacks++;
    ms_cache *cache = &sim->cache[k];
    uint64_t set_no = line & cache->set_mask;
    int w = ms_cache_find_ways(cache, set_no, line, ways);
    if (w >= 0)
        cache->tags[set_no * ways + (uint32_t)w] |= MS_TAG_DIRTY; /* recency unchanged */
    else
        ms_write_back_fill(sim, k, line, ctx, c);
}

/* Fill line (absent) into level k as its set's front line, evicting the least recent way; the
 * record bookkeeping of fill_level in sim.c. n is the number of levels (a record holds n
 * held/evictor words, then n shadow nodes). */
INLINE void lru_fill(ms_sim *sim, int k, uint64_t line, uint32_t *rec, unsigned dirty, uint32_t ctx, ms_counters *c,
                     uint32_t ways, uint32_t next_ways, int n, int U)
{
    ms_cache *cache = &sim->cache[k];
    uint64_t base;
    uint32_t way;
    uint64_t victim;
    uint32_t *victim_rec;
    if (k == 0) { /* L1: the new line in way 0 (the hit path's compare), the front line moves */
        victim = ms_lru_fill_front(cache, line, dirty, ways, &base, &way);
        uint32_t **recs = cache->recs + base;
        victim_rec = recs[way];
        recs[way] = recs[0];
        recs[0] = rec;
    } else { /* in place: the new line takes the least recent way, nothing else moves */
        uint64_t set_no = line & cache->set_mask;
        base = set_no * ways;
        uint64_t order = cache->order[set_no];
        way = (uint32_t)(order >> (4 * (ways - 1))) & 15u;
        cache->order[set_no] = ms_order_to_front(order, ways - 1, way);
        victim = cache->tags[base + way];
        cache->tags[base + way] = (line << 1) | dirty;
        cache->fp[base + way] = ms_line_fp(line);
        victim_rec = cache->recs[base + way];
        cache->recs[base + way] = rec;
    }
    uint32_t victim_node = 0;
    if (k == 0) {
        uint32_t *aux = cache->aux + base;
        victim_node = aux[way];
        aux[way] = aux[0];
        aux[0] = rec[n];
    }
    if (k == 0 && U) {
        uint32_t *owner = cache->owner + base;
        uint64_t *used = cache->used + base;
        if (victim != MS_TAG_EMPTY) ms_credit_used(sim, used[way], owner[way]);
        used[way] = used[0];
        owner[way] = owner[0];
        used[0] = sim->cur_bits;
        owner[0] = ctx; /* one processor: the counters index is ctx */
        c->l1_fetched_bytes += 1ull << sim->l1_shift;
    }
    rec[k] |= MS_META_HELD;
    if (victim == MS_TAG_EMPTY) return;
    uint64_t victim_line = victim >> 1;
    victim_rec = ms_victim_record(&sim->meta, victim_rec, victim_line);
    victim_rec[k] = MS_META_HELD | (ctx < MS_META_EVICTOR_MASK ? ctx + 1 : 0);
    if (k == 0) victim_rec[n] = victim_node;
    if (victim & MS_TAG_DIRTY) write_back(sim, k + 1, victim_line, ctx, c, next_ways, n);
}

/* A miss's cause at a level from the line's held/evictor word and whether the shadow held it. */
INLINE void classify(uint32_t word, int fa_hit, int *cause, uint32_t *evictor)
{
    if (!(word & MS_META_HELD)) {
        *cause = MS_CAUSE_COLD;
        *evictor = 0;
    } else {
        *cause = fa_hit ? MS_CAUSE_CONFLICT : MS_CAUSE_CAPACITY;
        *evictor = word & MS_META_EVICTOR_MASK;
    }
}

/* Count a miss at level k with the given cause and evictor word (commit_misses in sim.c). */
INLINE void count_miss(ms_sim *sim, ms_counters *c, int k, unsigned write, uint32_t ctx, int cause, uint32_t evictor)
{
    ms_level_counters *lc = &c->level[k];
    if (write)
        lc->write_misses++;
    else
        lc->read_misses++;
    lc->cause[cause]++;
    if (cause != MS_CAUSE_COLD && evictor) ms_pairs_count(&sim->pairs, (uint32_t)k, ctx, evictor - 1, 0);
}

/* Everything but an L1 hit in way 0 (ms_uni_access), for n levels of w0, w1, w2 ways. */
INLINE int uni_line_t(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c, int n, uint32_t w0,
                      uint32_t w1, uint32_t w2, int U)
{
    ms_cache *l1 = &sim->cache[0];
    uint64_t set_no = line & l1->set_mask;
    uint64_t base = set_no * w0;
    uint64_t *set = l1->tags + base;
    int w = ms_cache_find_ways(l1, set_no, line, w0); /* (mostly called once way 0 missed) */
    if (w >= 0) {
        if (w > 0) {
            uint32_t *aux = l1->aux + base;
            uint32_t a = aux[w];
            lru_promote(l1, set_no, set, (uint32_t)w, write, w0);
            aux[w] = aux[0];
            aux[0] = a;
            if (U) {
                uint32_t *owner = l1->owner + base, o = owner[w];
                uint64_t *used = l1->used + base, u = used[w];
                owner[w] = owner[0];
                owner[0] = o;
                used[w] = used[0];
                used[0] = u;
            }
        } else {
            set[0] |= write;
        }
        if (U) l1->used[base] |= sim->cur_bits;
        ms_fa_touch(&sim->fa[0], line, l1->aux + base);
        return 0;
    }

    /* The L1 miss: classify every missing level from the line's one record (in the order of
     * the general path: each level's lookup, then its shadow), then fill from the serving
     * level upwards, then count. */
    uint32_t *rec = ms_linemeta_lookup(&sim->meta, line);
    int cause[MS_MAX_LEVELS] = { 0 };
    uint32_t evictor[MS_MAX_LEVELS] = { 0 };
    int k = 1;
    classify(rec[0], ms_fa_touch(&sim->fa[0], line, &rec[n]), &cause[0], &evictor[0]);
    if (n > 1) {
        int hit = lower_lookup(&sim->cache[1], line, w1);
        int fa_hit = ms_fa_touch(&sim->fa[1], line, &rec[n + 1]);
        if (!hit) {
            classify(rec[1], fa_hit, &cause[1], &evictor[1]);
            k = 2;
            if (n > 2) {
                hit = lower_lookup(&sim->cache[2], line, w2);
                fa_hit = ms_fa_touch(&sim->fa[2], line, &rec[n + 2]);
                if (!hit) {
                    classify(rec[2], fa_hit, &cause[2], &evictor[2]);
                    k = 3;
                }
            }
        }
    }
    if (k > 2) lru_fill(sim, 2, line, rec, 0, ctx, c, w2, 1, n, U);
    if (k > 1) lru_fill(sim, 1, line, rec, 0, ctx, c, w1, w2, n, U);
    lru_fill(sim, 0, line, rec, write, ctx, c, w0, w1, n, U);
    count_miss(sim, c, 0, write, ctx, cause[0], evictor[0]);
    if (k > 1) count_miss(sim, c, 1, write, ctx, cause[1], evictor[1]);
    if (k > 2) count_miss(sim, c, 2, write, ctx, cause[2], evictor[2]);
    ms_count_stall(c, write, sim->stall[k]);
    sim->stall_cycles += sim->stall[k];
    return k;
}

/* The instances: any geometry the path applies to, and the presets' (x86: 8/16/16 ways,
 * x86-l2 and cachegrind: 8/16), each without and with utilisation (U). */
#define UNI_LINE_INSTANCES(SUFFIX, U)                                                                             \
    static int uni_line_any##SUFFIX(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c)     \
    {                                                                                                             \
        int n = sim->nlevels;                                                                                     \
        return uni_line_t(sim, line, write, ctx, c, n, sim->cache[0].ways, n > 1 ? sim->cache[1].ways : 1,        \
                          n > 2 ? sim->cache[2].ways : 1, U);                                                     \
    }                                                                                                             \
    static int uni_line_8_16##SUFFIX(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c)    \
    {                                                                                                             \
        return uni_line_t(sim, line, write, ctx, c, 2, 8, 16, 1, U);                                              \
    }                                                                                                             \
    static int uni_line_8_16_16##SUFFIX(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c) \
    {                                                                                                             \
        return uni_line_t(sim, line, write, ctx, c, 3, 8, 16, 16, U);                                             \
    }
UNI_LINE_INSTANCES(, 0)
UNI_LINE_INSTANCES(_util, 1)

void ms_uni_lru_select(ms_sim *sim)
{
    uint32_t w[MS_MAX_LEVELS] = { 0 };
    for (int k = 0; k < sim->nlevels; k++) w[k] = sim->cache[k].ways;
    int u = sim->util;
    sim->uni_line = u ? uni_line_any_util : uni_line_any;
    if (sim->nlevels == 2 && w[0] == 8 && w[1] == 16)
        sim->uni_line = u ? uni_line_8_16_util : uni_line_8_16;
    else if (sim->nlevels == 3 && w[0] == 8 && w[1] == 16 && w[2] == 16)
        sim->uni_line = u ? uni_line_8_16_16_util : uni_line_8_16_16;
}

int ms_uni_lru_line(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c)
{
    return sim->uni_line(sim, line, write, ctx, c);
}

/* An L1 hit in way 0 whose line is not the shadow's MRU line (kept out of uni_access and
 * ms_uni_access_inline so that their common paths save no registers). */
__attribute__((noinline)) int ms_uni_shadow_hit(ms_sim *sim, uint64_t line, uint32_t *where)
{
    ms_fa *fa = &sim->fa[0];
    uint32_t n = *where; /* the line is not the MRU one: the caller checked */
    if (__builtin_expect(n < fa->capacity && fa->nodes[n].line == line, 1))
        ms_fa_move_to_front(fa, n);
    else
        ms_fa_touch(fa, line, where);
    return 0;
}

/* After the window (or with none): L1's way 0, the shadow's MRU line, else the rest. */
INLINE int uni_l1(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c, uint64_t bits, int U)
{
    ms_cache *l1 = &sim->cache[0];
    uint64_t base = (line & l1->set_mask) * l1->ways;
    uint64_t *set = l1->tags + base;
    if (__builtin_expect((set[0] >> 1) != line, 0)) {
        if (U) sim->cur_bits = bits;
        return sim->uni_line(sim, line, write, ctx, c);
    }
    set[0] |= write;
    if (U) l1->used[base] |= bits;
    if (line != sim->fa[0].mru_line) return ms_uni_shadow_hit(sim, line, l1->aux + base);
    return 0;
}

/* ms_uni_access (U 0) and ms_uni_access_util (U 1). */
INLINE int uni_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx, int U)
{
    uint64_t line = addr >> sim->l1_shift;
    if (__builtin_expect(cpu != 0 || ctx >= sim->nctx || ((addr + size - 1) >> sim->l1_shift) != line, 0))
        return U ? ms_sim_access_any_util(sim, cpu, addr, size, flags, ctx)
                 : ms_sim_access_any(sim, cpu, addr, size, flags, ctx);
    unsigned write = flags & MS_TAG_DIRTY; /* MS_ACC_WRITE == MS_TAG_DIRTY */
    ms_counters *c = &sim->ctrs[ctx];
    uint64_t bits = U ? ms_used_bits_in(sim, addr, size) : 0;
    if (U) c->l1_ref_bits |= bits;
    if (sim->win.on) {
        int r = ms_window_ref(&sim->win, line, write, bits);
        if (r > 0) ms_sim_window_ops(sim, sim->win.ops, (uint32_t)r);
        ms_count_reference(c, write);
        if (r < 0) /* an L1 hit the window counts */
            return 0;
    } else {
        ms_count_reference(c, write);
    }
    return uni_l1(sim, line, write, ctx, c, bits, U);
}

int ms_uni_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return uni_access(sim, cpu, addr, size, flags, ctx, 0);
}

int ms_uni_access_util(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return uni_access(sim, cpu, addr, size, flags, ctx, 1);
}

int ms_uni_lru_applies(const ms_hier_config *cfg)
{
    if (cfg->nprocs > 1) return 0;
    for (int k = 0; k < cfg->nlevels; k++) {
        const ms_level_config *lv = &cfg->level[k];
        if (lv->policy != MS_POLICY_LRU || lv->ways > MS_ORDER_MAX_WAYS || lv->line != cfg->level[0].line) return 0;
    }
    return 1;
}
