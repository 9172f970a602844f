/* Worker threads and batch pipeline of the partitioned simulation (sim_workers.h).
 *
 * The producer publishes full batches into a ring of slots (batch k in slot k % nslots). Each
 * batch is cut into one slice per worker; any worker claims an unrouted slice of any published
 * batch (an atomic counter per batch) and routes it into per-worker index lists
 * (ms_psim_route); once every slice of a batch is routed, each worker runs its own lists, slice
 * by slice (ms_psim_apply_list): its partitions' references in stream order, and no worker
 * passes over another's references. A worker runs the batches in order and routes ahead while
 * the next one is not routed, so that several batches are in flight and nobody waits at a
 * barrier per batch. The slot is reused once every worker has run its batch (batches complete
 * in order: a worker runs them in order). With one worker there is no routing: it runs whole
 * batches (ms_psim_apply). Waiting: a short spin, then a condition variable, woken only when
 * someone sleeps (a counter read after each state change; seq_cst on both sides). A producer
 * that must sleep for a slot sleeps until half of the slots are free, so that it is woken once
 * per few batches, not once per batch. */
#define _GNU_SOURCE
#include "sim_workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

/* Batches published beyond those completed before the producer wakes sleeping workers: one
 * wake-up (of every sleeper) per four batches where the workers keep up with the producer, not
 * one per batch; fewer than the slots (2 x workers + 4, at least 6). */
#define WAKE_BEHIND 4u
/* Polls before a waiting thread sleeps (a pause each, then a yield each). */
#define SPIN_PAUSE 256u
#define SPIN_YIELD 16u

typedef struct {
    ms_psim_batch *b; /* NULL: never filled, or handed to the producer */
    uint16_t *idx;    /* slice k's list for worker w at (k * workers + w) * cap */
    uint32_t *cnt;    /* their lengths, [k * workers + w] */
    _Atomic unsigned claimed, routed, ran;
} slot;

struct ms_sim_workers {
    ms_psim *ps;
    unsigned want, started;
    uint32_t cap; /* operations per slice (the last slice may be shorter) */
    uint8_t worker_of[MS_PSIM_MAX_PARTS];
    slot *slot;
    size_t nslots;
    _Atomic uint64_t published, completed; /* batches handed over; batches every worker ran */
    _Atomic unsigned sleepers;             /* workers asleep on work_cv */
    _Atomic uint64_t producer_waits;       /* 0, or the completed count the producer sleeps for */
    _Atomic int done;
    pthread_mutex_t mu;
    pthread_cond_t work_cv, free_cv;
    pthread_t tid[MS_PSIM_MAX_PARTS];
    struct worker_arg {
        ms_sim_workers *w;
        unsigned i;
        uint64_t parts;
    } arg[MS_PSIM_MAX_PARTS];
};

unsigned ms_sim_workers_default(void)
{
    /* One until the capacity/conflict split is exact for any partition count: a power-of-two
     * stride can send every hot line to one partition, whose 1/P shadow then calls most of its
     * conflict misses capacity (naive matmul: 87%, docs/simulator.md). */
    return 1;
}

ms_sim_workers *ms_sim_workers_new(unsigned want)
{
    ms_sim_workers *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work_cv, NULL);
    pthread_cond_init(&w->free_cv, NULL);
    w->want = want ? want : 1;
    return w;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* After a state change that a sleeping worker may wait for: wake them if any sleeps. */
static void wake_workers(ms_sim_workers *w)
{
    if (!atomic_load(&w->sleepers)) return;
    pthread_mutex_lock(&w->mu);
    pthread_cond_broadcast(&w->work_cv);
    pthread_mutex_unlock(&w->mu);
}

/* Whether worker state (pos: next batch to run, rpos: batches before it fully claimed) has
 * anything to do, or the pipeline is done. */
static int has_work(ms_sim_workers *w, uint64_t pos, uint64_t rpos)
{
    uint64_t pub = atomic_load(&w->published);
    if (rpos < pub) return 1;
    if (pos < pub && atomic_load(&w->slot[pos % w->nslots].routed) == w->started) return 1;
    return atomic_load(&w->done);
}

static void sleep_worker(ms_sim_workers *w, uint64_t pos, uint64_t rpos)
{
    pthread_mutex_lock(&w->mu);
    atomic_fetch_add(&w->sleepers, 1);
    while (!has_work(w, pos, rpos)) pthread_cond_wait(&w->work_cv, &w->mu);
    atomic_fetch_sub(&w->sleepers, 1);
    pthread_mutex_unlock(&w->mu);
}

/* Route slice k of slot s's batch. */
static void route_slice(ms_sim_workers *w, slot *s, unsigned k)
{
    uint32_t lo = k * w->cap, hi = lo + w->cap;
    if (hi > s->b->n) hi = s->b->n;
    if (lo > hi) lo = hi;
    size_t at = (size_t)k * w->started;
    ms_psim_route(w->ps, s->b, lo, hi, w->worker_of, w->started, s->idx + at * w->cap, w->cap, s->cnt + at);
    if (atomic_fetch_add(&s->routed, 1) + 1 == w->started) wake_workers(w); /* seq_cst: see wake_workers */
}

/* Worker a->i runs its references of slot s's batch. */
static void run_batch(ms_sim_workers *w, const struct worker_arg *a, slot *s)
{
    if (w->started == 1) {
        ms_psim_apply(w->ps, s->b, a->parts);
    } else {
        for (unsigned k = 0; k < w->started; k++) {
            size_t at = (size_t)k * w->started + a->i;
            ms_psim_apply_list(w->ps, s->b, s->idx + at * w->cap, s->cnt[at], a->parts);
        }
    }
    if (atomic_fetch_add_explicit(&s->ran, 1, memory_order_acq_rel) + 1 == w->started) {
        uint64_t done = atomic_fetch_add(&w->completed, 1) + 1;
        uint64_t want = atomic_load(&w->producer_waits);
        if (want && done >= want) { /* it waits on free_cv (it set want under mu): signal once mu is free */
            pthread_mutex_lock(&w->mu);
            pthread_mutex_unlock(&w->mu);
            pthread_cond_signal(&w->free_cv);
        }
    }
}

static void *worker_main(void *p)
{
    const struct worker_arg *a = p;
    ms_sim_workers *w = a->w;
    pthread_mutex_lock(&w->mu); /* the start's fields (started, parts, slots) are set */
    pthread_mutex_unlock(&w->mu);
    uint64_t pos = 0, rpos = 0; /* the next batch to run; batches before rpos are fully claimed */
    unsigned idle = 0;
    for (;;) {
        uint64_t pub = atomic_load_explicit(&w->published, memory_order_acquire);
        if (pos < pub) {
            slot *s = &w->slot[pos % w->nslots];
            if (atomic_load_explicit(&s->routed, memory_order_acquire) == w->started) {
                run_batch(w, a, s);
                pos++;
                idle = 0;
                continue;
            }
        }
        if (rpos < pos) rpos = pos;
        int routed = 0;
        while (!routed && rpos < pub) { /* route a slice of the earliest batch with one left */
            slot *s = &w->slot[rpos % w->nslots];
            unsigned k = atomic_fetch_add_explicit(&s->claimed, 1, memory_order_relaxed);
            if (k < w->started) {
                route_slice(w, s, k);
                routed = 1;
            } else {
                rpos++;
            }
        }
        if (routed) {
            idle = 0;
            continue;
        }
        if (pos >= pub && atomic_load(&w->done)) {
            if (pos >= atomic_load(&w->published)) break; /* published before done was set */
            continue;
        }
        if (++idle <= SPIN_PAUSE) {
            cpu_relax();
        } else if (idle <= SPIN_PAUSE + SPIN_YIELD) {
            sched_yield();
        } else {
            sleep_worker(w, pos, rpos);
            idle = 0;
        }
    }
    return NULL;
}

unsigned ms_sim_workers_start(ms_sim_workers *w, ms_psim *ps)
{
    w->ps = ps;
    unsigned n = w->want < ms_psim_parts(ps) ? w->want : ms_psim_parts(ps);
    pthread_mutex_lock(&w->mu); /* the workers wait for the fields below */
    for (unsigned i = 0; i < n; i++) {
        w->arg[i] = (struct worker_arg){ w, i, 0 };
        if (pthread_create(&w->tid[i], NULL, worker_main, &w->arg[i]) != 0) break;
        w->started++;
    }
    unsigned ws = w->started ? w->started : 1;
    w->nslots = 2u * ws + 4 < 24 ? 2u * ws + 4 : 24;
    w->cap = (MS_PSIM_BATCH + ws - 1) / ws;
    for (unsigned i = 0; i < w->started; i++) w->arg[i].parts = ms_psim_worker_parts(ps, i, w->started);
    for (unsigned p = 0; p < ms_psim_parts(ps); p++) w->worker_of[p] = (uint8_t)(p % ws);
    int ok = (w->slot = calloc(w->nslots, sizeof *w->slot)) != NULL;
    for (size_t k = 0; ok && k < w->nslots && w->started > 1; k++) {
        w->slot[k].idx = malloc((size_t)ws * ws * w->cap * sizeof *w->slot[k].idx);
        w->slot[k].cnt = malloc((size_t)ws * ws * sizeof *w->slot[k].cnt);
        ok = w->slot[k].idx && w->slot[k].cnt;
    }
    if (!ok) { /* no room for the pipeline: the workers end at once, the producer simulates */
        atomic_store(&w->done, 1);
        pthread_mutex_unlock(&w->mu);
        for (unsigned i = 0; i < w->started; i++) pthread_join(w->tid[i], NULL);
        w->started = 0;
        return 0;
    }
    pthread_mutex_unlock(&w->mu);
    return w->started;
}

/* Wait until batch seq (and every earlier one) has been run by every worker; after a spin,
 * sleep until half of the slots are free (the batches before published - nslots / 2 run). */
static void wait_completed(ms_sim_workers *w, uint64_t seq)
{
    for (unsigned i = 0; atomic_load_explicit(&w->completed, memory_order_acquire) <= seq; i++) {
        if (i < SPIN_PAUSE) {
            cpu_relax();
            continue;
        }
        uint64_t pub = atomic_load_explicit(&w->published, memory_order_relaxed); /* written by this thread */
        uint64_t want = pub - w->nslots / 2;
        if (want < seq + 1) want = seq + 1;
        pthread_mutex_lock(&w->mu);
        atomic_store(&w->producer_waits, want);
        if (atomic_load(&w->sleepers)) pthread_cond_broadcast(&w->work_cv); /* behind: let them all run */
        while (atomic_load(&w->completed) < want) pthread_cond_wait(&w->free_cv, &w->mu);
        atomic_store(&w->producer_waits, 0);
        pthread_mutex_unlock(&w->mu);
    }
}

ms_psim_batch *ms_sim_workers_submit(void *ud, ms_psim_batch *full)
{
    ms_sim_workers *w = ud;
    if (!w->started) { /* no worker: the producer simulates */
        ms_psim_apply(w->ps, full, ms_psim_worker_parts(w->ps, 0, 1));
        return full;
    }
    uint64_t seq = atomic_load_explicit(&w->published, memory_order_relaxed); /* written here only */
    slot *s = &w->slot[seq % w->nslots];
    s->b = full;
    unsigned pre = w->started == 1 ? 1u : 0u; /* one worker: nothing to route */
    atomic_store_explicit(&s->claimed, pre, memory_order_relaxed);
    atomic_store_explicit(&s->routed, pre, memory_order_relaxed);
    atomic_store_explicit(&s->ran, 0, memory_order_relaxed);
    atomic_store(&w->published, seq + 1);
    if (seq + 1 - atomic_load(&w->completed) >= WAKE_BEHIND) wake_workers(w);
    /* the next batch: the slot's earlier one once every worker has run it, or a new one */
    slot *next = &w->slot[(seq + 1) % w->nslots];
    if (seq + 1 >= w->nslots) wait_completed(w, seq + 1 - w->nslots);
    ms_psim_batch *e = next->b;
    next->b = NULL;
    return e ? e : ms_psim_batch_new(w->ps);
}

void ms_sim_workers_finish(ms_sim_workers *w)
{
    if (!w) return;
    if (w->ps) ms_psim_flush(w->ps);
    if (w->started) {
        atomic_store(&w->done, 1);
        pthread_mutex_lock(&w->mu);
        pthread_cond_broadcast(&w->work_cv);
        pthread_mutex_unlock(&w->mu);
        for (unsigned i = 0; i < w->started; i++) pthread_join(w->tid[i], NULL);
    }
    for (size_t k = 0; w->slot && k < w->nslots; k++) {
        if (w->slot[k].b) ms_psim_batch_free(w->ps, w->slot[k].b);
        free(w->slot[k].idx);
        free(w->slot[k].cnt);
    }
    free(w->slot);
    pthread_cond_destroy(&w->work_cv);
    pthread_cond_destroy(&w->free_cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
