/* Set-partitioned simulation (psim.h): appending to batches, routing their slices to the
 * workers' index lists, running them, and the fixed-order merge of the partitions' results. */
#include "psim.h"

#include <stdatomic.h>
#include <stdlib.h> /* qsort */
#include <string.h>

#include "coherence.h"
#include "mem.h"

struct ms_psim {
    ms_mem mem;
    ms_hier_config cfg;
    unsigned nparts, shift, l1_shift, nprocs;
    uint64_t split_mask; /* address bits above the partition key's shift; 0 with one partition */
    ms_sim *sim[MS_PSIM_MAX_PARTS];
    ms_psim_batch *cur;                /* NULL: the queue ran out of memory */
    uint64_t lost[MS_PSIM_MAX_PARTS];  /* each written by the partition's worker only */
    _Atomic uint64_t routed_straddles; /* straddles and references not simulated found by the */
    _Atomic uint64_t unattributed;     /* workers' passes (ms_psim_apply, ms_psim_route) */
    uint64_t queue_lost;               /* written by the producer only */
    uint64_t straddles;
    ms_psim_submit_fn submit;
    void *ud;
    int coh_quiet64;    /* the partitions' sim->coh_quiet64: their quiet hits are settled in line */
    int direct, level;  /* ms_psim_set_direct; deepest level served since ms_psim_take_level */
    uint64_t comm_refs; /* the simulator's ms_sim_comm_refs at the last ms_psim_take_level */
    uint64_t stall;     /* the simulator's stall_cycles then */
    ms_counters *merged;
    uint32_t nmerged;
};

static unsigned log2u(uint64_t v)
{
    unsigned s = 0;
    while ((1ull << s) < v) s++;
    return s;
}

/* The partition key's shift: the largest line (and the coherence unit with processors). */
static unsigned key_shift(const ms_hier_config *cfg)
{
    unsigned s = 0;
    for (int k = 0; k < cfg->nlevels; k++)
        if (log2u(cfg->level[k].line) > s) s = log2u(cfg->level[k].line);
    if (cfg->nprocs > 1 && log2u(ms_config_coherence_unit(cfg)) > s) s = log2u(ms_config_coherence_unit(cfg));
    return s;
}

unsigned ms_psim_parts_for(const ms_hier_config *cfg, unsigned want)
{
    unsigned p = 1;
    while (p < want && p < MS_PSIM_MAX_PARTS) p *= 2;
    unsigned s = key_shift(cfg);
    for (int k = 0; k < cfg->nlevels; k++) {
        const ms_level_config *lv = &cfg->level[k];
        if (lv->policy == MS_POLICY_RANDOM) return 1;
        uint64_t span = lv->size / lv->ways; /* bytes one way covers: sets x line */
        uint64_t cap = span >> s;            /* key values inside one way's set index */
        while (p > 1 && p > cap) p /= 2;
    }
    return p;
}

ms_psim_batch *ms_psim_batch_new(ms_psim *ps) { return ms_mem_alloc(&ps->mem, sizeof(ms_psim_batch)); }

void ms_psim_batch_free(ms_psim *ps, ms_psim_batch *b) { ms_mem_release(&ps->mem, b, sizeof *b); }

int ms_psim_create(ms_psim **out, const ms_hier_config *cfg, const ms_allocator *alloc, unsigned nparts,
                   ms_psim_submit_fn submit, void *ud)
{
    *out = NULL;
    if (!alloc || !submit || nparts < 1 || nparts > MS_PSIM_MAX_PARTS || (nparts & (nparts - 1)) ||
        ms_config_validate(cfg, NULL, 0) != 0 || nparts > ms_psim_parts_for(cfg, nparts))
        return -1;
    ms_mem mem = { *alloc, 0 };
    ms_psim *ps = ms_mem_alloc(&mem, sizeof *ps);
    if (!ps) return -1;
    ps->mem = mem;
    ps->cfg = *cfg;
    ps->nparts = nparts;
    ps->shift = key_shift(cfg);
    ps->l1_shift = log2u(cfg->level[0].line);
    ps->split_mask = nparts > 1 ? ~((1ull << ps->shift) - 1) : 0;
    ps->nprocs = cfg->nprocs > 1 ? cfg->nprocs : 1;
    ps->submit = submit;
    ps->ud = ud;
    for (unsigned p = 0; p < nparts; p++)
        if (ms_sim_create_part(&ps->sim[p], cfg, alloc, nparts) != 0) {
            ms_psim_destroy(ps);
            return -1;
        }
    ps->coh_quiet64 = ps->sim[0]->coh_quiet64;
    if (!(ps->cur = ms_psim_batch_new(ps))) {
        ms_psim_destroy(ps);
        return -1;
    }
    *out = ps;
    return 0;
}

void ms_psim_destroy(ms_psim *ps)
{
    if (!ps) return;
    for (unsigned p = 0; p < ps->nparts; p++) ms_sim_destroy(ps->sim[p]);
    ms_mem_release(&ps->mem, ps->cur, sizeof *ps->cur);
    ms_mem_release(&ps->mem, ps->merged, (size_t)ps->nmerged * sizeof *ps->merged);
    ms_mem mem = ps->mem;
    ms_mem_release(&mem, ps, sizeof *ps);
}

unsigned ms_psim_parts(const ms_psim *ps) { return ps->nparts; }

int ms_psim_set_direct(ms_psim *ps)
{
    if (ps->nparts != 1) return -1;
    ps->direct = 1;
    ps->level = -1;
    ps->comm_refs = ps->sim[0]->comm_refs;
    ps->stall = ps->sim[0]->stall_cycles;
    return 0;
}

/* What the simulator counted since the last direct-mode result: whether a reference
 * communicated, and the stall cycles. */
static void direct_since(ms_psim *ps, int *comm, uint64_t *stall)
{
    const ms_sim *sim = ps->sim[0];
    *comm = sim->comm_refs != ps->comm_refs;
    *stall = sim->stall_cycles - ps->stall;
    ps->comm_refs = sim->comm_refs;
    ps->stall = sim->stall_cycles;
}

int ms_psim_take_level(ms_psim *ps, int *comm, uint64_t *stall)
{
    int level = ps->level;
    ps->level = -1;
    direct_since(ps, comm, stall);
    return level;
}

#define OP_FLAGS (MS_ACC_WRITE | MS_ACC_LOCKED)
_Static_assert(MS_MAX_PROCS <= 1u << (16 - MS_PSIM_OP_CPU_SHIFT), "cpu bits of an operation's flags");
_Static_assert(sizeof(ms_psim_op) == 32, "a batch entry is 32 bytes");

/* The batch is full: hand it over and take an empty one. */
static void hand_over(ms_psim *ps)
{
    ms_psim_batch *e = ps->submit(ps->ud, ps->cur);
    if (e) e->n = 0;
    ps->cur = e;
}

/* Append an operation to the batch, handing it over when full. */
static inline void push(ms_psim *ps, unsigned kind, unsigned cpu, uint64_t addr, uint64_t size, unsigned flags,
                        uint32_t ctx)
{
    ms_psim_batch *b = ps->cur;
    if (__builtin_expect(!b, 0)) {
        ps->queue_lost += kind == 0;
        return;
    }
    ms_psim_op *o = &b->op[b->n];
    ms_psim_op_ref(o, cpu, addr, size, flags, ctx);
    o->kind = (uint16_t)kind;
    if (++b->n == MS_PSIM_BATCH) hand_over(ps);
}

/* Direct mode: apply one reference now. */
static void direct_access(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    int level = ms_sim_access(ps->sim[0], cpu, addr, size, flags, ctx);
    if (level < 0)
        ps->lost[0]++;
    else if (level > ps->level)
        ps->level = level;
}

uint64_t ms_psim_access_stall(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx,
                              int *comm)
{
    if (cpu >= ps->nprocs) {
        *comm = -1;
        return 0;
    }
    ms_sim *sim = ps->sim[0];
    if (ms_sim_access(sim, cpu, addr, size, flags, ctx) < 0) ps->lost[0]++;
    uint64_t stall = sim->stall_cycles - ps->stall;
    *comm = sim->comm_refs != ps->comm_refs;
    ps->comm_refs = sim->comm_refs;
    ps->stall = sim->stall_cycles;
    return stall;
}

static inline unsigned part_of(const ms_psim *ps, uint64_t addr)
{
    return (unsigned)(addr >> ps->shift) & (ps->nparts - 1);
}

/* ms_psim_access off its fast path: a processor out of range, direct mode, a reference
 * straddling two partitions, a full or lost batch. */
__attribute__((noinline)) static int access_slow(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size,
                                                 unsigned flags, uint32_t ctx)
{
    if (cpu >= ps->nprocs) return -1;
    uint64_t last = addr + (size ? size - 1 : 0);
    if (last < addr) last = addr; /* wrapped: ms_sim keeps the first line only */
    unsigned p = part_of(ps, addr);
    if (part_of(ps, last) == p) {
        if (ps->direct)
            direct_access(ps, cpu, addr, size, flags, ctx);
        else
            push(ps, 0, cpu, addr, size, flags, ctx);
        return 0;
    }
    /* The lines are in different partitions: one reference per line (the one deviation). */
    ps->straddles++;
    ms_psim_access_range(ps, cpu, addr, size, flags, ctx);
    return 0;
}

int ms_psim_access(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx)
{
    /* A leaf: first and last byte under one partition key (always with one partition), not
     * direct, and room in the batch beyond this operation (the one that fills it goes
     * through access_slow, which hands the batch over). */
    uint64_t last = addr + size - (size != 0);
    ms_psim_batch *b = ps->cur;
    if (__builtin_expect(
            cpu < ps->nprocs && !((addr ^ last) & ps->split_mask) && !ps->direct && b && b->n < MS_PSIM_BATCH - 1, 1)) {
        ms_psim_op_ref(&b->op[b->n++], cpu, addr, size, flags, ctx);
        return 0;
    }
    return access_slow(ps, cpu, addr, size, flags, ctx);
}

ms_psim_op *ms_psim_room(ms_psim *ps, uint32_t *room)
{
    ms_psim_batch *b = ps->cur;
    if (!b || ps->direct || b->n >= MS_PSIM_BATCH - 1) {
        *room = 0;
        return NULL;
    }
    *room = MS_PSIM_BATCH - 1 - b->n; /* the operation that fills the batch goes through access_slow */
    return &b->op[b->n];
}

void ms_psim_commit(ms_psim *ps, uint32_t k)
{
    if (k) ps->cur->n += k;
}

void ms_psim_access_range(ms_psim *ps, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags, uint32_t ctx)
{
    if (len == 0 || cpu >= ps->nprocs) return;
    uint64_t line_bytes = 1ull << ps->l1_shift;
    uint64_t end = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
    for (uint64_t a = addr;;) {
        uint64_t line_end = a | (line_bytes - 1);
        uint64_t stop = line_end < end ? line_end : end;
        if (ps->direct)
            direct_access(ps, cpu, a, (uint32_t)(stop - a + 1), flags, ctx);
        else
            push(ps, 0, cpu, a, stop - a + 1, flags, ctx);
        if (stop == end) return;
        a = stop + 1;
    }
}

void ms_psim_next_region(ms_psim *ps)
{
    if (ps->direct) {
        ms_sim_next_region(ps->sim[0]);
        return;
    }
    push(ps, MS_PSIM_OP_REGION, 0, 0, 0, 0, 0);
}

void ms_psim_flush(ms_psim *ps)
{
    if (ps->cur && ps->cur->n) hand_over(ps);
}

uint64_t ms_psim_worker_parts(const ms_psim *ps, unsigned i, unsigned n)
{
    uint64_t parts = 0;
    for (unsigned p = i; n && p < ps->nparts; p += n) parts |= 1ull << p;
    return parts;
}

/* A queued reference's kind: 0 (one reference of one partition), MS_PSIM_OP_LINES (one per
 * line, *straddle set where ms_psim_access would count it a straddle) or MS_PSIM_OP_SKIP
 * (context 0 or size 0). */
static inline unsigned ref_kind(const ms_psim *ps, const ms_psim_op *o, int *straddle)
{
    uint64_t a = o->addr, size = o->size;
    if (!o->ctx || !size) return MS_PSIM_OP_SKIP;
    if (size > 1ull << ps->l1_shift) return MS_PSIM_OP_LINES; /* a range, as the producers split it */
    uint64_t last = a + size - 1 < a ? a : a + size - 1;      /* wrapped: ms_sim keeps the first line */
    if (!((a ^ last) & ps->split_mask)) return 0;
    *straddle = 1;
    return MS_PSIM_OP_LINES;
}

/* Simulate the pieces of reference o, one per L1 line, that lie in the partitions in parts
 * (ms_psim_access_range's pieces); returns how many were lost. */
static uint64_t apply_lines(ms_psim *ps, const ms_psim_op *o, uint64_t parts)
{
    uint64_t line_bytes = 1ull << ps->l1_shift, lost = 0;
    uint64_t end = o->addr + o->size - 1 < o->addr ? UINT64_MAX : o->addr + o->size - 1;
    unsigned cpu = o->flags >> MS_PSIM_OP_CPU_SHIFT, flags = o->flags & OP_FLAGS;
    for (uint64_t a = o->addr;;) {
        uint64_t line_end = a | (line_bytes - 1);
        uint64_t stop = line_end < end ? line_end : end;
        unsigned p = part_of(ps, a);
        if (parts >> p & 1) lost += ms_sim_access(ps->sim[p], cpu, a, (uint32_t)(stop - a + 1), flags, o->ctx) < 0;
        if (stop == end) return lost;
        a = stop + 1;
    }
}

/* Run operation o of kind `kind` (a reference's as ref_kind or routing found it) for the
 * partitions in parts, p the partition of its address; returns 1 per lost reference. */
static inline uint64_t apply_op(ms_psim *ps, const ms_psim_op *o, unsigned kind, unsigned p, uint64_t parts)
{
    if (__builtin_expect(kind == 0, 1))
        return ms_sim_access(ps->sim[p], o->flags >> MS_PSIM_OP_CPU_SHIFT, o->addr, (uint32_t)o->size,
                             o->flags & OP_FLAGS, o->ctx) < 0;
    if (kind == MS_PSIM_OP_LINES) return apply_lines(ps, o, parts);
    if (kind == MS_PSIM_OP_REGION)
        for (unsigned q = 0; q < ps->nparts; q++)
            if (parts >> q & 1) ms_sim_next_region(ps->sim[q]);
    return 0;
}

/* Counts of a pass that classified references itself (ms_psim_apply, ms_psim_route). */
static void count_rare(ms_psim *ps, uint64_t straddles, uint64_t unattributed)
{
    if (straddles) atomic_fetch_add_explicit(&ps->routed_straddles, straddles, memory_order_relaxed);
    if (unattributed) atomic_fetch_add_explicit(&ps->unattributed, unattributed, memory_order_relaxed);
}

/* Whether o is a plain reference (kind 0, a context, within one line and one partition). */
static inline int plain(const ms_psim_op *o, uint64_t line, uint64_t split)
{
    uint64_t a = o->addr, size = o->size;
    return o->kind == 0 && o->ctx && size - 1 < line && !((a ^ (a + size - 1)) & split); /* size 0 wraps */
}

/* ms_psim_apply's operation that is not plain. */
static uint64_t apply_other(ms_psim *ps, const ms_psim_op *o, uint64_t parts, uint64_t *straddles,
                            uint64_t *unattributed)
{
    unsigned kind = o->kind;
    if (kind == 0) {
        int straddle = 0, counts = parts & 1; /* the rare counts: by the caller of partition 0 only */
        kind = ref_kind(ps, o, &straddle);
        *straddles += counts && straddle;
        *unattributed += counts && kind == MS_PSIM_OP_SKIP;
        if (kind == 0 && !(parts >> part_of(ps, o->addr) & 1)) return 0;
    }
    return apply_op(ps, o, kind, part_of(ps, o->addr), parts);
}

/* A plain reference o of a coherent 64-byte hierarchy past its quiet-hit test, which found q
 * (MS_COH_ACTION or MS_COH_REST): the rest of ms_coh_access_line64, its operands read again
 * from o (so that the loop keeps none of them across the call). Returns 1 if it was lost. */
__attribute__((noinline)) static uint64_t apply_rest64(ms_sim *sim, const ms_psim_op *o, int q)
{
    unsigned cpu = o->flags >> MS_PSIM_OP_CPU_SHIFT, flags = o->flags & OP_FLAGS;
    if (q == MS_COH_ACTION) return ms_coh_access_one64(sim, cpu, o->addr, o->addr + o->size - 1, flags, o->ctx) < 0;
    return ms_coh_access_rest64(sim, cpu, o->addr, (uint32_t)o->size, flags, o->ctx) < 0;
}

/* ms_psim_apply's loop for one partition whose quiet hits are settled in line
 * (ps->coh_quiet64: 64-byte L1 lines): the same operations in the same order, a quiet hit
 * without a call (ms_coh_quiet64). rare: the straddles and references not simulated found.
 * Returns the references lost. */
static uint64_t apply_quiet64(ms_psim *ps, const ms_psim_batch *b, uint64_t rare[2])
{
    ms_sim *sim = ps->sim[0];
    uint64_t lost = 0;
    for (const ms_psim_op *o = b->op, *end = b->op + b->n; o < end; o++) {
        if (__builtin_expect(!plain(o, 64, 0), 0)) {
            lost += apply_other(ps, o, 1, &rare[0], &rare[1]);
            continue;
        }
        int q = ms_coh_quiet64(sim, o->flags >> MS_PSIM_OP_CPU_SHIFT, o->addr, (uint32_t)o->size, o->flags & OP_FLAGS,
                               o->ctx);
        if (q != MS_COH_SETTLED) lost += apply_rest64(sim, o, q);
    }
    return lost;
}

void ms_psim_apply(ms_psim *ps, const ms_psim_batch *b, uint64_t parts)
{
    if (!parts) return;
    uint64_t lost = 0, straddles = 0, unattributed = 0; /* lost kept here: the workers' lost[] share a line */
    uint64_t line = 1ull << ps->l1_shift, split = ps->split_mask;
    int all = parts == ms_psim_worker_parts(ps, 0, 1);
    int quiet64 = ps->coh_quiet64 && ps->nparts == 1;
    if (quiet64) {
        uint64_t rare[2] = { 0, 0 };
        lost = apply_quiet64(ps, b, rare);
        straddles = rare[0];
        unattributed = rare[1];
    }
    for (uint32_t i = 0; i < b->n && !quiet64; i++) {
        const ms_psim_op *o = &b->op[i];
        if (__builtin_expect(plain(o, line, split), 1)) {
            unsigned p = part_of(ps, o->addr);
            if (all || parts >> p & 1) lost += apply_op(ps, o, 0, p, parts);
        } else {
            lost += apply_other(ps, o, parts, &straddles, &unattributed);
        }
    }
    if (lost) ps->lost[__builtin_ctzll(parts)] += lost; /* no write otherwise: lost[] is shared */
    count_rare(ps, straddles, unattributed);
}

void ms_psim_route(ms_psim *ps, ms_psim_batch *b, uint32_t lo, uint32_t hi, const uint8_t *worker_of, unsigned nworkers,
                   uint16_t *idx, uint32_t cap, uint32_t *cnt)
{
    _Static_assert(MS_PSIM_BATCH <= 65536, "batch indices fit 16 bits");
    uint16_t *out[MS_PSIM_MAX_PARTS];
    for (unsigned w = 0; w < nworkers; w++) out[w] = idx + (size_t)w * cap;
    unsigned shift = ps->shift, mask = ps->nparts - 1;
    uint64_t line = 1ull << ps->l1_shift, split = ps->split_mask, straddles = 0, unattributed = 0;
    for (uint32_t i = lo; i < hi; i++) {
        ms_psim_op *o = &b->op[i];
        uint64_t a = o->addr;
        if (__builtin_expect(plain(o, line, split), 1)) {
            *out[worker_of[(a >> shift) & mask]]++ = (uint16_t)i;
            continue;
        }
        if (o->kind == 0) {
            int straddle = 0;
            unsigned kind = ref_kind(ps, o, &straddle);
            straddles += straddle;
            unattributed += kind == MS_PSIM_OP_SKIP;
            o->kind = (uint16_t)kind; /* read by the workers once the batch is routed */
            if (kind == MS_PSIM_OP_SKIP) continue;
            if (kind == 0) {
                *out[worker_of[(a >> shift) & mask]]++ = (uint16_t)i;
                continue;
            }
        }
        for (unsigned v = 0; v < nworkers; v++) *out[v]++ = (uint16_t)i; /* region, lines: every worker */
    }
    for (unsigned w = 0; w < nworkers; w++) cnt[w] = (uint32_t)(out[w] - (idx + (size_t)w * cap));
    count_rare(ps, straddles, unattributed);
}

void ms_psim_apply_list(ms_psim *ps, const ms_psim_batch *b, const uint16_t *idx, uint32_t n, uint64_t parts)
{
    if (!parts) return;
    uint64_t lost = 0;
    for (uint32_t j = 0; j < n; j++) {
        const ms_psim_op *o = &b->op[idx[j]];
        lost += apply_op(ps, o, o->kind, part_of(ps, o->addr), parts);
    }
    if (lost) ps->lost[__builtin_ctzll(parts)] += lost;
}

const ms_counters *ms_psim_counters(ms_psim *ps, uint32_t *n)
{
    uint32_t most = 0;
    for (unsigned p = 0; p < ps->nparts; p++) {
        uint32_t k;
        ms_sim_finish(ps->sim[p]);
        ms_sim_counters(ps->sim[p], &k);
        if (k > most) most = k;
    }
    ms_mem_release(&ps->mem, ps->merged, (size_t)ps->nmerged * sizeof *ps->merged);
    ps->nmerged = 0;
    *n = 0;
    ps->merged = ms_mem_alloc(&ps->mem, (size_t)(most ? most : 1) * sizeof *ps->merged);
    if (!ps->merged) return NULL;
    ps->nmerged = most ? most : 1;
    for (unsigned p = 0; p < ps->nparts; p++) {
        uint32_t k;
        const ms_counters *c = ms_sim_counters(ps->sim[p], &k);
        for (uint32_t i = 0; i < k; i++) ms_counters_add(&ps->merged[i], &c[i]);
    }
    *n = most;
    return ps->merged;
}

/* ---- pairs: gathered from every partition, sorted by key, equal keys summed ---- */

typedef struct {
    uint32_t key[4];
    uint64_t count;
} pair;
typedef struct {
    ms_mem *mem;
    pair *v;
    size_t n, cap;
    int failed;
} pair_list;

static void list_add(pair_list *l, const uint32_t key[4], uint64_t count)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        pair *v = ms_mem_alloc(l->mem, cap * sizeof *v);
        if (!v) {
            l->failed = 1;
            return;
        }
        if (l->n) memcpy(v, l->v, l->n * sizeof *v);
        ms_mem_release(l->mem, l->v, l->cap * sizeof *v);
        l->v = v;
        l->cap = cap;
    }
    memcpy(l->v[l->n].key, key, sizeof l->v[l->n].key);
    l->v[l->n++].count = count;
}

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i]) return x->key[i] < y->key[i] ? -1 : 1;
    return 0;
}

/* Sort and sum equal keys in place. */
static void list_merge(pair_list *l)
{
    if (!l->n) return;
    qsort(l->v, l->n, sizeof *l->v, pair_cmp);
    size_t w = 0;
    for (size_t i = 1; i < l->n; i++) {
        if (pair_cmp(&l->v[w], &l->v[i]) == 0)
            l->v[w].count += l->v[i].count;
        else
            l->v[++w] = l->v[i];
    }
    l->n = w + 1;
}

static void take_eviction(const ms_eviction *e, void *ud)
{
    uint32_t key[4] = { e->level, e->victim_ctx, e->evictor_ctx, 0 };
    list_add(ud, key, e->count);
}

static void take_invalidation(const ms_invalidation *e, void *ud)
{
    uint32_t key[4] = { e->victim_ctx, e->victim_cpu, e->inval_ctx, e->inval_cpu };
    list_add(ud, key, e->count);
}

int ms_psim_each_eviction(const ms_psim *ps, void (*fn)(const ms_eviction *e, void *ud), void *ud)
{
    ms_mem mem = ps->mem;
    pair_list l = { &mem, NULL, 0, 0, 0 };
    for (unsigned p = 0; p < ps->nparts; p++) ms_sim_each_eviction(ps->sim[p], take_eviction, &l);
    if (!l.failed) list_merge(&l);
    for (size_t i = 0; !l.failed && i < l.n; i++) {
        ms_eviction e = { l.v[i].key[1], l.v[i].key[2], l.v[i].key[0], l.v[i].count };
        fn(&e, ud);
    }
    ms_mem_release(&mem, l.v, l.cap * sizeof *l.v);
    return l.failed ? -1 : 0;
}

int ms_psim_each_invalidation(const ms_psim *ps, void (*fn)(const ms_invalidation *e, void *ud), void *ud)
{
    ms_mem mem = ps->mem;
    pair_list l = { &mem, NULL, 0, 0, 0 };
    for (unsigned p = 0; p < ps->nparts; p++) ms_sim_each_invalidation(ps->sim[p], take_invalidation, &l);
    if (!l.failed) list_merge(&l);
    for (size_t i = 0; !l.failed && i < l.n; i++) {
        ms_invalidation e = { l.v[i].key[0], l.v[i].key[1], l.v[i].key[2], l.v[i].key[3], l.v[i].count };
        fn(&e, ud);
    }
    ms_mem_release(&mem, l.v, l.cap * sizeof *l.v);
    return l.failed ? -1 : 0;
}

unsigned ms_psim_nprocs(const ms_psim *ps) { return ps->nprocs; }
const ms_hier_config *ms_psim_config(const ms_psim *ps) { return &ps->cfg; }

uint64_t ms_psim_lost(const ms_psim *ps)
{
    uint64_t n = ps->queue_lost;
    for (unsigned p = 0; p < ps->nparts; p++) n += ps->lost[p];
    return n;
}

uint64_t ms_psim_straddles(const ms_psim *ps) { return ps->straddles + atomic_load(&ps->routed_straddles); }

uint64_t ms_psim_unattributed(const ms_psim *ps) { return atomic_load(&ps->unattributed); }

ms_sim *ms_psim_part(ms_psim *ps, unsigned p) { return p < ps->nparts ? ps->sim[p] : NULL; }
