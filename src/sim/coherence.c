/* The multiprocessor path of the simulator (nprocs > 1): per-processor private levels, shared
 * lower levels, an invalidation-based MESI/MSI directory per coherence unit, the ccSIM
 * classification of invalidations, local/remote misses and Carnival's access patterns.
 * Every processor walks its own view of the hierarchy with the functions of sim.c, so all
 * uniprocessor statistics (3C causes, evictors, writebacks, stall) stay per processor.
 * See docs/simulator.md, "Multiprocessor". */
#include <string.h>

#include "coherence.h"

/* Processor p's private level k is private_cache[p * s + k]; shared levels are sim->cache. */
static void setup_view(ms_sim *sim, ms_coherence *coh, unsigned p)
{
    unsigned n = (unsigned)sim->nlevels, s = (unsigned)coh->shared_from, np = sim->nprocs;
    ms_view *v = &coh->views[p];
    for (unsigned k = 0; k < n; k++) {
        if (k < s) {
            v->cache[k] = &coh->private_cache[p * s + k];
            v->fa[k] = &coh->private_fa[p * s + k];
        } else {
            v->cache[k] = &sim->cache[k];
            v->fa[k] = &sim->fa[k];
        }
        /* Record layout: per processor 2s words (held words, shadow nodes of the private
         * levels), then 2(n - s) words of the shared levels. */
        if (k < s) {
            v->held_word[k] = (uint16_t)(p * 2 * s + k);
            v->fa_word[k] = (uint16_t)(p * 2 * s + s + k);
        } else {
            v->held_word[k] = (uint16_t)(np * 2 * s + (k - s));
            v->fa_word[k] = (uint16_t)(np * 2 * s + (n - s) + (k - s));
        }
    }
    coh->proc[p].l1 = v->cache[0];
    coh->proc[p].fa = v->fa[0];
}

int ms_coh_create(ms_sim *sim)
{
    const ms_hier_config *cfg = &sim->cfg;
    unsigned np = sim->nprocs, n = (unsigned)cfg->nlevels;
    ms_coherence *coh = ms_mem_alloc(&sim->mem, sizeof *coh);
    if (!coh) return -1;
    sim->coh = coh;
    sim->inval_mark = MS_META_INVAL;
    sim->present_mark = MS_META_PRESENT;
    sim->evictor_limit = MS_META_PRESENT - 1; /* ctx + 1 must stay below the marks */
    coh->shared_from = ms_config_shared_from(cfg);
    unsigned s = (unsigned)coh->shared_from;
    coh->unit_shift = ms_log2u(ms_config_coherence_unit(cfg));
    coh->granule_shift = coh->unit_shift > 6 ? coh->unit_shift - 6 : 0;
    coh->unit_is_line = 1;
    for (unsigned k = 0; k < s; k++) coh->unit_is_line &= sim->line_shift[k] == coh->unit_shift;
    coh->lru_lines = !sim->util;
    for (unsigned k = 0; k < n; k++)
        coh->lru_lines &= cfg->level[k].policy == MS_POLICY_LRU && cfg->level[k].ways <= MS_ORDER_MAX_WAYS &&
                          cfg->level[k].line == cfg->level[0].line;
    coh->x86 = coh->lru_lines && n == 3 && s == 2;
    coh->nnodes = cfg->nnodes > 1 ? cfg->nnodes : 1;
    coh->procs_per_node = (np + coh->nnodes - 1) / coh->nnodes;
    coh->remote_stall = ms_config_remote_latency(cfg) - cfg->level[0].latency;
    coh->mesi = cfg->protocol == MS_PROTO_MESI;
    ms_pairs_init(&coh->pairs, &sim->mem);

    unsigned words = 2 * s * np + 2 * (n - s);
    int ok = ms_linemeta_init(&sim->meta, words, &sim->mem) == 0;
    coh->dir_pending = DIR_PROCS + PROC_WORDS * (size_t)np;
    coh->dir_bytes = (coh->dir_pending + 2 * DIR_NPENDING) * sizeof(uint64_t);
    ok = ms_linemeta_init(&coh->dir, (unsigned)(coh->dir_bytes / sizeof(uint32_t)), &sim->mem) == 0 && ok;
    coh->private_cache_bytes = np * s * sizeof(ms_cache);
    coh->private_fa_bytes = np * s * sizeof(ms_fa);
    coh->private_cache = ms_mem_alloc(&sim->mem, coh->private_cache_bytes);
    coh->private_fa = ms_mem_alloc(&sim->mem, coh->private_fa_bytes);
    if (!ok || !coh->private_cache || !coh->private_fa) return -1;
    for (unsigned i = 0; i < np * s; i++) {
        const ms_level_config *lv = &cfg->level[i % s];
        if (ms_level_init(&coh->private_cache[i], &coh->private_fa[i], lv, i % s, sim->shadow_div, sim->util,
                          &sim->mem) != 0)
            return -1;
    }
    for (unsigned p = 0; p < np; p++) setup_view(sim, coh, p);
    return 0;
}

void ms_coh_destroy(ms_sim *sim)
{
    ms_coherence *coh = sim->coh;
    if (!coh) return;
    size_t nprivate = coh->private_cache_bytes / sizeof(ms_cache);
    for (size_t i = 0; coh->private_cache && coh->private_fa && i < nprivate; i++)
        ms_level_free(&coh->private_cache[i], &coh->private_fa[i], &sim->mem);
    ms_mem_release(&sim->mem, coh->private_cache, coh->private_cache_bytes);
    ms_mem_release(&sim->mem, coh->private_fa, coh->private_fa_bytes);
    ms_linemeta_free(&coh->dir);
    ms_pairs_free(&coh->pairs);
    ms_mem_release(&sim->mem, coh, sizeof *coh);
    sim->coh = NULL;
}

/* The directory record of unit (created zeroed), or the zeroed stand-in when out of memory
 * (the unit's coherence state is then forgotten: numbers degrade, nothing breaks). */
static uint64_t *dir_record(ms_coherence *coh, uint64_t unit)
{
    /* records are 8-byte aligned: even word counts */
    return (uint64_t *)(void *)ms_linemeta_lookup(&coh->dir, unit);
}

/* The directory record of unit accessed by processor p: a processor's consecutive accesses
 * mostly stay in one unit, so the record of its last one is kept at hand (never the stand-in
 * record, which must be zeroed for each use). */
static inline uint64_t *proc_dir_record(ms_coherence *coh, unsigned p, uint64_t unit)
{
    ms_coh_proc *pp = &coh->proc[p];
    if (pp->last_unit == unit + 1) return pp->last_dir;
    uint64_t *d = dir_record(coh, unit);
    pp->last_unit = !ms_linemeta_is_stand_in(&coh->dir, d) ? unit + 1 : 0;
    pp->last_dir = d;
    return d;
}

static inline ms_counters *row(ms_sim *sim, uint32_t ctx, unsigned cpu)
{
    return &sim->ctrs[(size_t)ctx * sim->nprocs + cpu];
}

static uint64_t granule_mask(const ms_coherence *coh, uint64_t lo, uint64_t hi)
{
    return ms_coh_granules(lo, hi, coh->unit_shift, coh->granule_shift);
}

/* ---- Carnival's access patterns: rounds of producers and consumers per unit ---- */

/* 1 if at most one bit of x is set (no popcount: the host may lack the instruction). */
static inline int at_most_one(uint64_t x) { return (x & (x - 1)) == 0; }

/* Classify the round's pending communication misses and start an empty round. closer is the
 * writing processor that closes it, or -1 (end of simulation: never migratory). */
static void round_close(ms_sim *sim, uint64_t *d, int closer)
{
    uint64_t producers = d[DIR_PRODUCERS], consumers = d[DIR_CONSUMERS];
    int np1 = at_most_one(producers), nc1 = at_most_one(consumers); /* at most one of each */
    int pattern;
    if (closer >= 0 && producers && np1 && consumers == 1ull << closer)
        pattern = MS_PAT_MIGRATORY;
    else if (!consumers && !np1) /* write-only sharing: the unit moved from writer to writer */
        pattern = MS_PAT_MIGRATORY;
    else if (np1)
        pattern = nc1 ? MS_PAT_SPSC : MS_PAT_SPMC;
    else
        pattern = nc1 ? MS_PAT_MPSC : MS_PAT_MPMC;
    uint64_t *pending = d + sim->coh->dir_pending;
    /* entries fill from the first (round_miss) and are emptied together: the valid ones are a
     * prefix */
    for (int i = 0; i < DIR_NPENDING; i++) {
        uint64_t key = pending[2 * i];
        if (!(key & PENDING_VALID)) break;
        ms_counters *c = row(sim, (uint32_t)key, (unsigned)(key >> 32) & 0xffu);
        c->pattern[(key & PENDING_COLD) ? MS_PAT_COLD_START : pattern] += pending[2 * i + 1];
        pending[2 * i] = pending[2 * i + 1] = 0;
    }
    d[DIR_PRODUCERS] = d[DIR_CONSUMERS] = 0;
}

/* A write by p: it closes the round if the round has consumers, or if p wrote in it and so did
 * another processor (write-only sharing: the writers overwrite each other's values unread);
 * then p is a producer. */
static void round_write(ms_sim *sim, uint64_t *d, unsigned p)
{
    uint64_t bit = 1ull << p, producers = d[DIR_PRODUCERS];
    if (d[DIR_CONSUMERS] || ((producers & bit) && (producers & ~bit))) round_close(sim, d, (int)p);
    d[DIR_PRODUCERS] |= bit;
}

/* A communication miss of (ctx, p) joins the round's pending list (bounded: on overflow it is
 * added to the entry of the same (ctx, cpu), else to the last entry); a read makes p a consumer. */
static inline __attribute__((always_inline)) void round_miss(const ms_coherence *coh, uint64_t *d, unsigned p,
                                                             uint32_t ctx, int cold, int write)
{
    uint64_t *pending = d + coh->dir_pending;
    uint64_t key = ctx | (uint64_t)p << 32 | (cold ? PENDING_COLD : 0) | PENDING_VALID;
    int slot = -1, same_proc = -1;
    for (int i = 0; i < DIR_NPENDING && slot < 0; i++) {
        uint64_t k = pending[2 * i];
        if (k == key || !k)
            slot = i;
        else if ((k & 0xffffffffffull) == (key & 0xffffffffffull))
            same_proc = i;
    }
    if (slot < 0)
        slot = same_proc >= 0 ? same_proc : DIR_NPENDING - 1;
    else
        pending[2 * slot] = key;
    pending[2 * slot + 1]++;
    if (!write) d[DIR_CONSUMERS] |= 1ull << p;
}

/* ---- coherence actions ---- */

/* Apply fn to every line of unit held in processor q's private levels: lines of level k are
 * numbered in that level's line size (the unit holds whole lines of every private level).
 * A line's record says whether a level holds it now (MS_META_PRESENT), so only the levels
 * that do are searched. */
typedef int (*line_action)(ms_sim *sim, const ms_view *v, int level, uint64_t line, uint32_t *rec, uint32_t ctx,
                           ms_counters *c, int line64);

/* The instances of the coherent path, by the constant `line64` argument of its inline
 * functions: 0 any hierarchy; COH_LINE64 64-byte L1 lines and coherence units kept line by line,
 * no utilisation; COH_X86 that and the threaded x86 preset's shape as well -- three levels, L1
 * and L2 private, L3 shared, every level LRU with an order word and L1's line size
 * (coh->lru_lines) -- so that the level loops unroll. */
#define COH_LINE64 1
#define COH_X86 2

/* The first shared level, and the number of levels, in instance line64. */
static inline int private_levels(const ms_coherence *coh, int line64)
{
    return line64 == COH_X86 ? 2 : coh->shared_from;
}
static inline int all_levels(const ms_sim *sim, int line64) { return line64 == COH_X86 ? 3 : sim->nlevels; }

static inline __attribute__((always_inline)) int each_private_line_rec(ms_sim *sim, unsigned q, uint64_t unit,
                                                                       uint32_t *unit_line_rec, line_action fn,
                                                                       uint32_t ctx, ms_counters *c, int line64)
{
    ms_coherence *coh = sim->coh;
    const ms_view *v = &coh->views[q];
    int found = 0;
    if (line64 || coh->unit_is_line) { /* one line per private level, one record (that of the unit) */
        uint32_t *rec = unit_line_rec;
        for (int k = 0; k < private_levels(coh, line64); k++)
            if (rec[v->held_word[k]] & MS_META_PRESENT) found |= fn(sim, v, k, unit, rec, ctx, c, line64);
        return found;
    }
    /* A unit's L1 lines lie in one chunk of records when it holds at most a chunk's worth:
     * then the records of every level's lines are found by stepping from the unit's first
     * record (that of each level's first line). */
    unsigned l1_per_unit = coh->unit_shift - sim->l1_shift;
    uint32_t *unit_rec = l1_per_unit <= MS_META_CHUNK_SHIFT ? ms_line_record(sim, 0, unit << l1_per_unit) : NULL;
    int step = unit_rec && !ms_linemeta_is_stand_in(&sim->meta, unit_rec);
    for (int k = 0; k < coh->shared_from; k++) {
        unsigned per_unit = coh->unit_shift - sim->line_shift[k];
        uint64_t first = unit << per_unit;
        size_t stride = ((size_t)1 << sim->meta_shift[k]) * sim->meta.words_per_line;
        for (uint64_t i = 0; i < (1ull << per_unit); i++) {
            uint32_t *rec = step ? unit_rec + i * stride : ms_line_record(sim, k, first + i);
            if (rec[v->held_word[k]] & MS_META_PRESENT) found |= fn(sim, v, k, first + i, rec, ctx, c, line64);
        }
    }
    return found;
}

/* each_private_line_rec with the unit's record looked up here (only used when every private
 * level's line is the unit). line64: a constant 1 where the caller is the instance for 64-byte
 * lines and units (every private level's line is then the unit). */
static inline __attribute__((always_inline)) int
each_private_line(ms_sim *sim, unsigned q, uint64_t unit, line_action fn, uint32_t ctx, ms_counters *c, int line64)
{
    uint32_t *rec = line64 || sim->coh->unit_is_line ? ms_linemeta_lookup(&sim->meta, unit) : NULL;
    return each_private_line_rec(sim, q, unit, rec, fn, ctx, c, line64);
}

/* ms_write_back of a private line (byte address addr) to the first shared level: a line in
 * way 0 there (mostly: the owner's miss put it in front) is marked dirty in line. */
static inline __attribute__((always_inline)) void write_back_shared(ms_sim *sim, const ms_view *v, uint64_t addr,
                                                                    uint32_t ctx, ms_counters *c, int line64)
{
    int s = private_levels(sim->coh, line64);
    if (s < all_levels(sim, line64)) {
        ms_cache *sc = v->cache[s];
        uint64_t line = addr >> sim->line_shift[s];
        uint64_t *set = sc->tags + (line & sc->set_mask) * sc->ways;
        if ((set[0] >> 1) == line) {
            c->level[s].writebacks++;
            set[0] |= MS_TAG_DIRTY;
            return;
        }
    }
    ms_write_back(sim, v, s, addr, ctx, c);
}

/* Invalidation of one line: taken out, marked in its record (the next miss on it is a
 * coherence miss), dirty data written back to the first shared level (or memory). */
static inline __attribute__((always_inline)) int invalidate_line(ms_sim *sim, const ms_view *v, int level,
                                                                 uint64_t line, uint32_t *rec, uint32_t ctx,
                                                                 ms_counters *c, int line64)
{
    uint32_t aux;
    /* COH_X86 (no utilisation): L1 alone has aux words (ms_level_init), no level used masks */
    uint64_t tag = line64 == COH_X86     ? ms_cache_remove_lru_t(v->cache[level], line, &aux, level == 0)
                   : sim->coh->lru_lines ? ms_cache_remove_lru(v->cache[level], line, &aux)
                                         : ms_cache_remove(v->cache[level], line, &aux);
    if (tag == MS_TAG_EMPTY) return 0;
    if (level == 0 && !line64 && sim->util) ms_credit_used(sim, v->cache[0]->gone_used, v->cache[0]->gone_owner);
    uint32_t *held = &rec[v->held_word[level]];
    *held = (*held | MS_META_HELD | MS_META_INVAL) & ~MS_META_PRESENT;
    if (level == 0) rec[v->fa_word[0]] = aux;
    if (tag & MS_TAG_DIRTY) write_back_shared(sim, v, line << sim->line_shift[level], ctx, c, line64);
    return 1;
}

/* Downgrade of one line M -> S: its dirty data is written back to the first shared level. */
static inline __attribute__((always_inline)) int clean_line(ms_sim *sim, const ms_view *v, int level, uint64_t line,
                                                            uint32_t *rec, uint32_t ctx, ms_counters *c, int line64)
{
    (void)rec;
    ms_cache *cache = v->cache[level];
    uint64_t *way0 = cache->tags + (line & cache->set_mask) * cache->ways;
    if ((*way0 >> 1) == line) { /* mostly: the owner's last reference */
        if (!(*way0 & MS_TAG_DIRTY)) return 0;
        *way0 &= ~(uint64_t)MS_TAG_DIRTY;
    } else if (!ms_cache_clean(cache, line)) {
        return 0;
    }
    write_back_shared(sim, v, line << sim->line_shift[level], ctx, c, line64);
    return 1;
}

/* Count one invalidation of victim q's copy by writer p (ctx, counters c): received on q's
 * last (ctx, cpu) for the unit, classified true/false and in/across region. */
static inline __attribute__((always_inline)) void count_invalidation(ms_sim *sim, uint64_t *d, unsigned q, unsigned p,
                                                                     uint32_t ctx, ms_counters *c, uint64_t written,
                                                                     int locked)
{
    ms_coherence *coh = sim->coh;
    uint64_t *victim = ms_coh_proc_words(d, q);
    /* The reference that fetched the copy receives it (ccSIM's Table 3 charges the read that
     * brought the line in), else the victim's last access. */
    uint32_t victim_ctx1 = (uint32_t)(victim[PROC_INVALIDATED] >> 32);
    if (!victim_ctx1) victim_ctx1 = (uint32_t)victim[PROC_LAST];
    if (!victim_ctx1) return; /* no record of its access (out of memory) */
    ms_inval_counters *iv = &row(sim, victim_ctx1 - 1, q)->inval;
    int true_sharing = (victim[PROC_TOUCHED] & written) != 0;
    int in_region = (uint32_t)(victim[PROC_LAST] >> 32) == coh->region;
    iv->received++;
    if (true_sharing)
        in_region ? iv->true_in++ : iv->true_across++;
    else
        in_region ? iv->false_in++ : iv->false_across++;
    if (in_region && locked) iv->with_lock++;
    c->inval.sent++;
    victim[PROC_INVALIDATED] = (victim[PROC_INVALIDATED] & ~0xffffffffull) | victim_ctx1;
    ms_pairs_count(&coh->pairs, victim_ctx1 - 1, q, ctx, p);
}

/* A write by p to unit: every other sharer's copies are invalidated. */
static inline __attribute__((always_inline)) void invalidate_others(ms_sim *sim, uint64_t *d, uint64_t unit, unsigned p,
                                                                    uint32_t ctx, ms_counters *c, uint64_t written,
                                                                    int locked, int line64)
{
    uint64_t victims = d[DIR_SHARERS] & ~(1ull << p);
    if (!victims) return;
    /* every victim's lines share the unit's record when the unit is one line */
    uint32_t *rec = line64 || sim->coh->unit_is_line ? ms_linemeta_lookup(&sim->meta, unit) : NULL;
    while (victims) {
        unsigned q = (unsigned)__builtin_ctzll(victims);
        victims &= victims - 1;
        if (each_private_line_rec(sim, q, unit, rec, invalidate_line, ctx, c, line64))
            count_invalidation(sim, d, q, p, ctx, c, written, locked);
        ms_coh_proc_words(d, q)[PROC_TOUCHED] = 0;
    }
    d[DIR_SHARERS] &= 1ull << p;
}

static unsigned node_of(const ms_coherence *coh, unsigned p) { return p / coh->procs_per_node; }

/* What one line of a reference did beyond the hierarchy walk. */
typedef struct {
    uint64_t stall;
    int left_private; /* missed every private level */
    int remote;       /* ... and was served by another node */
    int comm;         /* ... and communicated, or an upgrade invalidated others (ms_sim_comm_refs) */
} line_result;

/* Ownership before the lookup: a write acquires the unit (invalidating the other copies; a
 * write to an E copy is silent), a read of a unit another processor holds exclusively
 * downgrades it. Returns the processor whose dirty copy supplies the data, or -1; *upgrade is
 * set when p already held a read-only copy. */
static inline __attribute__((always_inline)) int acquire(ms_sim *sim, uint64_t *d, uint64_t unit, unsigned p,
                                                         uint32_t ctx, ms_counters *c, unsigned flags, uint64_t written,
                                                         int *upgrade, int line64)
{
    uint64_t bit = 1ull << p;
    unsigned owner1 = (unsigned)(d[DIR_OWNER] & DIR_OWNER_CPU);
    int modified = (d[DIR_OWNER] & DIR_MODIFIED) != 0;
    int source = owner1 && owner1 != p + 1 && modified ? (int)owner1 - 1 : -1;
    *upgrade = 0;
    if (flags & MS_ACC_WRITE) {
        round_write(sim, d, p);
        if (owner1 != p + 1) {
            *upgrade = (d[DIR_SHARERS] & bit) != 0;
            invalidate_others(sim, d, unit, p, ctx, c, written, (flags & MS_ACC_LOCKED) != 0, line64);
        }
        d[DIR_OWNER] = (p + 1) | DIR_MODIFIED;
        d[DIR_WRITERS] |= bit;
    } else if (owner1 && owner1 != p + 1) {
        if (modified) each_private_line(sim, owner1 - 1, unit, clean_line, ctx, c, line64);
        d[DIR_OWNER] = 0;
    }
    return source;
}

/* A flag of coh_access_any's: the reference is one line that p's L1 does not hold (the fast
 * path looked it up). The coherence actions before the lookup change only other processors'
 * private levels and the shared ones, so the lookup need not be repeated. */
#define COH_L1_MISSED (1u << 30)

/* ms_cache_lookup of line in v's L1 (LRU, lines of one unit, L1's line size at every level:
 * coh->lru_lines), with no set search when the line's record says L1 does not hold it
 * (MS_META_PRESENT is exact there): the coherence misses, whose lines were invalidated, and
 * lines evicted since. The stand-in record knows nothing: the set is searched. */
static inline __attribute__((always_inline)) int l1_lookup_known(ms_sim *sim, const ms_view *v, uint64_t line,
                                                                 unsigned write)
{
    ms_cache *l1 = v->cache[0];
    uint64_t *set = l1->tags + (line & l1->set_mask) * l1->ways;
    if ((set[0] >> 1) == line) {
        set[0] |= write;
        return 0;
    }
    const uint32_t *rec = ms_linemeta_lookup(&sim->meta, line);
    if (!(rec[v->held_word[0]] & MS_META_PRESENT) && !ms_linemeta_is_stand_in(&sim->meta, rec)) return -1;
    return ms_lru_lookup_slow(l1, set, line, write);
}

/* One L1 line [lo, hi] of p's reference. line64: 1 (a constant) in the instance for 64-byte
 * L1 lines and coherence units kept line by line (coh_line64_miss), else 0. */
static inline __attribute__((always_inline)) line_result coh_line_t(ms_sim *sim, unsigned p, uint64_t lo, uint64_t hi,
                                                                    unsigned flags, uint32_t ctx, ms_counters *c,
                                                                    ms_line_outcome *o, int line64)
{
    ms_coherence *coh = sim->coh;
    unsigned write = (flags & MS_ACC_WRITE) ? MS_TAG_DIRTY : 0u;
    uint64_t unit = lo >> (line64 ? 6 : coh->unit_shift), bit = 1ull << p;
    uint64_t *d = proc_dir_record(coh, p, unit);
    uint64_t *me = ms_coh_proc_words(d, p);
    /* Streams walk units in order: ask the host for the next unit's record (the next one in
     * its chunk; a prefetch past the chunk's end is harmless) while this one is worked on. */
    __builtin_prefetch((const void *)((uintptr_t)d + coh->dir_bytes));
    __builtin_prefetch((const void *)((uintptr_t)me + coh->dir_bytes));
    uint64_t touched = line64 ? ms_coh_granules(lo, hi, 6, 0) : granule_mask(coh, lo, hi);
    int first_reference = (uint32_t)me[PROC_LAST] == 0;
    int others_wrote = (d[DIR_WRITERS] & ~bit) != 0;
    int upgrade;
    uint64_t sent = c->inval.sent;
    int source = acquire(sim, d, unit, p, ctx, c, flags, touched, &upgrade, line64);

    const ms_view *v = &coh->views[p];
    if (!line64 && sim->util) sim->cur_bits = ms_used_bits(sim, lo >> sim->l1_shift, lo, (uint32_t)(hi - lo + 1));
    if (line64 == COH_X86 ||
        (line64 && coh->lru_lines)) { /* no utilisation: ms_simulate_line's hit, the LRU miss walk */
        uint64_t line = lo >> 6;
        int way = (flags & COH_L1_MISSED) ? -1 : l1_lookup_known(sim, v, line, write);
        if (way < 0) {
            o->served = line64 == COH_X86 ? ms_simulate_miss_lru3(sim, v, lo, write, ctx, c, o)
                                          : ms_simulate_miss_lru(sim, v, lo, write, ctx, c, o);
        } else {
            ms_fa_touch(v->fa[0], line, ms_cache_aux(v->cache[0], line, way));
            o->served = 0;
        }
    } else if ((flags & COH_L1_MISSED) && !sim->util) {
        o->served = ms_simulate_miss(sim, v, lo, write, ctx, c, o);
    } else {
        o->served = ms_simulate_line(sim, v, v->cache[0], v->fa[0], lo, write, ctx, c, o, sim->util);
    }
    int s = private_levels(coh, line64), n = all_levels(sim, line64);
    line_result r = { sim->stall[o->served], o->served >= s, 0, 0 };
    if (!(d[DIR_SHARERS] & bit) || r.left_private) /* this access fetched the copy */
        me[PROC_INVALIDATED] = (me[PROC_INVALIDATED] & 0xffffffffull) | (uint64_t)(ctx + 1) << 32;
    if (!(d[DIR_SHARERS] & bit)) { /* a fresh copy: touched bytes count from here */
        me[PROC_TOUCHED] = 0;
        d[DIR_SHARERS] |= bit;
    }
    if (o->served > 0) {
        int inval_miss = 0, private_missed = o->served < s ? o->served : s;
        for (int k = 0; k < private_missed && !inval_miss; k++) inval_miss = o->cause[k] == MS_CAUSE_INVAL;
        if (inval_miss && (uint32_t)me[PROC_INVALIDATED]) {
            row(sim, (uint32_t)me[PROC_INVALIDATED] - 1, p)->inval.followed_by_miss++;
            me[PROC_INVALIDATED] &= ~0xffffffffull;
        }
        int coherence_miss = r.left_private && o->cause[s - 1] == MS_CAUSE_INVAL;
        int cold_start = r.left_private && first_reference && others_wrote;
        if (coherence_miss || cold_start) round_miss(coh, d, p, ctx, !coherence_miss, write != 0);
        r.comm = coherence_miss || cold_start || (r.left_private && source >= 0);
    }
    if (r.left_private) {
        if (!write && coh->mesi && d[DIR_SHARERS] == bit && !(d[DIR_OWNER] & DIR_OWNER_CPU))
            d[DIR_OWNER] = p + 1; /* exclusive, clean */
        if (coh->nnodes > 1) {    /* (one node: nothing is remote, no divisions) */
            if (source >= 0)
                r.remote = node_of(coh, (unsigned)source) != node_of(coh, p);
            else if (o->served == n)
                r.remote = unit % coh->nnodes != node_of(coh, p);
            if (r.remote && o->served == n) r.stall = coh->remote_stall;
            r.comm |= r.remote;
        }
    } else if (upgrade) {
        /* Ownership of a read-only copy: a directory transaction, no miss. */
        uint64_t dir_stall = s < n                                   ? sim->stall[s]
                             : unit % coh->nnodes != node_of(coh, p) ? coh->remote_stall
                                                                     : sim->stall[n];
        if (dir_stall > r.stall) r.stall = dir_stall;
        r.comm = c->inval.sent != sent; /* it took the unit from other processors' copies */
    }
    me[PROC_TOUCHED] |= touched;
    me[PROC_LAST] = (uint64_t)(ctx + 1) | (uint64_t)coh->region << 32;
    return r;
}

static line_result coh_line(ms_sim *sim, unsigned p, uint64_t lo, uint64_t hi, unsigned flags, uint32_t ctx,
                            ms_counters *c, ms_line_outcome *o)
{
    return coh_line_t(sim, p, lo, hi, flags, ctx, c, o, 0);
}

/* What a reference's lines did, added to its counters and the simulator's sums. */
static inline __attribute__((always_inline)) void coh_commit(ms_sim *sim, uint32_t ctx, ms_counters *c, unsigned write,
                                                             const ms_line_outcome *o, uint64_t stall, int left_private,
                                                             int remote, int comm)
{
    if (o->served) ms_commit_misses(sim, ctx, c, write, o);
    ms_count_stall(c, write, stall);
    sim->stall_cycles += stall;
    if (remote)
        c->remote_misses++;
    else if (left_private)
        c->local_misses++;
    sim->comm_refs += (unsigned)comm;
}

/* The general path of ms_coh_access: any reference (several lines, a new context, an L1
 * miss, a coherence action). */
static int coh_access_any(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    if (cpu >= sim->nprocs || (ctx >= sim->nctx && ms_ensure_ctx(sim, ctx) != 0)) return -1;
    ms_counters *c = row(sim, ctx, cpu);
    unsigned write = (flags & MS_ACC_WRITE) ? 1u : 0u;
    ms_count_reference(c, write);
    uint64_t last_byte = addr + (size ? size - 1 : 0);
    if (last_byte < addr) /* wrapped around the address space: keep the first line only */
        last_byte = addr | ((1ull << sim->l1_shift) - 1);
    ms_line_outcome merged = { 0, { 0 }, { 0 } };
    uint64_t stall = 0;
    int left_private = 0, remote = 0, comm = 0;
    if ((last_byte >> sim->l1_shift) == (addr >> sim->l1_shift)) { /* one line: nothing to merge */
        line_result r = coh_line(sim, cpu, addr, last_byte, flags, ctx, c, &merged);
        stall = r.stall;
        left_private = r.left_private;
        remote = r.remote;
        comm = r.comm;
    } else {
        flags &= ~COH_L1_MISSED;
        for (uint64_t lo = addr;;) {
            uint64_t line_end = lo | ((1ull << sim->l1_shift) - 1);
            uint64_t hi = line_end < last_byte ? line_end : last_byte;
            ms_line_outcome o;
            line_result r = coh_line(sim, cpu, lo, hi, flags, ctx, c, &o);
            if (o.served) ms_merge_outcome(&merged, &o);
            if (r.stall > stall) stall = r.stall;
            left_private |= r.left_private;
            remote |= r.remote;
            comm |= r.comm;
            if (hi == last_byte) break;
            lo = hi + 1;
        }
    }
    coh_commit(sim, ctx, c, write, &merged, stall, left_private, remote, comm);
    return merged.served;
}

/* coh_access_any of a one-line reference by a known processor and context (what the fast
 * path of ms_coh_access_line64 checked), with its constant shifts; line64: COH_LINE64 or
 * COH_X86 (a constant). */
static inline __attribute__((always_inline)) int coh_access_one64_t(ms_sim *sim, unsigned cpu, uint64_t addr,
                                                                    uint64_t last_byte, unsigned flags, uint32_t ctx,
                                                                    int line64)
{
    ms_counters *c = row(sim, ctx, cpu);
    unsigned write = (flags & MS_ACC_WRITE) ? 1u : 0u;
    ms_count_reference(c, write);
    ms_line_outcome o;
    line_result r = coh_line_t(sim, cpu, addr, last_byte, flags, ctx, c, &o, line64);
    coh_commit(sim, ctx, c, write, &o, r.stall, r.left_private, r.remote, r.comm);
    return o.served;
}

__attribute__((noinline)) static int coh_access_one_line64(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t last_byte,
                                                           unsigned flags, uint32_t ctx)
{
    return coh_access_one64_t(sim, cpu, addr, last_byte, flags, ctx, COH_LINE64);
}

__attribute__((noinline)) static int coh_access_one_x86(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t last_byte,
                                                        unsigned flags, uint32_t ctx)
{
    return coh_access_one64_t(sim, cpu, addr, last_byte, flags, ctx, COH_X86);
}

int ms_coh_access_one64(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t last_byte, unsigned flags, uint32_t ctx)
{
    return sim->coh->x86 ? coh_access_one_x86(sim, cpu, addr, last_byte, flags, ctx)
                         : coh_access_one_line64(sim, cpu, addr, last_byte, flags, ctx);
}

/* The general path for a one-line reference by a known processor and context: the 64-byte
 * instance where line64 (a constant) says so. */
static inline __attribute__((always_inline)) int coh_access_one(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                                uint64_t last_byte, unsigned flags, uint32_t ctx,
                                                                int line64)
{
    if (line64) return ms_coh_access_one64(sim, cpu, addr, last_byte, flags, ctx);
    return coh_access_any(sim, cpu, addr, size, flags, ctx);
}

/* A one-line reference of a known context that the leaf fast path of ms_coh_access could not
 * settle (its unit's record not at hand, the line not in way 0 of its L1 set, its shadow node
 * stale): a quiet L1 hit in any way is finished here, anything else goes to coh_access_any,
 * whose L1 lookup finds the same miss (a missing lookup changes nothing). */
static inline __attribute__((always_inline)) int coh_hit_any_t(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                               unsigned flags, uint32_t ctx, int line64)
{
    ms_coherence *coh = sim->coh;
    uint64_t last_byte = addr + (size ? size - 1 : 0), line = addr >> (line64 ? 6 : sim->l1_shift);
    unsigned write = (flags & MS_ACC_WRITE) ? MS_TAG_DIRTY : 0u;
    uint64_t *d = proc_dir_record(coh, cpu, addr >> (line64 ? 6 : coh->unit_shift));
    if (!ms_coh_quiet(d, cpu, write)) return coh_access_one(sim, cpu, addr, size, last_byte, flags, ctx, line64);
    const ms_view *v = &coh->views[cpu];
    int way =
        line64 && coh->lru_lines ? l1_lookup_known(sim, v, line, write) : ms_cache_lookup(v->cache[0], line, write);
    if (way < 0) return coh_access_one(sim, cpu, addr, size, last_byte, flags | COH_L1_MISSED, ctx, line64);
    ms_fa_touch(v->fa[0], line, ms_cache_aux(v->cache[0], line, way));
    ms_count_reference(row(sim, ctx, cpu), write);
    ms_coh_note_quiet_hit(coh, d, cpu, write,
                          line64 ? ms_coh_granules(addr, last_byte, 6, 0) : granule_mask(coh, addr, last_byte), ctx);
    return 0;
}

__attribute__((noinline)) static int coh_hit_any(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                 unsigned flags, uint32_t ctx)
{
    return coh_hit_any_t(sim, cpu, addr, size, flags, ctx, 0);
}

__attribute__((noinline)) static int coh_hit_any64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                   unsigned flags, uint32_t ctx)
{
    return coh_hit_any_t(sim, cpu, addr, size, flags, ctx, 1);
}

/* ms_sim_access of a multiprocessor past its quiet-hit test (ms_coh_quiet_t), or without one
 * (an L1 that is not LRU): anything but one line of a known processor and context goes to
 * coh_access_any, the rest to coh_hit_any_t. line64: the 64-byte instance (a constant). */
static inline __attribute__((always_inline)) int
coh_access_rest_t(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx, int line64)
{
    unsigned l1_shift = line64 ? 6 : sim->l1_shift;
    uint64_t last_byte = addr + (size ? size - 1 : 0);
    /* (a reference wrapping around the address space ends in another line) */
    if (ctx >= sim->nctx || cpu >= sim->nprocs || (last_byte >> l1_shift) != (addr >> l1_shift))
        return coh_access_any(sim, cpu, addr, size, flags, ctx);
    return line64 ? coh_hit_any64(sim, cpu, addr, size, flags, ctx) : coh_hit_any(sim, cpu, addr, size, flags, ctx);
}

static int coh_access_rest(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return coh_access_rest_t(sim, cpu, addr, size, flags, ctx, 0);
}

int ms_coh_access_rest64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    return coh_access_rest_t(sim, cpu, addr, size, flags, ctx, 1);
}

/* ms_sim_access of a multiprocessor (chosen by ms_coh_select_access): a quiet hit settled in
 * line (ms_coh_quiet_t, with the shifts read from sim), the rest handed over. */
int ms_coh_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    ms_coherence *coh = sim->coh;
    int q = coh->proc[0].l1->policy == MS_POLICY_LRU
                ? ms_coh_quiet_t(sim, cpu, addr, size, flags, ctx, sim->l1_shift, coh->unit_shift, coh->granule_shift)
                : MS_COH_REST;
    if (q == MS_COH_SETTLED) return 0;
    return q == MS_COH_ACTION ? coh_access_any(sim, cpu, addr, size, flags, ctx)
                              : coh_access_rest(sim, cpu, addr, size, flags, ctx);
}

int ms_coh_access_line64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    int q = ms_coh_quiet64(sim, cpu, addr, size, flags, ctx);
    if (q == MS_COH_SETTLED) return 0;
    return q == MS_COH_ACTION ? ms_coh_access_one64(sim, cpu, addr, addr + size - (size != 0), flags, ctx)
                              : ms_coh_access_rest64(sim, cpu, addr, size, flags, ctx);
}

void ms_coh_select_access(ms_sim *sim)
{
    ms_coherence *coh = sim->coh;
    int line64 = sim->l1_shift == 6 && coh->unit_shift == 6 && coh->granule_shift == 0 && coh->unit_is_line;
    int lru = coh->proc[0].l1->policy == MS_POLICY_LRU;
    /* the quiet hits keep no used masks: with spatial utilisation every reference goes the
     * whole way */
    sim->access = sim->util ? coh_access_any : line64 && lru ? ms_coh_access_line64 : ms_coh_access;
    sim->coh_quiet64 = !sim->util && lru && line64;
}

void ms_coh_next_region(ms_sim *sim) { sim->coh->region++; }

void ms_coh_finish(ms_sim *sim)
{
    ms_coherence *coh = sim->coh;
    if (coh->shared_from > 0) /* private L1s (a shared L1 is sim->cache[0]: sim.c) */
        for (unsigned p = 0; p < sim->nprocs; p++) ms_used_flush(sim, coh->views[p].cache[0]);
    size_t words = coh->dir_bytes / sizeof(uint64_t);
    for (size_t i = 0; i < coh->dir.nslots; i++) {
        if (!coh->dir.slots[i].chunk) continue;
        uint64_t *chunk = (uint64_t *)(void *)coh->dir.slots[i].words;
        for (size_t u = 0; u < MS_META_CHUNK_LINES; u++) {
            uint64_t *d = chunk + u * words;
            if (d[DIR_PRODUCERS] | d[DIR_CONSUMERS] | d[coh->dir_pending]) round_close(sim, d, -1);
        }
    }
}

typedef struct {
    void (*fn)(const ms_invalidation *e, void *ud);
    void *ud;
} invalidation_visit;

static void visit_invalidation(const ms_pair *p, void *ud)
{
    const invalidation_visit *visit = ud;
    ms_invalidation e = { p->key[0], p->key[1], p->key[2], p->key[3], p->count };
    visit->fn(&e, visit->ud);
}

void ms_coh_each_invalidation(const ms_sim *sim, void (*fn)(const ms_invalidation *e, void *ud), void *ud)
{
    invalidation_visit visit = { fn, ud };
    ms_pairs_each(&sim->coh->pairs, visit_invalidation, &visit);
}
