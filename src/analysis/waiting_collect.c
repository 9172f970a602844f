/* The waiting-time collector (waiting_collect.h). A segment is a list of (block, count) pairs
 * and one of (stall key, cycles) pairs, sorted and merged when it ends; each processor keeps
 * its last WC_RING ended segments, which is enough because the timed replay reports a wait as
 * soon as the late event passed. Which contexts a processor referenced in a segment is one
 * word per (processor, context): the ordinal of the last segment that referenced it (a store
 * per reference, nothing to clear when a segment ends). A segment's stalls are added up per
 * stall key as they come, through a hash of the current segment's keys, so that the list to
 * sort at its end holds each key once (it held one pair per change of key: a long segment that
 * alternates between contexts sorted hundreds of thousands of pairs). */
#include "waiting_collect.h"
#include <stdlib.h>
#include <string.h>

#include "../format/stream.h"
#include "../util/util.h"

#define WC_RING 4

typedef struct {
    uint32_t block;
    uint64_t count;
} wc_pair;

/* A stall pair's key: the context and whether the references communicated (comm stall of a
 * context sorts right after its other stall). */
#define STALL_KEY(ctx, comm) ((ctx) << 1 | (uint32_t)((comm) != 0))
#define STALL_CTX(key) ((key) >> 1)
#define STALL_COMM(key) ((key)&1u)

typedef struct {
    wc_pair *v;
    size_t n, cap;
    uint64_t serial;
    uint32_t ord; /* 1, 2, ...: the segment's ordinal on its processor (seen[]) */
    wc_pair *st;  /* (STALL_KEY, stall cycles) */
    size_t nst, stcap;
} wc_segment;

typedef struct {
    wc_segment cur, ring[WC_RING];
    uint32_t *slot; /* the current segment's stall keys: 1 + their index in cur.st, 0 free */
    size_t nslot;   /* a power of two, at least twice cur.nst; 0 before the first stall */
    size_t last;    /* the index in cur.st of the last stall's key */
} wc_cpu;

/* What every reference of a processor touches, apart from its segments (a small stride). */
typedef struct {
    uint32_t *seen; /* per context: the ordinal of the last segment that referenced it (0 none) */
    uint32_t ord;   /* the current segment's ordinal */
} wc_hot;

typedef struct {
    ms_raw_wait_point p;
    size_t extra_cap, stall_cap, path_cap;
} wc_point;

struct ms_wait_collector {
    wc_cpu *cpus;
    wc_hot *hot;
    unsigned ncpus;
    uint32_t nseen; /* contexts below it are tracked in seen[] (max_ctx + 1, at most 2^31) */
    uint32_t *seen; /* ncpus x nseen words */
    const ms_work_cost *cost;
    wc_point *points;
    size_t npoints, cap;
    int failed;
};

ms_wait_collector *ms_wait_collector_new(unsigned ncpus, uint32_t max_ctx, const ms_work_cost *cost)
{
    ms_wait_collector *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->nseen = max_ctx < UINT32_MAX >> 1 ? max_ctx + 1 : UINT32_MAX >> 1;
    if (!(c->cpus = calloc(ncpus ? ncpus : 1, sizeof *c->cpus)) ||
        !(c->hot = calloc(ncpus ? ncpus : 1, sizeof *c->hot)) ||
        !(c->seen = calloc((size_t)(ncpus ? ncpus : 1) * c->nseen, sizeof *c->seen))) {
        free(c->cpus);
        free(c->hot);
        free(c);
        return NULL;
    }
    c->ncpus = ncpus;
    c->cost = cost;
    for (unsigned k = 0; k < ncpus; k++) {
        c->hot[k].seen = c->seen + (size_t)k * c->nseen;
        c->hot[k].ord = c->cpus[k].cur.ord = 1;
    }
    return c;
}

/* Append (key, n) to v. */
static void add_pair(ms_wait_collector *c, wc_pair **v, size_t *n, size_t *cap, uint32_t key, uint64_t value)
{
    if (ms_grow((void **)v, cap, *n + 1, sizeof **v) < 0) {
        c->failed = 1;
        return;
    }
    (*v)[(*n)++] = (wc_pair){ key, value };
}

void ms_wait_collector_work(ms_wait_collector *c, unsigned cpu, uint32_t block, uint64_t count)
{
    if (cpu >= c->ncpus) return;
    wc_segment *s = &c->cpus[cpu].cur;
    add_pair(c, &s->v, &s->n, &s->cap, block, count);
}

/* The slot of stall key `key` in p's hash: where it is, or the free slot where it goes. */
static inline size_t stall_slot(const wc_cpu *p, uint32_t key)
{
    size_t mask = p->nslot - 1, i = (size_t)((key * 2654435761u) & mask);
    while (p->slot[i] && p->cur.st[p->slot[i] - 1].block != key) i = (i + 1) & mask;
    return i;
}

/* Make p's hash hold twice its stall keys. 0 or -1 (out of memory). */
static int stall_rehash(wc_cpu *p)
{
    size_t n = p->nslot ? 2 * p->nslot : 64;
    uint32_t *v = calloc(n, sizeof *v);
    if (!v) return -1;
    free(p->slot);
    p->slot = v;
    p->nslot = n;
    for (size_t k = 0; k < p->cur.nst; k++) p->slot[stall_slot(p, p->cur.st[k].block)] = (uint32_t)(k + 1);
    return 0;
}

/* cpu's reference stalled cycles (> 0) under stall key `key`. Apart from ms_wait_collector_ref,
 * which is then a leaf for hits. */
__attribute__((noinline)) static void stalled(ms_wait_collector *c, unsigned cpu, uint32_t key, uint64_t cycles)
{
    wc_cpu *p = &c->cpus[cpu];
    wc_segment *s = &p->cur;
    /* consecutive stalls of one kind in one context add up in place (loops stall in runs) */
    if (s->nst && s->st[p->last].block == key) {
        s->st[p->last].count += cycles;
        return;
    }
    if (2 * (s->nst + 1) > p->nslot && (s->nst + 1 > UINT32_MAX || stall_rehash(p) < 0)) {
        c->failed = 1;
        return;
    }
    size_t i = stall_slot(p, key);
    if (p->slot[i]) {
        p->last = p->slot[i] - 1;
        s->st[p->last].count += cycles;
        return;
    }
    size_t n = s->nst;
    add_pair(c, &s->st, &s->nst, &s->stcap, key, cycles);
    if (s->nst == n) return; /* out of memory */
    p->slot[i] = (uint32_t)s->nst;
    p->last = n;
}

void ms_wait_collector_ref(ms_wait_collector *c, unsigned cpu, uint32_t ctx, uint64_t cycles, int comm)
{
    if (cpu >= c->ncpus || ctx >= c->nseen) return;
    wc_hot *h = &c->hot[cpu];
    h->seen[ctx] = h->ord;
    if (cycles) stalled(c, cpu, STALL_KEY(ctx, comm), cycles);
}

static int cmp_pair(const void *a, const void *b)
{
    const wc_pair *x = a, *y = b;
    return (x->block > y->block) - (x->block < y->block);
}

/* Sort pairs by key and add up equal keys; returns the count left. */
static size_t sort_merge(wc_pair *v, size_t n)
{
    if (n < 2) return n;
    qsort(v, n, sizeof *v, cmp_pair);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && v[k - 1].block == v[i].block)
            v[k - 1].count += v[i].count;
        else
            v[k++] = v[i];
    }
    return k;
}

void ms_wait_collector_arrive(ms_wait_collector *c, unsigned cpu, uint64_t serial)
{
    if (cpu >= c->ncpus) return;
    wc_cpu *p = &c->cpus[cpu];
    wc_segment *s = &p->cur;
    /* the hash emptied, the keys in the reverse of their insertion order (each one's probe
     * sequence then still holds only the earlier ones) */
    for (size_t k = s->nst; k-- > 0;) p->slot[stall_slot(p, s->st[k].block)] = 0;
    s->n = sort_merge(s->v, s->n);
    s->nst = sort_merge(s->st, s->nst); /* each key once: sorted */
    s->serial = serial;
    uint32_t ord = ++c->hot[cpu].ord;
    /* the oldest ring entry's buffers become the new current segment's */
    wc_segment old = p->ring[WC_RING - 1];
    memmove(&p->ring[1], &p->ring[0], (WC_RING - 1) * sizeof *p->ring);
    p->ring[0] = *s;
    *s = (wc_segment){ .v = old.v, .cap = old.cap, .ord = ord, .st = old.st, .stcap = old.stcap };
}

static const wc_segment *ended_segment(const ms_wait_collector *c, int cpu, uint64_t serial)
{
    if (cpu < 0 || (unsigned)cpu >= c->ncpus) return NULL;
    for (int i = 0; i < WC_RING; i++)
        if (c->cpus[cpu].ring[i].serial == serial) return &c->cpus[cpu].ring[i];
    return NULL;
}

/* The synchronisation point of wait w: (kind, code location), as Carnival's WT Map has it.
 * The object is not part of it: an OpenMP team's barrier and fork have a new object (the
 * region instance) each time the region runs, and one critical section's code guarding
 * several locks is one point; the point keeps its first wait's object. A spin's object is
 * always 0 (a flag array's elements, ptri's Ready[c], are one point: the spin's code). */
static wc_point *point_for(ms_wait_collector *c, const ms_replay_wait *w)
{
    uint64_t obj = w->kind == MS_SYNC_ATOMIC ? 0 : w->obj;
    for (size_t i = 0; i < c->npoints; i++) {
        ms_raw_wait_point *p = &c->points[i].p;
        if (p->kind == w->kind && p->ctx == w->ctx) return &c->points[i];
    }
    if (ms_grow((void **)&c->points, &c->cap, c->npoints + 1, sizeof *c->points) < 0) return NULL;
    wc_point *p = &c->points[c->npoints++];
    memset(p, 0, sizeof *p);
    p->p.kind = w->kind;
    p->p.obj = obj;
    p->p.ctx = w->ctx;
    if (!(p->p.by_cpu = calloc((size_t)(c->ncpus ? c->ncpus : 1) * MS_WAIT_NCLASSES, sizeof *p->p.by_cpu))) {
        c->npoints--;
        return NULL;
    }
    p->p.ncpus = c->ncpus;
    return p;
}

static int add_extra(wc_point *p, uint32_t block, uint64_t count, uint64_t cycles)
{
    for (size_t i = 0; i < p->p.nextra; i++)
        if (p->p.extra[i].block == block) {
            p->p.extra[i].extra_count += count;
            p->p.extra[i].extra_cycles += cycles;
            return 0;
        }
    if (ms_grow((void **)&p->p.extra, &p->extra_cap, p->p.nextra + 1, sizeof *p->p.extra) < 0) return -1;
    p->p.extra[p->p.nextra++] = (ms_raw_wait_extra){ block, count, cycles };
    return 0;
}

static int add_stall(wc_point *p, uint32_t ctx, uint64_t cycles)
{
    for (size_t i = 0; i < p->p.nstall; i++)
        if (p->p.stall[i].ctx == ctx) {
            p->p.stall[i].cycles += cycles;
            return 0;
        }
    if (ms_grow((void **)&p->p.stall, &p->stall_cap, p->p.nstall + 1, sizeof *p->p.stall) < 0) return -1;
    p->p.stall[p->p.nstall++] = (ms_raw_wait_stall){ ctx, cycles };
    return 0;
}

/* The instance joins the class of its signature (a new one if none). */
static int add_path(wc_point *p, uint64_t sig, uint32_t lead, uint64_t cycles)
{
    for (size_t i = 0; i < p->p.npaths; i++)
        if (p->p.paths[i].signature == sig) {
            p->p.paths[i].instances++;
            p->p.paths[i].cycles += cycles;
            return 0;
        }
    if (ms_grow((void **)&p->p.paths, &p->path_cap, p->p.npaths + 1, sizeof *p->p.paths) < 0) return -1;
    p->p.paths[p->p.npaths++] = (ms_raw_wait_path){ sig, lead, 1, cycles };
    return 0;
}

void ms_wait_collector_wait(ms_wait_collector *c, const ms_replay_wait *w)
{
    uint64_t d = w->to - w->from;
    if (!d) return;
    wc_point *p = point_for(c, w);
    if (!p) {
        c->failed = 1;
        return;
    }
    p->p.instances++;
    p->p.cycles += d;
    const wc_segment *late = ended_segment(c, w->late_cpu, w->late_serial);
    /* a lock waiter waits for the holder's critical section as a whole: nothing of it is
     * compared away */
    static const wc_segment none = { 0 };
    const wc_segment *mine = w->kind == MS_SYNC_ACQUIRE ? &none : ended_segment(c, (int)w->cpu, w->serial);
    const uint32_t *seen = mine && mine != &none ? c->hot[w->cpu].seen : NULL;
    uint64_t same = 0, unique = 0, comm = 0, sig = 1469598103934665603ull, lead_cycles = 0;
    uint32_t lead = UINT32_MAX;
    if (late && mine) {
        size_t j = 0;
        for (size_t i = 0; i < late->n; i++) {
            while (j < mine->n && mine->v[j].block < late->v[i].block) j++;
            uint64_t lc = late->v[i].count,
                     wc = j < mine->n && mine->v[j].block == late->v[i].block ? mine->v[j].count : 0;
            if (lc <= wc) continue;
            uint64_t cycles = ms_work_cost_cycles(c->cost, late->v[i].block, lc - wc);
            if (wc)
                same += cycles;
            else
                unique += cycles;
            sig = (sig ^ late->v[i].block) * 1099511628211ull; /* FNV-1a over the blocks, ascending */
            if (cycles > lead_cycles) {
                lead_cycles = cycles;
                lead = late->v[i].block;
            }
            if (add_extra(p, late->v[i].block, lc - wc, cycles) < 0) c->failed = 1;
        }
        j = 0;
        for (size_t i = 0; i < late->nst; i++) { /* where the late path stalled more, and why */
            uint32_t key = late->st[i].block, ctx = STALL_CTX(key);
            while (j < mine->nst && mine->st[j].block < key) j++;
            uint64_t ls = late->st[i].count, ws = j < mine->nst && mine->st[j].block == key ? mine->st[j].count : 0;
            if (ls <= ws) continue;
            if (STALL_COMM(key))
                comm += ls - ws;
            else if (seen && seen[ctx] == mine->ord) /* the waiter ran this code too */
                same += ls - ws;
            else
                unique += ls - ws;
            p->p.extra_stall += ls - ws;
            if (add_stall(p, ctx, ls - ws) < 0) c->failed = 1;
        }
    }
    if (add_path(p, sig, lead, d) < 0) c->failed = 1;
    uint64_t cls[MS_WAIT_NCLASSES] = { 0 }, total = same + unique + comm;
    if (w->kind == MS_SYNC_ACQUIRE) { /* waiting for a holder: contention */
        cls[MS_WAIT_COMMUNICATION] = d;
    } else if (!total) {
        cls[MS_WAIT_LOAD_IMBALANCE] = d;
    } else {
        cls[MS_WAIT_LOAD_IMBALANCE] = (uint64_t)((double)d * (double)same / (double)total);
        cls[MS_WAIT_INSUFFICIENT_PARALLELISM] = (uint64_t)((double)d * (double)unique / (double)total);
        cls[MS_WAIT_COMMUNICATION] = d - cls[MS_WAIT_LOAD_IMBALANCE] - cls[MS_WAIT_INSUFFICIENT_PARALLELISM];
    }
    uint64_t *mine_cls = w->cpu < p->p.ncpus ? p->p.by_cpu + (size_t)w->cpu * MS_WAIT_NCLASSES : NULL;
    for (int k = 0; k < MS_WAIT_NCLASSES; k++) {
        p->p.classes[k] += cls[k];
        if (mine_cls) mine_cls[k] += cls[k];
    }
}

static int cmp_point(const void *a, const void *b)
{
    const ms_raw_wait_point *x = a, *y = b;
    if (x->cycles != y->cycles) return x->cycles < y->cycles ? 1 : -1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    if (x->obj != y->obj) return x->obj < y->obj ? -1 : 1;
    return (x->ctx > y->ctx) - (x->ctx < y->ctx);
}

static int cmp_extra(const void *a, const void *b)
{
    const ms_raw_wait_extra *x = a, *y = b;
    if (x->extra_cycles != y->extra_cycles) return x->extra_cycles < y->extra_cycles ? 1 : -1;
    return (x->block > y->block) - (x->block < y->block);
}

static int cmp_path(const void *a, const void *b)
{
    const ms_raw_wait_path *x = a, *y = b;
    if (x->cycles != y->cycles) return x->cycles < y->cycles ? 1 : -1;
    return (x->signature > y->signature) - (x->signature < y->signature);
}

static int cmp_stall(const void *a, const void *b)
{
    const ms_raw_wait_stall *x = a, *y = b;
    if (x->cycles != y->cycles) return x->cycles < y->cycles ? 1 : -1;
    return (x->ctx > y->ctx) - (x->ctx < y->ctx);
}

int ms_wait_collector_finish(ms_wait_collector *c, ms_raw *raw)
{
    int failed = c->failed;
    ms_raw_wait_point *v = c->npoints ? calloc(c->npoints, sizeof *v) : NULL;
    if (c->npoints && !v) failed = 1;
    for (size_t i = 0; i < c->npoints; i++) {
        ms_raw_wait_point *p = &c->points[i].p;
        if (!v) {
            free(p->extra);
            free(p->stall);
            free(p->paths);
            free(p->by_cpu);
            continue;
        }
        if (p->nextra > 1) qsort(p->extra, p->nextra, sizeof *p->extra, cmp_extra);
        if (p->nstall > 1) qsort(p->stall, p->nstall, sizeof *p->stall, cmp_stall);
        if (p->npaths > 1) qsort(p->paths, p->npaths, sizeof *p->paths, cmp_path);
        v[i] = *p;
    }
    if (v) {
        qsort(v, c->npoints, sizeof *v, cmp_point);
        raw->wait_points = v;
        raw->nwait_points = c->npoints;
    }
    for (unsigned k = 0; k < c->ncpus; k++) {
        free(c->cpus[k].cur.v);
        free(c->cpus[k].cur.st);
        free(c->cpus[k].slot);
        for (int i = 0; i < WC_RING; i++) {
            free(c->cpus[k].ring[i].v);
            free(c->cpus[k].ring[i].st);
        }
    }
    free(c->cpus);
    free(c->hot);
    free(c->seen);
    free(c->points);
    free(c);
    return failed ? -1 : 0;
}
