/* Worker threads and batch queue of the partitioned simulation (sim_workers.h). Every batch
 * goes to every worker (each runs the references of its own partitions): the published
 * batches form one ring that each worker reads at its own position; a batch goes back to the
 * free list when the last worker has run it. */
#define _GNU_SOURCE
#include "sim_workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

/* Batches a worker may fall behind before the producer wakes it, when it sleeps: one wake-up
 * per two batches, not one per batch. */
#define WAKE_BEHIND 2u

struct ms_sim_workers {
    pthread_mutex_t mu;
    pthread_cond_t free_cv;
    ms_psim *ps;
    unsigned want, started;
    ms_psim_batch **ring; /* published batch k is ring[k % max_batches] until every worker ran it */
    uint64_t published;
    struct {
        uint64_t pos; /* the next batch it runs */
        uint64_t parts;
        pthread_cond_t cv; /* signalled only while it sleeps */
        int sleeping;
    } wk[MS_PSIM_MAX_PARTS];
    ms_psim_batch *free;
    size_t nbatches, max_batches; /* batches allocated here (psim holds one more) */
    int done, producer_waits;
    pthread_t tid[MS_PSIM_MAX_PARTS];
    struct worker_arg {
        ms_sim_workers *w;
        unsigned i;
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
    pthread_cond_init(&w->free_cv, NULL);
    for (unsigned i = 0; i < MS_PSIM_MAX_PARTS; i++) pthread_cond_init(&w->wk[i].cv, NULL);
    w->want = want ? want : 1;
    return w;
}

static void *worker_main(void *p)
{
    struct worker_arg *a = p;
    ms_sim_workers *w = a->w;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (w->wk[a->i].pos == w->published && !w->done) {
            w->wk[a->i].sleeping = 1;
            pthread_cond_wait(&w->wk[a->i].cv, &w->mu);
            w->wk[a->i].sleeping = 0;
        }
        if (w->wk[a->i].pos == w->published) break;
        ms_psim_batch *b = w->ring[w->wk[a->i].pos++ % w->max_batches];
        pthread_mutex_unlock(&w->mu);
        ms_psim_apply(w->ps, b, w->wk[a->i].parts);
        pthread_mutex_lock(&w->mu);
        if (--b->pending == 0) {
            b->next = w->free;
            w->free = b;
            if (w->producer_waits) pthread_cond_signal(&w->free_cv);
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

unsigned ms_sim_workers_start(ms_sim_workers *w, ms_psim *ps)
{
    w->ps = ps;
    unsigned n = w->want < ms_psim_parts(ps) ? w->want : ms_psim_parts(ps);
    w->max_batches = 2u * n + 4;
    if (!(w->ring = calloc(w->max_batches, sizeof *w->ring))) return 0;
    for (unsigned i = 0; i < n; i++) {
        w->arg[i] = (struct worker_arg){ w, i };
        if (pthread_create(&w->tid[i], NULL, worker_main, &w->arg[i]) != 0) break;
        w->started++;
    }
    /* the partitions spread over the workers that started (read with the first batch) */
    pthread_mutex_lock(&w->mu);
    for (unsigned i = 0; i < w->started; i++) w->wk[i].parts = ms_psim_worker_parts(ps, i, w->started);
    pthread_mutex_unlock(&w->mu);
    return w->started;
}

/* Wake the sleeping workers that are at least `behind` batches behind (mu held). */
static void wake(ms_sim_workers *w, uint64_t behind)
{
    for (unsigned i = 0; i < w->started; i++)
        if (w->wk[i].sleeping && w->published - w->wk[i].pos >= behind) pthread_cond_signal(&w->wk[i].cv);
}

ms_psim_batch *ms_sim_workers_submit(void *ud, ms_psim_batch *full)
{
    ms_sim_workers *w = ud;
    if (!w->started) { /* no worker: the producer simulates */
        ms_psim_apply(w->ps, full, ms_psim_worker_parts(w->ps, 0, 1));
        return full;
    }
    pthread_mutex_lock(&w->mu);
    full->pending = w->started;
    w->ring[w->published++ % w->max_batches] = full;
    wake(w, WAKE_BEHIND);
    ms_psim_batch *e = NULL;
    for (;;) {
        if (w->free) {
            e = w->free;
            w->free = e->next;
            break;
        }
        if (w->nbatches < w->max_batches - 1) {
            if ((e = ms_psim_batch_new(w->ps))) w->nbatches++;
            break;
        }
        wake(w, 1);
        w->producer_waits = 1;
        pthread_cond_wait(&w->free_cv, &w->mu);
        w->producer_waits = 0;
    }
    pthread_mutex_unlock(&w->mu);
    return e;
}

void ms_sim_workers_finish(ms_sim_workers *w)
{
    if (!w) return;
    if (w->ps) ms_psim_flush(w->ps);
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    for (unsigned i = 0; i < w->started; i++) pthread_cond_signal(&w->wk[i].cv);
    pthread_mutex_unlock(&w->mu);
    for (unsigned i = 0; i < w->started; i++) pthread_join(w->tid[i], NULL);
    while (w->free) {
        ms_psim_batch *b = w->free;
        w->free = b->next;
        ms_psim_batch_free(w->ps, b);
    }
    free(w->ring);
    for (unsigned i = 0; i < MS_PSIM_MAX_PARTS; i++) pthread_cond_destroy(&w->wk[i].cv);
    pthread_cond_destroy(&w->free_cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
