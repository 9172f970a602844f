/* Worker threads and batch queues of the partitioned simulation (sim_workers.h). */
#define _GNU_SOURCE
#include "sim_workers.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

struct ms_sim_workers {
    pthread_mutex_t mu;
    pthread_cond_t free_cv;
    ms_psim *ps;
    unsigned want, started;
    struct {
        ms_psim_batch *head, *tail;
        pthread_cond_t cv; /* signalled only while the worker sleeps */
        int sleeping;
    } q[MS_PSIM_MAX_PARTS]; /* one per worker */
    ms_psim_batch *free;
    size_t nbatches, max_batches; /* batches allocated here (psim holds one per partition more) */
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
    for (unsigned i = 0; i < MS_PSIM_MAX_PARTS; i++) pthread_cond_init(&w->q[i].cv, NULL);
    w->want = want ? want : 1;
    return w;
}

static void *worker_main(void *p)
{
    struct worker_arg *a = p;
    ms_sim_workers *w = a->w;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->q[a->i].head && !w->done) {
            w->q[a->i].sleeping = 1;
            pthread_cond_wait(&w->q[a->i].cv, &w->mu);
            w->q[a->i].sleeping = 0;
        }
        ms_psim_batch *b = w->q[a->i].head;
        if (!b) break;
        w->q[a->i].head = b->next;
        if (!b->next) w->q[a->i].tail = NULL;
        pthread_mutex_unlock(&w->mu);
        ms_psim_apply(w->ps, b);
        pthread_mutex_lock(&w->mu);
        b->next = w->free;
        w->free = b;
        if (w->producer_waits) pthread_cond_signal(&w->free_cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

unsigned ms_sim_workers_start(ms_sim_workers *w, ms_psim *ps)
{
    w->ps = ps;
    unsigned n = w->want < ms_psim_parts(ps) ? w->want : ms_psim_parts(ps);
    w->max_batches = 2u * ms_psim_parts(ps) + 2;
    for (unsigned i = 0; i < n; i++) {
        w->arg[i] = (struct worker_arg){ w, i };
        if (pthread_create(&w->tid[i], NULL, worker_main, &w->arg[i]) != 0) break;
        w->started++;
    }
    return w->started;
}

ms_psim_batch *ms_sim_workers_submit(void *ud, ms_psim_batch *full)
{
    ms_sim_workers *w = ud;
    if (!w->started) { /* no worker: the producer simulates */
        ms_psim_apply(w->ps, full);
        return full;
    }
    pthread_mutex_lock(&w->mu);
    unsigned i = full->part % w->started;
    full->next = NULL;
    if (w->q[i].tail)
        w->q[i].tail->next = full;
    else
        w->q[i].head = full;
    w->q[i].tail = full;
    if (w->q[i].sleeping) pthread_cond_signal(&w->q[i].cv);
    ms_psim_batch *e = NULL;
    for (;;) {
        if (w->free) {
            e = w->free;
            w->free = e->next;
            break;
        }
        if (w->nbatches < w->max_batches) {
            if ((e = ms_psim_batch_new(w->ps, full->part))) w->nbatches++;
            break;
        }
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
    for (unsigned i = 0; i < w->started; i++) pthread_cond_signal(&w->q[i].cv);
    pthread_mutex_unlock(&w->mu);
    for (unsigned i = 0; i < w->started; i++) pthread_join(w->tid[i], NULL);
    while (w->free) {
        ms_psim_batch *b = w->free;
        w->free = b->next;
        ms_psim_batch_free(w->ps, b);
    }
    for (unsigned i = 0; i < MS_PSIM_MAX_PARTS; i++) pthread_cond_destroy(&w->q[i].cv);
    pthread_cond_destroy(&w->free_cv);
    pthread_mutex_destroy(&w->mu);
    free(w);
}
