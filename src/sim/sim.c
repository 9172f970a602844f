/* The hierarchy: looks references up level by level, fills write-allocate, writes dirty
 * victims back, classifies misses with the 3C rule, attributes replacements to the evicting
 * context and keeps counters per context. See sim.h and docs/simulator.md for the model. */
#include <string.h>

#include "sim_internal.h"

struct ms_sim {
    ms_cache cache[MS_MAX_LEVELS];
    ms_fa fa[MS_MAX_LEVELS];
    ms_counters *ctrs;             /* indexed by ctx */
    uint32_t nctx, ctx_cap;
    int nlevels;
    unsigned l1_shift;
    unsigned line_shift[MS_MAX_LEVELS];
    unsigned meta_shift[MS_MAX_LEVELS];   /* level line -> linemeta key (L1-line granularity) */
    uint64_t stall[MS_MAX_LEVELS + 1];    /* by serving level; [nlevels] = memory */
    ms_linemeta meta;              /* per-line records, 2 * nlevels words (sim_internal.h) */
    uint32_t scratch[2 * MS_MAX_LEVELS];  /* stands in for a record when out of memory */
    ms_eviction *pairs;            /* open addressing; count == 0 marks a free slot */
    size_t pair_slots, npairs;
    ms_eviction *last_pair;        /* the pair counted last (a run repeats it), or NULL */
    uint64_t pairs_lost;           /* pair updates dropped for lack of memory */
    ms_hier_config cfg;
    ms_mem mem;
};

/* What happened to one line of a reference: the serving level and, per missing level, the
 * cause and the recorded evictor (ctx + 1, 0 = unknown). */
typedef struct {
    int served;
    uint8_t cause[MS_MAX_LEVELS];
    uint32_t evictor[MS_MAX_LEVELS];
} line_outcome;

static unsigned log2u(uint64_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

int ms_sim_create(ms_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc)
{
    *out = NULL;
    if (!alloc || !alloc->alloc || !alloc->release || ms_config_validate(cfg, NULL, 0) != 0)
        return -1;
    ms_mem mem = {*alloc, 0};
    ms_sim *sim = ms_mem_alloc(&mem, sizeof *sim);
    if (!sim)
        return -1;
    sim->mem = mem;
    sim->cfg = *cfg;
    sim->nlevels = cfg->nlevels;
    sim->l1_shift = log2u(cfg->level[0].line);
    ms_linemeta_init(&sim->meta, 2u * (unsigned)cfg->nlevels, &sim->mem);
    int ok = 1;
    for (int k = 0; k < cfg->nlevels; k++) {
        const ms_level_config *lv = &cfg->level[k];
        sim->line_shift[k] = log2u(lv->line);
        sim->meta_shift[k] = sim->line_shift[k] - sim->l1_shift;
        sim->stall[k] = lv->latency - cfg->level[0].latency;
        /* L1 keeps each line's shadow node next to its way (the hit path's shadow update). */
        if (ok && (ms_cache_init(&sim->cache[k], lv, (unsigned)k, k == 0, &sim->mem) != 0
                   || ms_fa_init_unkeyed(&sim->fa[k], (uint32_t)(lv->size / lv->line), &sim->mem) != 0))
            ok = 0;
    }
    sim->stall[cfg->nlevels] = cfg->mem_latency - cfg->level[0].latency;
    if (!ok) {
        ms_sim_destroy(sim);
        return -1;
    }
    *out = sim;
    return 0;
}

void ms_sim_destroy(ms_sim *sim)
{
    if (!sim)
        return;
    for (int k = 0; k < sim->nlevels; k++) {
        ms_cache_free(&sim->cache[k], &sim->mem);
        ms_fa_free(&sim->fa[k], &sim->mem);
    }
    ms_linemeta_free(&sim->meta);
    ms_mem_release(&sim->mem, sim->ctrs, (size_t)sim->ctx_cap * sizeof(ms_counters));
    ms_mem_release(&sim->mem, sim->pairs, sim->pair_slots * sizeof(ms_eviction));
    ms_mem mem = sim->mem;
    ms_mem_release(&mem, sim, sizeof *sim);
}

/* Make ctrs[ctx] exist (zeroed) and nctx cover it. */
static int ensure_ctx(ms_sim *sim, uint32_t ctx)
{
    if (ctx == UINT32_MAX)
        return -1;
    if (ctx >= sim->ctx_cap) {
        uint64_t cap = sim->ctx_cap ? sim->ctx_cap : 16;
        while (cap <= ctx)
            cap *= 2;
        if (cap > UINT32_MAX)
            cap = UINT32_MAX;
        ms_counters *ctrs = ms_mem_alloc(&sim->mem, (size_t)cap * sizeof *ctrs);
        if (!ctrs)
            return -1;
        if (sim->nctx)
            memcpy(ctrs, sim->ctrs, (size_t)sim->nctx * sizeof *ctrs);
        ms_mem_release(&sim->mem, sim->ctrs, (size_t)sim->ctx_cap * sizeof *ctrs);
        sim->ctrs = ctrs;
        sim->ctx_cap = (uint32_t)cap;
    }
    if (ctx >= sim->nctx)
        sim->nctx = ctx + 1;
    return 0;
}

/* ---- replacement-cause pairs ---- */

static size_t pair_home(uint32_t victim, uint32_t evictor, uint32_t level, size_t nslots)
{
    uint64_t h = ((uint64_t)victim << 32 | evictor) * 0x9E3779B97F4A7C15ull;
    h ^= (uint64_t)level * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h >> 32) & (nslots - 1);
}

static ms_eviction *pair_probe(ms_eviction *slots, size_t nslots, uint32_t victim, uint32_t evictor,
                               uint32_t level)
{
    size_t s = pair_home(victim, evictor, level, nslots);
    while (slots[s].count && !(slots[s].victim_ctx == victim && slots[s].evictor_ctx == evictor
                               && slots[s].level == level))
        s = (s + 1) & (nslots - 1);
    return &slots[s];
}

static int grow_pairs(ms_sim *sim)
{
    size_t nslots = sim->pair_slots ? sim->pair_slots * 2 : 256;
    ms_eviction *slots = ms_mem_alloc(&sim->mem, nslots * sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < sim->pair_slots; i++) {
        const ms_eviction *e = &sim->pairs[i];
        if (e->count)
            *pair_probe(slots, nslots, e->victim_ctx, e->evictor_ctx, e->level) = *e;
    }
    ms_mem_release(&sim->mem, sim->pairs, sim->pair_slots * sizeof *slots);
    sim->pairs = slots;
    sim->last_pair = NULL;
    sim->pair_slots = nslots;
    return 0;
}

static void count_pair(ms_sim *sim, uint32_t victim, uint32_t evictor, uint32_t level)
{
    ms_eviction *last = sim->last_pair;
    if (last && last->victim_ctx == victim && last->evictor_ctx == evictor && last->level == level) {
        last->count++;
        return;
    }
    if (2 * (sim->npairs + 1) > sim->pair_slots && grow_pairs(sim) != 0) {
        sim->pairs_lost++;
        return;
    }
    ms_eviction *e = pair_probe(sim->pairs, sim->pair_slots, victim, evictor, level);
    if (!e->count) {
        e->victim_ctx = victim;
        e->evictor_ctx = evictor;
        e->level = level;
        sim->npairs++;
    }
    e->count++;
    sim->last_pair = e;
}

/* ---- the hierarchy ---- */

/* Where a line's shadow node lives: L1 keeps it next to the way while the line is in L1 (it
 * is written back to the record on eviction); otherwise, and for every lower level, it is in
 * the line's record. Every shadow reference of a level goes through that place, so it is
 * right whenever the shadow holds the line. */
#define FA_WORD(sim, level) ((unsigned)(sim)->nlevels + (unsigned)(level))

/* The record of level's line (that of its first L1 line), or a zeroed scratch record that
 * stands for "nothing known" when out of memory (held and evictor information is then lost
 * and the shadow may hold the line twice: the numbers degrade, nothing breaks). */
static uint32_t *line_record(ms_sim *sim, int level, uint64_t line)
{
    uint32_t *rec = ms_linemeta_lookup(&sim->meta, line << sim->meta_shift[level]);
    if (__builtin_expect(rec != NULL, 1))
        return rec;
    memset(sim->scratch, 0, sizeof sim->scratch);
    return sim->scratch;
}

static void fill_level(ms_sim *sim, int level, uint64_t line, uint32_t *rec, unsigned dirty,
                       uint32_t ctx);

/* A dirty line from level-1 (byte address addr) arrives at level: counted, not a reference. */
static void write_back(ms_sim *sim, int level, uint64_t addr, uint32_t ctx)
{
    if (level >= sim->nlevels)
        return;   /* memory absorbs it */
    sim->ctrs[ctx].level[level].writebacks++;
    uint64_t line = addr >> sim->line_shift[level];
    if (!ms_cache_mark_dirty(&sim->cache[level], line))
        fill_level(sim, level, line, line_record(sim, level, line), MS_TAG_DIRTY, ctx);
}

/* Put line (record rec) into level, recording that the level held it and who evicted the
 * victim; an L1 victim's shadow node goes back to its record. */
static void fill_level(ms_sim *sim, int level, uint64_t line, uint32_t *rec, unsigned dirty,
                       uint32_t ctx)
{
    uint32_t victim_node;
    uint64_t victim = ms_cache_fill(&sim->cache[level], line, dirty, rec[FA_WORD(sim, 0)],
                                    &victim_node);
    rec[level] |= MS_META_HELD;
    if (victim == MS_TAG_EMPTY)
        return;
    uint64_t victim_line = victim >> 1;
    uint32_t *victim_rec = line_record(sim, level, victim_line);
    uint32_t evictor = ctx < MS_META_EVICTOR_MASK ? ctx + 1 : 0;
    /* Stores only (the victim's record is seldom in the host's cache): the level held the
     * victim, so its held bit is set already. */
    victim_rec[level] = MS_META_HELD | evictor;
    if (level == 0)
        victim_rec[FA_WORD(sim, 0)] = victim_node;
    if (victim & MS_TAG_DIRTY)
        write_back(sim, level + 1, victim_line << sim->line_shift[level], ctx);
}

/* 3C cause of a miss at level of the line with record rec; fa_hit says whether the shadow
 * held it. */
static void classify_miss(int level, const uint32_t *rec, int fa_hit, line_outcome *out)
{
    if (!(rec[level] & MS_META_HELD)) {
        out->cause[level] = MS_CAUSE_COLD;
        out->evictor[level] = 0;
    } else {
        out->cause[level] = fa_hit ? MS_CAUSE_CONFLICT : MS_CAUSE_CAPACITY;
        out->evictor[level] = rec[level] & MS_META_EVICTOR_MASK;
    }
}

/* The L1 miss path of one line (byte address addr): reference the L1 shadow, look up the
 * lower levels, classify every miss, then fill from the serving level upwards. One record
 * lookup serves all levels when their lines are the same size. Returns the serving level. */
static int simulate_miss(ms_sim *sim, uint64_t addr, unsigned write, uint32_t ctx,
                         line_outcome *out)
{
    int n = sim->nlevels, k;
    uint64_t line[MS_MAX_LEVELS];
    uint32_t *rec[MS_MAX_LEVELS];
    line[0] = addr >> sim->l1_shift;
    rec[0] = line_record(sim, 0, line[0]);
    int fa_hit = ms_fa_touch(&sim->fa[0], line[0], &rec[0][FA_WORD(sim, 0)]);
    classify_miss(0, rec[0], fa_hit, out);
    for (k = 1; k < n; k++) {
        line[k] = addr >> sim->line_shift[k];
        rec[k] = sim->meta_shift[k] ? line_record(sim, k, line[k]) : rec[0];
        int hit = ms_cache_lookup(&sim->cache[k], line[k], 0) >= 0;
        fa_hit = ms_fa_touch(&sim->fa[k], line[k], &rec[k][FA_WORD(sim, k)]);
        if (hit)
            break;
        classify_miss(k, rec[k], fa_hit, out);
    }
    out->served = k;
    for (int j = k - 1; j >= 0; j--)
        fill_level(sim, j, line[j], rec[j], j == 0 ? write : 0, ctx);
    return k;
}

/* One line of a reference; the L1 hit is the inlined fast path. Returns the serving level
 * (out is only written on a miss). */
static inline int simulate_line(ms_sim *sim, uint64_t addr, unsigned write, uint32_t ctx,
                                line_outcome *out)
{
    uint64_t line = addr >> sim->l1_shift;
    int way = ms_cache_lookup(&sim->cache[0], line, write);
    if (way < 0)
        return simulate_miss(sim, addr, write, ctx, out);
    ms_fa_touch(&sim->fa[0], line, ms_cache_aux(&sim->cache[0], line, way));
    return 0;
}

/* Add one reference's misses, replacement pairs and stall to ctx's counters. */
static void commit(ms_sim *sim, uint32_t ctx, unsigned write, const line_outcome *o)
{
    ms_counters *c = &sim->ctrs[ctx];
    for (int k = 0; k < o->served; k++) {
        ms_level_counters *lc = &c->level[k];
        if (write)
            lc->write_misses++;
        else
            lc->read_misses++;
        lc->cause[o->cause[k]]++;
        if (o->cause[k] != MS_CAUSE_COLD && o->evictor[k])
            count_pair(sim, ctx, o->evictor[k] - 1, (uint32_t)k);
    }
    if (write)
        c->stall_write += sim->stall[o->served];
    else
        c->stall_read += sim->stall[o->served];
}

/* A reference spanning L1 lines first..last: each line is looked up; a level counts one miss
 * if any line missed there (cause and evictor from the first missing line); the serving level
 * is the deepest one. */
static int simulate_lines(ms_sim *sim, uint64_t first, uint64_t last, unsigned write, uint32_t ctx)
{
    line_outcome merged = {0, {0}, {0}};
    for (uint64_t line = first;; line++) {
        line_outcome o;
        int served = simulate_line(sim, line << sim->l1_shift, write, ctx, &o);
        for (int k = merged.served; k < served; k++) {
            merged.cause[k] = o.cause[k];
            merged.evictor[k] = o.evictor[k];
        }
        if (served > merged.served)
            merged.served = served;
        if (line == last)
            break;
    }
    commit(sim, ctx, write, &merged);
    return merged.served;
}

/* Count one reference of ctx (known) as a read or a write. */
static inline void count_reference(ms_sim *sim, uint32_t ctx, unsigned write)
{
    ms_counters *c = &sim->ctrs[ctx];
    if (write)
        c->writes++;
    else
        c->reads++;
}

/* The rest of an L1 hit in way 0 whose line is not the L1 shadow's MRU line: update the
 * shadow (its node index is kept at where) and count. Out of line and tail-called, so the
 * fast path of ms_sim_access stays a leaf that saves no registers. */
__attribute__((noinline)) static int front_hit_shadow(ms_sim *sim, uint64_t line, uint32_t *where,
                                                      uint32_t ctx, unsigned write)
{
    ms_fa_touch(&sim->fa[0], line, where);
    count_reference(sim, ctx, write);
    return 0;
}

/* Everything but the fast path of ms_sim_access: new contexts, L1 misses, non-MRU hits,
 * non-LRU L1 policies and straddling references. */
__attribute__((noinline)) static int access_general(ms_sim *sim, uint64_t addr, uint32_t size,
                                                    unsigned write, uint32_t ctx)
{
    if (ctx >= sim->nctx && ensure_ctx(sim, ctx) != 0)
        return -1;
    count_reference(sim, ctx, write);
    uint64_t first = addr >> sim->l1_shift;
    uint64_t last = (addr + (size ? size - 1 : 0)) >> sim->l1_shift;
    if (first == last) {
        line_outcome o;
        if (simulate_line(sim, addr, write, ctx, &o) == 0)
            return 0;
        commit(sim, ctx, write, &o);
        return o.served;
    }
    if (last < first)   /* wrapped around the address space: keep the first line only */
        last = first;
    return simulate_lines(sim, first, last, write, ctx);
}

int ms_sim_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    (void)cpu;   /* one processor until coherence is simulated */
    unsigned write = (flags & MS_ACC_WRITE) ? MS_TAG_DIRTY : 0u;
    uint64_t line = addr >> sim->l1_shift;
    /* Fast path: a known context, one line, found in the MRU way of an LRU L1 set. */
    if (__builtin_expect(ctx < sim->nctx && ((addr + size - 1) >> sim->l1_shift) == line
                         && sim->cache[0].policy == MS_POLICY_LRU, 1)) {
        ms_cache *l1 = &sim->cache[0];
        uint64_t base = (line & l1->set_mask) * l1->ways;
        uint64_t *set = l1->tags + base;
        if (__builtin_expect((set[0] >> 1) == line, 1)) {
            set[0] |= write;
            if (line != sim->fa[0].mru_line)
                return front_hit_shadow(sim, line, l1->aux + base, ctx, write);
            count_reference(sim, ctx, write);
            return 0;
        }
    }
    return access_general(sim, addr, size, write, ctx);
}

void ms_sim_access_range(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags, uint32_t ctx)
{
    if (len == 0)
        return;
    uint64_t line_bytes = 1ull << sim->l1_shift;
    uint64_t end = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;   /* inclusive */
    for (uint64_t a = addr;;) {
        uint64_t line_end = a | (line_bytes - 1);
        uint64_t stop = line_end < end ? line_end : end;
        if (ms_sim_access(sim, cpu, a, (uint32_t)(stop - a + 1), flags, ctx) < 0)
            return;
        if (stop == end)
            return;
        a = stop + 1;
    }
}

const ms_counters *ms_sim_counters(const ms_sim *sim, uint32_t *n)
{
    *n = sim->nctx;
    return sim->ctrs;
}

void ms_counters_add(ms_counters *a, const ms_counters *b)
{
    a->reads += b->reads;
    a->writes += b->writes;
    a->stall_read += b->stall_read;
    a->stall_write += b->stall_write;
    for (int k = 0; k < MS_MAX_LEVELS; k++) {
        ms_level_counters *x = &a->level[k];
        const ms_level_counters *y = &b->level[k];
        x->read_misses += y->read_misses;
        x->write_misses += y->write_misses;
        for (int c = 0; c < MS_NCAUSES; c++)
            x->cause[c] += y->cause[c];
        x->writebacks += y->writebacks;
    }
}

void ms_sim_totals(const ms_sim *sim, ms_counters *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t i = 0; i < sim->nctx; i++)
        ms_counters_add(out, &sim->ctrs[i]);
}

/* Order of ms_sim_each_eviction: level, then victim, then evictor. */
static int pair_less(const ms_eviction *a, const ms_eviction *b)
{
    if (a->level != b->level)
        return a->level < b->level;
    if (a->victim_ctx != b->victim_ctx)
        return a->victim_ctx < b->victim_ctx;
    return a->evictor_ctx < b->evictor_ctx;
}

static void sift_down(const ms_eviction **v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n)
            return;
        if (child + 1 < n && pair_less(v[child], v[child + 1]))
            child++;
        if (!pair_less(v[root], v[child]))
            return;
        const ms_eviction *t = v[root];
        v[root] = v[child];
        v[child] = t;
        root = child;
    }
}

/* Heapsort: no libc qsort (it may call malloc, which the runtime must avoid). */
static void sort_pairs(const ms_eviction **v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        const ms_eviction *t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end);
    }
}

void ms_sim_each_eviction(const ms_sim *sim, void (*fn)(const ms_eviction *e, void *ud), void *ud)
{
    if (!sim->npairs)
        return;
    ms_mem mem = sim->mem;   /* scratch: not part of the simulator's lasting footprint */
    size_t bytes = sim->npairs * sizeof(const ms_eviction *);
    const ms_eviction **order = ms_mem_alloc(&mem, bytes);
    size_t n = 0;
    for (size_t i = 0; i < sim->pair_slots; i++) {
        if (!sim->pairs[i].count)
            continue;
        if (order)
            order[n++] = &sim->pairs[i];
        else
            fn(&sim->pairs[i], ud);   /* no memory to sort: table order, still deterministic */
    }
    if (!order)
        return;
    sort_pairs(order, n);
    for (size_t i = 0; i < n; i++)
        fn(order[i], ud);
    ms_mem_release(&mem, order, bytes);
}

const ms_hier_config *ms_sim_config(const ms_sim *sim) { return &sim->cfg; }

size_t ms_sim_memory(const ms_sim *sim) { return sim->mem.bytes; }
