/* The hierarchy: looks references up level by level, fills write-allocate, writes dirty
 * victims back, classifies misses with the 3C rule, attributes replacements to the evicting
 * context and keeps counters per context. See sim.h and docs/simulator.md for the model.
 * With more than one processor ms_sim_access hands over to coherence.c, which walks each
 * processor's view of the hierarchy with the same functions. ms_sim_create chooses once what
 * ms_sim_access runs: the specialised one-processor LRU path (uni_lru.c) where it applies,
 * else the general path here (ms_sim_access_any). */
#include <string.h>

#include "sim_internal.h"

/* The record pointer of every way of c (one-processor LRU hierarchies: uni_lru.c), none yet. */
static int alloc_recs(ms_cache *c, ms_mem *mem)
{
    uint64_t ways = (c->set_mask + 1) * c->ways;
    c->recs = ms_mem_alloc(mem, (size_t)ways * sizeof *c->recs);
    if (!c->recs) return -1;
    c->recs_bytes = (size_t)ways * sizeof *c->recs;
    for (uint64_t i = 0; i < ways; i++) c->recs[i] = NULL;
    return 0;
}

int ms_sim_create(ms_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc)
{
    return ms_sim_create_part(out, cfg, alloc, 1);
}

int ms_sim_create_part(ms_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc, uint32_t shadow_div)
{
    *out = NULL;
    if (!shadow_div || !alloc || !alloc->alloc || !alloc->release || ms_config_validate(cfg, NULL, 0) != 0) return -1;
    ms_mem mem = { *alloc, 0 };
    ms_sim *sim = ms_mem_alloc(&mem, sizeof *sim);
    if (!sim) return -1;
    sim->mem = mem;
    sim->cfg = *cfg;
    sim->nlevels = cfg->nlevels;
    sim->nprocs = cfg->nprocs > 1 ? cfg->nprocs : 1;
    sim->shadow_div = shadow_div;
    sim->l1_shift = ms_log2u(cfg->level[0].line);
    sim->evictor_limit = MS_META_EVICTOR_MASK;
    sim->util = cfg->utilisation != 0;
    sim->access = sim->util ? ms_sim_access_any_util : ms_sim_access_any;
    ms_pairs_init(&sim->pairs, &sim->mem);
    /* With coherence sim->cache holds only the shared levels (coherence.c keeps the private
     * ones); its L1 slot is then marked unusable, which keeps ms_sim_access's fast path off. */
    int first_shared = sim->nprocs == 1 ? 0 : cfg->shared_from ? cfg->shared_from : cfg->nlevels;
    sim->cache[0].policy = MS_POLICY_NONE;
    int ok = 1;
    for (int k = 0; k < cfg->nlevels; k++) {
        const ms_level_config *lv = &cfg->level[k];
        sim->line_shift[k] = ms_log2u(lv->line);
        sim->meta_shift[k] = sim->line_shift[k] - sim->l1_shift;
        sim->stall[k] = lv->latency - cfg->level[0].latency;
        if (ok && k >= first_shared &&
            ms_level_init(&sim->cache[k], &sim->fa[k], lv, (unsigned)k, shadow_div, sim->util, &sim->mem) != 0)
            ok = 0;
        sim->view0.cache[k] = &sim->cache[k];
        sim->view0.fa[k] = &sim->fa[k];
        sim->view0.held_word[k] = (uint16_t)k;
        sim->view0.fa_word[k] = (uint16_t)(cfg->nlevels + k);
    }
    sim->stall[cfg->nlevels] = cfg->mem_latency - cfg->level[0].latency;
    sim->gran_shift = sim->l1_shift > 6 ? sim->l1_shift - 6 : 0;
    if (ok && sim->nprocs > 1) {
        ok = ms_coh_create(sim) == 0; /* sets up the records' layout itself */
    } else {
        if (ms_linemeta_init(&sim->meta, 2u * (unsigned)cfg->nlevels, &sim->mem) != 0) ok = 0;
        ok = ok && ms_window_init(&sim->win, cfg, &sim->mem) == 0;
        if (ok && sim->win.max >= sim->fa[0].capacity) { /* fewer lines than the shadow holds */
            sim->win.max = sim->fa[0].capacity ? sim->fa[0].capacity - 1 : 0;
            sim->win.on = sim->win.on && sim->win.max >= 2;
        }
        sim->win_allowed = sim->win.on;
        sim->uni_lru = ms_uni_lru_applies(cfg);
        for (int k = 0; ok && sim->uni_lru && k < cfg->nlevels; k++) { /* ms_cache.recs */
            ok = alloc_recs(&sim->cache[k], &sim->mem) == 0;
            /* Below L1 no fast path reads way 0: lines stay in their ways (uni_lru.c). */
            if (k > 0) sim->cache[k].policy = MS_POLICY_IN_PLACE;
        }
    }
    if (!ok) {
        ms_sim_destroy(sim);
        return -1;
    }
    if (sim->uni_lru) {
        sim->access = sim->util ? ms_uni_access_util : ms_uni_access;
        sim->uni_inline = !sim->util;
        ms_uni_lru_select(sim);
    }
    if (sim->coh) ms_coh_select_access(sim);
    *out = sim;
    return 0;
}

int ms_level_init(ms_cache *c, ms_fa *fa, const ms_level_config *lv, unsigned k, uint32_t shadow_div, int util,
                  ms_mem *mem)
{
    uint64_t lines = lv->size / lv->line / shadow_div;
    /* L1 keeps each line's shadow node next to its way (the hit path's shadow update), and with
     * utilisation its used mask and owner. */
    if (ms_cache_init(c, lv, k, k == 0 ? 1 + (util != 0) : 0, mem) != 0) return -1;
    return ms_fa_init_unkeyed(fa, (uint32_t)(lines ? lines : 1), mem);
}

void ms_level_free(ms_cache *c, ms_fa *fa, ms_mem *mem)
{
    ms_cache_free(c, mem);
    ms_fa_free(fa, mem);
}

void ms_sim_destroy(ms_sim *sim)
{
    if (!sim) return;
    ms_coh_destroy(sim);
    ms_window_free(&sim->win, &sim->mem);
    for (int k = 0; k < sim->nlevels; k++) ms_level_free(&sim->cache[k], &sim->fa[k], &sim->mem);
    ms_linemeta_free(&sim->meta);
    ms_mem_release(&sim->mem, sim->ctrs, (size_t)sim->ctx_cap * sim->nprocs * sizeof(ms_counters));
    ms_pairs_free(&sim->pairs);
    ms_mem mem = sim->mem;
    ms_mem_release(&mem, sim, sizeof *sim);
}

int ms_ensure_ctx(ms_sim *sim, uint32_t ctx)
{
    if (ctx == UINT32_MAX) return -1;
    if (ctx >= sim->ctx_cap) {
        uint64_t cap = sim->ctx_cap ? sim->ctx_cap : 16;
        while (cap <= ctx) cap *= 2;
        if (cap > UINT32_MAX) cap = UINT32_MAX;
        size_t row = sim->nprocs * sizeof(ms_counters);
        ms_counters *ctrs = ms_mem_alloc(&sim->mem, (size_t)cap * row);
        if (!ctrs) return -1;
        if (sim->nctx) memcpy(ctrs, sim->ctrs, (size_t)sim->nctx * row);
        ms_mem_release(&sim->mem, sim->ctrs, (size_t)sim->ctx_cap * row);
        sim->ctrs = ctrs;
        sim->ctx_cap = (uint32_t)cap;
    }
    if (ctx >= sim->nctx) sim->nctx = ctx + 1;
    return 0;
}

/* ---- the hierarchy ---- */

/* The record of level's line (that of its first L1 line), or the zeroed stand-in record that
 * means "nothing known" when out of memory (held and evictor information is then lost and
 * the shadow may hold the line twice: the numbers degrade, nothing breaks).
 * Shadow nodes: L1 keeps a line's node next to its way while the line is in L1 (it is
 * written back to the record on eviction); otherwise, and for every lower level, it is in
 * the line's record. Every shadow reference of a level goes through that place, so it is
 * right whenever the shadow holds the line. */
uint32_t *ms_line_record(ms_sim *sim, int level, uint64_t line)
{
    return ms_linemeta_lookup(&sim->meta, line << sim->meta_shift[level]);
}

static void fill_level(ms_sim *sim, const ms_view *v, int level, uint64_t line, uint32_t *rec, unsigned dirty,
                       uint32_t ctx, ms_counters *c);

/* A dirty line from level-1 (byte address addr) arrives at level: counted, not a reference. */
void ms_write_back(ms_sim *sim, const ms_view *v, int level, uint64_t addr, uint32_t ctx, ms_counters *c)
{
    if (level >= sim->nlevels) return; /* memory absorbs it */
    c->level[level].writebacks++;
    uint64_t line = addr >> sim->line_shift[level];
    if (!ms_cache_mark_dirty(v->cache[level], line))
        fill_level(sim, v, level, line, ms_line_record(sim, level, line), MS_TAG_DIRTY, ctx, c);
}

void ms_write_back_fill(ms_sim *sim, int level, uint64_t line, uint32_t ctx, ms_counters *c)
{
    fill_level(sim, &sim->view0, level, line, ms_line_record(sim, level, line), MS_TAG_DIRTY, ctx, c);
}

/* Put line (record rec) into level, recording that the level held it (clearing an
 * invalidation mark) and who evicted the victim; an L1 victim's shadow node goes back to its
 * record. */
static void fill_level(ms_sim *sim, const ms_view *v, int level, uint64_t line, uint32_t *rec, unsigned dirty,
                       uint32_t ctx, ms_counters *c)
{
    uint32_t victim_node;
    uint64_t victim = ms_cache_fill(v->cache[level], line, dirty, rec[v->fa_word[0]], &victim_node);
    uint32_t *held = &rec[v->held_word[level]];
    *held = (*held | MS_META_HELD | sim->present_mark) & ~sim->inval_mark;
    if (level == 0 && v->cache[0]->used) ms_used_fill(sim, v->cache[0], c);
    ms_cache *cache = v->cache[level];
    if (cache->recs) cache->recs[cache->filled] = rec; /* (L1's line size: rec is the line's) */
    if (victim == MS_TAG_EMPTY) return;
    uint64_t victim_line = victim >> 1;
    uint32_t *victim_rec = cache->recs ? ms_victim_record(&sim->meta, cache->gone_rec, victim_line)
                                       : ms_line_record(sim, level, victim_line);
    uint32_t evictor = ctx < sim->evictor_limit ? ctx + 1 : 0;
    /* Stores only (the victim's record is seldom in the host's cache): the level held the
     * victim, so its held bit is set already; its present mark goes. */
    victim_rec[v->held_word[level]] = MS_META_HELD | evictor;
    if (level == 0) victim_rec[v->fa_word[0]] = victim_node;
    if (victim & MS_TAG_DIRTY) ms_write_back(sim, v, level + 1, victim_line << sim->line_shift[level], ctx, c);
}

/* Cause of a miss at level of a line whose held/evictor word is `word`; fa_hit says whether
 * the shadow held it. */
static inline __attribute__((always_inline)) void classify_miss_t(const ms_sim *sim, int level, uint32_t word,
                                                                  int fa_hit, ms_line_outcome *out, int coh)
{
    if (!(word & MS_META_HELD)) {
        out->cause[level] = MS_CAUSE_COLD;
        out->evictor[level] = 0;
    } else if (word & (coh ? MS_META_INVAL : sim->inval_mark)) {
        out->cause[level] = MS_CAUSE_INVAL;
        out->evictor[level] = 0;
    } else {
        out->cause[level] = fa_hit ? MS_CAUSE_CONFLICT : MS_CAUSE_CAPACITY;
        out->evictor[level] = word & (coh ? MS_META_PRESENT - 1 : sim->evictor_limit);
    }
}

static void classify_miss(const ms_sim *sim, int level, uint32_t word, int fa_hit, ms_line_outcome *out)
{
    classify_miss_t(sim, level, word, fa_hit, out, 0);
}

/* The L1 miss path of one line (byte address addr): reference the L1 shadow, look up the
 * lower levels, classify every miss, then fill from the serving level upwards. One record
 * lookup serves all levels when their lines are the same size. Returns the serving level. */
int ms_simulate_miss(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                     ms_line_outcome *out)
{
    int n = sim->nlevels, k;
    uint64_t line[MS_MAX_LEVELS];
    uint32_t *rec[MS_MAX_LEVELS];
    line[0] = addr >> sim->l1_shift;
    rec[0] = ms_line_record(sim, 0, line[0]);
    int fa_hit = ms_fa_touch(v->fa[0], line[0], &rec[0][v->fa_word[0]]);
    classify_miss(sim, 0, rec[0][v->held_word[0]], fa_hit, out);
    for (k = 1; k < n; k++) {
        line[k] = addr >> sim->line_shift[k];
        rec[k] = sim->meta_shift[k] ? ms_line_record(sim, k, line[k]) : rec[0];
        /* With coherence a record says whether the level holds the line (MS_META_PRESENT):
         * a level that does not is not searched (the stand-in record knows nothing). */
        int absent = !(rec[k][v->held_word[k]] & sim->present_mark) && sim->present_mark &&
                     !ms_linemeta_is_stand_in(&sim->meta, rec[k]);
        int hit = !absent && ms_cache_lookup(v->cache[k], line[k], 0) >= 0;
        fa_hit = ms_fa_touch(v->fa[k], line[k], &rec[k][v->fa_word[k]]);
        if (hit) break;
        classify_miss(sim, k, rec[k][v->held_word[k]], fa_hit, out);
    }
    out->served = k;
    for (int j = k - 1; j >= 0; j--) fill_level(sim, v, j, line[j], rec[j], j == 0 ? write : 0, ctx, c);
    return k;
}

/* fill_level for a level that is LRU with an order word and has L1's line size (rec is then
 * the record of line and of its victim's kind), without utilisation: the set update in line
 * (ms_cache_fill's order-word case), the record bookkeeping as fill_level's. x86: a constant 1
 * in ms_simulate_miss_lru3, whose caller is the coherent path (the marks are constants, L1
 * alone has aux words). */
static inline __attribute__((always_inline)) void fill_lru(ms_sim *sim, const ms_view *v, int level, uint64_t line,
                                                           uint32_t *rec, unsigned dirty, uint32_t ctx, ms_counters *c,
                                                           int x86)
{
    ms_cache *cache = v->cache[level];
    uint64_t base;
    uint32_t way;
    uint64_t victim = ms_lru_fill_front(cache, line, dirty, cache->ways, &base, &way);
    uint32_t victim_node = 0;
    if (x86 ? level == 0 : cache->aux != NULL) {
        victim_node = cache->aux[base + way];
        cache->aux[base + way] = cache->aux[base];
        cache->aux[base] = rec[v->fa_word[0]];
    }
    cache->filled = base;
    uint32_t *held = &rec[v->held_word[level]];
    if (x86)
        *held = (*held | MS_META_HELD | MS_META_PRESENT) & ~MS_META_INVAL;
    else
        *held = (*held | MS_META_HELD | sim->present_mark) & ~sim->inval_mark;
    if (victim == MS_TAG_EMPTY) return;
    uint64_t victim_line = victim >> 1;
    uint32_t *victim_rec = ms_linemeta_lookup(&sim->meta, victim_line);
    uint32_t limit = x86 ? MS_META_PRESENT - 1 : sim->evictor_limit;
    uint32_t evictor = ctx < limit ? ctx + 1 : 0;
    victim_rec[v->held_word[level]] = MS_META_HELD | evictor;
    if (level == 0) victim_rec[v->fa_word[0]] = victim_node;
    if (victim & MS_TAG_DIRTY) ms_write_back(sim, v, level + 1, victim_line << sim->l1_shift, ctx, c);
}

/* ms_simulate_miss_lru's walk; n: sim->nlevels, a constant 3 in the three-level instance
 * (ms_simulate_miss_lru3, the coherent COH_X86 path's: the marks are then constants). */
static inline __attribute__((always_inline)) int simulate_miss_lru_t(ms_sim *sim, const ms_view *v, uint64_t addr,
                                                                     unsigned write, uint32_t ctx, ms_counters *c,
                                                                     ms_line_outcome *out, int n)
{
    int k;
    uint64_t line = addr >> sim->l1_shift;
    uint32_t *rec = ms_linemeta_lookup(&sim->meta, line);
    int fa_hit = ms_fa_touch(v->fa[0], line, &rec[v->fa_word[0]]);
    int x86 = n == 3; /* a constant: the instance */
    uint32_t present = x86 ? MS_META_PRESENT : sim->present_mark;
    classify_miss_t(sim, 0, rec[v->held_word[0]], fa_hit, out, x86);
    int known = !ms_linemeta_is_stand_in(&sim->meta, rec) && present;
    for (k = 1; k < n; k++) {
        /* a level whose record says it does not hold the line is not searched */
        int absent = known && !(rec[v->held_word[k]] & present);
        int hit = !absent && ms_lru_lookup(v->cache[k], line, 0) >= 0;
        fa_hit = ms_fa_touch(v->fa[k], line, &rec[v->fa_word[k]]);
        if (hit) break;
        classify_miss_t(sim, k, rec[v->held_word[k]], fa_hit, out, x86);
    }
    out->served = k;
    for (int j = k - 1; j >= 0; j--) fill_lru(sim, v, j, line, rec, j == 0 ? write : 0, ctx, c, x86);
    return k;
}

int ms_simulate_miss_lru(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                         ms_line_outcome *out)
{
    return simulate_miss_lru_t(sim, v, addr, write, ctx, c, out, sim->nlevels);
}

int ms_simulate_miss_lru3(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                          ms_line_outcome *out)
{
    return simulate_miss_lru_t(sim, v, addr, write, ctx, c, out, 3);
}

/* Add one reference's misses, replacement pairs and stall to its counters. */
static void commit(ms_sim *sim, uint32_t ctx, ms_counters *c, unsigned write, const ms_line_outcome *o)
{
    ms_commit_misses(sim, ctx, c, write, o);
    ms_count_stall(c, write, sim->stall[o->served]);
    sim->stall_cycles += sim->stall[o->served];
}

void ms_merge_outcome(ms_line_outcome *merged, const ms_line_outcome *o)
{
    for (int k = merged->served; k < o->served; k++) {
        merged->cause[k] = o->cause[k];
        merged->evictor[k] = o->evictor[k];
    }
    if (o->served > merged->served) merged->served = o->served;
}

/* A reference spanning L1 lines first..last: each line is looked up; a level counts one miss
 * if any line missed there (cause and evictor from the first missing line); the serving level
 * is the deepest one. */
static int simulate_lines(ms_sim *sim, uint64_t first, uint64_t last, uint64_t addr, uint32_t size, unsigned write,
                          uint32_t ctx)
{
    ms_line_outcome merged = { 0, { 0 }, { 0 } };
    ms_counters *c = &sim->ctrs[ctx];
    for (uint64_t line = first;; line++) {
        ms_line_outcome o;
        if (sim->util) sim->cur_bits = ms_used_bits(sim, line, addr, size);
        o.served = ms_simulate_line(sim, &sim->view0, &sim->cache[0], &sim->fa[0], line << sim->l1_shift, write, ctx, c,
                                    &o, sim->util);
        ms_merge_outcome(&merged, &o);
        if (line == last) break;
    }
    commit(sim, ctx, c, write, &merged);
    return merged.served;
}

/* Count one reference of ctx (known) as a read or a write. */
static inline void count_reference(ms_sim *sim, uint32_t ctx, unsigned write)
{
    ms_count_reference(&sim->ctrs[ctx], write);
}

/* The rest of an L1 hit in way 0 whose line is not the L1 shadow's MRU line: update the
 * shadow (its node index is kept at where) and count. Out of line and tail-called, so the
 * fast path of ms_sim_access stays a leaf that saves no registers. */
__attribute__((noinline)) static int front_hit_shadow(ms_sim *sim, uint64_t line, uint32_t *where, uint32_t ctx,
                                                      unsigned write)
{
    ms_fa_touch(&sim->fa[0], line, where);
    count_reference(sim, ctx, write);
    return 0;
}

/* Everything but the fast path of ms_sim_access: other processors (coherence.c), new
 * contexts, L1 misses, non-MRU hits, non-LRU L1 policies and straddling references; util a
 * constant in each instance (access_general_plain, access_general_util). */
static inline __attribute__((always_inline)) int access_general_t(ms_sim *sim, unsigned cpu, uint64_t addr,
                                                                  uint32_t size, unsigned flags, uint32_t ctx, int util)
{
    if (sim->coh) return ms_coh_access(sim, cpu, addr, size, flags, ctx);
    if (cpu != 0) return -1;
    unsigned write = flags & MS_TAG_DIRTY;
    if (ctx >= sim->nctx && ms_ensure_ctx(sim, ctx) != 0) return -1;
    count_reference(sim, ctx, write);
    uint64_t first = addr >> sim->l1_shift;
    if (util) sim->cur_bits = ms_used_bits(sim, first, addr, size);
    uint64_t last = (addr + (size ? size - 1 : 0)) >> sim->l1_shift;
    if (first == last && sim->uni_lru) return ms_uni_lru_line(sim, first, write, ctx, &sim->ctrs[ctx]);
    if (first == last) {
        ms_line_outcome o;
        if (ms_simulate_line(sim, &sim->view0, &sim->cache[0], &sim->fa[0], addr, write, ctx, &sim->ctrs[ctx], &o,
                             util) == 0)
            return 0;
        commit(sim, ctx, &sim->ctrs[ctx], write, &o);
        return o.served;
    }
    if (last < first) /* wrapped around the address space: keep the first line only */
        last = first;
    return simulate_lines(sim, first, last, addr, size, write, ctx);
}

__attribute__((noinline)) static int access_general_plain(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                          unsigned flags, uint32_t ctx)
{
    return access_general_t(sim, cpu, addr, size, flags, ctx, 0);
}

__attribute__((noinline)) static int access_general_util(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                         unsigned flags, uint32_t ctx)
{
    return access_general_t(sim, cpu, addr, size, flags, ctx, 1);
}

/* The instance for sim (a test of sim->util where the caller has no constant). */
static int access_general(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return sim->util ? access_general_util(sim, cpu, addr, size, flags, ctx)
                     : access_general_plain(sim, cpu, addr, size, flags, ctx);
}

/* ms_sim_access without the window; util: keep the used masks (a constant in each instance). */
static inline __attribute__((always_inline)) int
access_unfiltered(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx, int util)
{
    uint64_t line = addr >> sim->l1_shift;
    /* Fast path: processor 0 of one (with coherence processor 0's L1 is not sim->cache[0],
     * whose policy is then MS_POLICY_NONE), a known context, one line, found in the MRU way
     * of an LRU L1 set. MS_POLICY_LRU is 0: policy | cpu is 0 only for cpu 0 of an LRU L1. */
    if (__builtin_expect(ctx < sim->nctx && ((addr + size - 1) >> sim->l1_shift) == line &&
                             ((unsigned)sim->cache[0].policy | cpu) == MS_POLICY_LRU,
                         1)) {
        ms_cache *l1 = &sim->cache[0];
        uint64_t base = (line & l1->set_mask) * l1->ways;
        uint64_t *set = l1->tags + base;
        if (__builtin_expect((set[0] >> 1) == line, 1)) {
            unsigned write = flags & MS_TAG_DIRTY; /* MS_ACC_WRITE == MS_TAG_DIRTY */
            set[0] |= write;
            if (util) l1->used[base] |= ms_used_bits_in(sim, addr, size);
            if (line != sim->fa[0].mru_line) return front_hit_shadow(sim, line, l1->aux + base, ctx, write);
            count_reference(sim, ctx, write);
            return 0;
        }
    }
    return util ? access_general_util(sim, cpu, addr, size, flags, ctx)
                : access_general_plain(sim, cpu, addr, size, flags, ctx);
}

/* Close the window and apply its operations. */
static void close_window(ms_sim *sim)
{
    uint32_t n = ms_window_close(&sim->win);
    ms_sim_window_ops(sim, sim->win.ops, n);
}

/* What the window's fast path does not take: a new context (made, then the reference goes
 * through the window), or a reference straddling two lines (the window is closed first: its
 * full simulation may reorder lines of the window). */
__attribute__((noinline)) static int window_other(ms_sim *sim, uint64_t addr, uint32_t size, unsigned flags,
                                                  uint32_t ctx)
{
    if (ctx >= sim->nctx && ms_ensure_ctx(sim, ctx) != 0) return -1;
    uint64_t line = addr >> sim->l1_shift;
    if (((addr + (size ? size - 1 : 0)) >> sim->l1_shift) == line) return ms_sim_access(sim, 0, addr, size, flags, ctx);
    close_window(sim);
    return access_general(sim, 0, addr, size, flags, ctx);
}

int ms_sim_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    if (sim->uni_inline) return ms_uni_access_inline(sim, cpu, addr, size, flags, ctx);
    return sim->access(sim, cpu, addr, size, flags, ctx); /* chosen by ms_sim_create */
}

/* ms_sim_access_any and ms_sim_access_any_util: util is a constant in each. */
static inline __attribute__((always_inline)) int access_any(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                            unsigned flags, uint32_t ctx, int util)
{
    if (!sim->win.on || cpu != 0) return access_unfiltered(sim, cpu, addr, size, flags, ctx, util);
    /* The window (window.h): a reference it counts is an L1 hit and only counts. */
    uint64_t line = addr >> sim->l1_shift;
    if (__builtin_expect(ctx < sim->nctx && ((addr + size - 1) >> sim->l1_shift) == line, 1)) {
        unsigned write = flags & MS_TAG_DIRTY;
        int r = ms_window_ref(&sim->win, line, write, util ? ms_used_bits_in(sim, addr, size) : 0);
        if (r < 0) {
            count_reference(sim, ctx, write);
            return 0;
        }
        if (r > 0) ms_sim_window_ops(sim, sim->win.ops, (uint32_t)r);
        return access_unfiltered(sim, 0, addr, size, flags, ctx, util);
    }
    return window_other(sim, addr, size, flags, ctx);
}

int ms_sim_access_any(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return access_any(sim, cpu, addr, size, flags, ctx, 0);
}

int ms_sim_access_any_util(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    int r = access_any(sim, cpu, addr, size, flags, ctx, 1);
    if (ctx < sim->nctx && cpu < sim->nprocs) /* (made by the access if new) */
        sim->ctrs[(size_t)ctx * sim->nprocs + cpu].l1_ref_bits |= ms_ref_bits(sim, addr, size);
    return r;
}

void ms_sim_set_window(ms_sim *sim, int on)
{
    close_window(sim);
    sim->win.pause = 0;
    sim->win.strikes = 0;
    sim->win.on = on && sim->win_allowed;
}

int ms_sim_count(ms_sim *sim, uint32_t ctx, uint64_t reads, uint64_t writes)
{
    if (ctx >= sim->nctx && ms_ensure_ctx(sim, ctx) != 0) return -1;
    sim->ctrs[(size_t)ctx * sim->nprocs].reads += reads;
    sim->ctrs[(size_t)ctx * sim->nprocs].writes += writes;
    return 0;
}

void ms_sim_access_range(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags, uint32_t ctx)
{
    if (len == 0) return;
    uint64_t line_bytes = 1ull << sim->l1_shift;
    uint64_t end = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1; /* inclusive */
    for (uint64_t a = addr;;) {
        uint64_t line_end = a | (line_bytes - 1);
        uint64_t stop = line_end < end ? line_end : end;
        if (ms_sim_access(sim, cpu, a, (uint32_t)(stop - a + 1), flags, ctx) < 0) return;
        if (stop == end) return;
        a = stop + 1;
    }
}

const ms_counters *ms_sim_counters(const ms_sim *sim, uint32_t *n)
{
    *n = sim->nctx * sim->nprocs;
    return sim->ctrs;
}

unsigned ms_sim_nprocs(const ms_sim *sim) { return sim->nprocs; }

uint64_t ms_sim_comm_refs(const ms_sim *sim) { return sim->comm_refs; }

void ms_sim_next_region(ms_sim *sim)
{
    if (sim->coh) ms_coh_next_region(sim);
}

void ms_used_flush(ms_sim *sim, ms_cache *l1)
{
    if (!l1->used) return;
    uint64_t ways = (l1->set_mask + 1) * l1->ways;
    for (uint64_t i = 0; i < ways; i++) {
        if (l1->tags[i] == MS_TAG_EMPTY) continue;
        ms_credit_used(sim, l1->used[i], l1->owner[i]);
        l1->used[i] = 0;
    }
}

void ms_sim_finish(ms_sim *sim)
{
    close_window(sim);
    ms_used_flush(sim, &sim->cache[0]); /* no used masks there when L1 is private */
    if (sim->coh) ms_coh_finish(sim);
}

double ms_counters_utilisation(const ms_counters *c)
{
    return c->l1_fetched_bytes ? (double)c->l1_used_bytes / (double)c->l1_fetched_bytes : 0.0;
}

static void add_u64s(uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) a[i] += b[i];
}

void ms_counters_add(ms_counters *a, const ms_counters *b)
{
#define MS_COUNTER(member, exp, csv, event, desc) a->member += b->member;
#define MS_MP_COUNTER(member) a->member += b->member;
#define MS_SPATIAL_COUNTER(member) a->member += b->member;
    a->l1_ref_bits |= b->l1_ref_bits;
#define MS_INVAL_COUNTER(member) a->inval.member += b->inval.member;
#include "counters.def"
    for (int k = 0; k < MS_MAX_LEVELS; k++) {
        ms_level_counters *x = &a->level[k];
        const ms_level_counters *y = &b->level[k];
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) x->member += y->member;
#define MS_LEVEL_CAUSES add_u64s(x->cause, y->cause, MS_NCAUSES);
#include "counters.def"
    }
    add_u64s(a->pattern, b->pattern, MS_NPATTERNS);
}

void ms_sim_totals(const ms_sim *sim, ms_counters *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < sim->nctx * sim->nprocs; i++) ms_counters_add(out, &sim->ctrs[i]);
}

typedef struct {
    void (*fn)(const ms_eviction *e, void *ud);
    void *ud;
} eviction_visit;

static void visit_eviction(const ms_pair *p, void *ud)
{
    const eviction_visit *visit = ud;
    ms_eviction e = { p->key[1], p->key[2], p->key[0], p->count };
    visit->fn(&e, visit->ud);
}

void ms_sim_each_eviction(const ms_sim *sim, void (*fn)(const ms_eviction *e, void *ud), void *ud)
{
    eviction_visit visit = { fn, ud };
    ms_pairs_each(&sim->pairs, visit_eviction, &visit);
}

void ms_sim_each_invalidation(const ms_sim *sim, void (*fn)(const ms_invalidation *e, void *ud), void *ud)
{
    if (sim->coh) ms_coh_each_invalidation(sim, fn, ud);
}

const ms_hier_config *ms_sim_config(const ms_sim *sim) { return &sim->cfg; }

size_t ms_sim_memory(const ms_sim *sim) { return sim->mem.bytes; }
