/* Producer/consumer through a small ring buffer (Carnival's communication patterns, 2.2).
 *
 * One producer (the main thread) fills items of ITEM_DOUBLES doubles (one 64-byte line each) into a ring of
 * SLOTS items; every consumer reads every item (a broadcast queue), and a slot is refilled
 * once all consumers are done with it. A mutex and two condition variables guard the slot
 * states; the items themselves are written and read outside the lock.
 *
 * Each line of the buffer is written by the producer alone and then read: by one consumer
 * (CONSUMERS = 1), the single-producer/single-consumer pattern; by all of them (CONSUMERS = 3),
 * single-producer/multiple-consumer. The slot states, updated by everybody, form a separate
 * data bin with a pattern of its own.
 *
 * HANDOFF `sem` hands the items over with semaphores instead (per consumer: items filled for
 * it, items it has emptied; no slot states): every handoff is then a SEM_POST/SEM_WAIT pair in
 * the recorded streams whatever the OS schedule, where a consumer that finds its item already
 * filled under the mutex records no wait at all (docs/design-threads.md, "Locks are granted
 * in replay order"), so the replay's order, and the statistics, do not depend on the schedule
 * of the recorded run.
 *
 * usage: prodcons [CONSUMERS [ITEMS [HANDOFF]]]   (defaults 1 4000 cond; CONSUMERS + 1 threads)
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4
#define ITEM_DOUBLES 8
#define MAX_CONSUMERS 16

typedef struct {
    long seq;          /* number (from 1) of the item the slot holds, 0 = never filled */
    int readers_left;  /* consumers that have not read it yet */
} SlotState;

/* What the producer and the consumers share. */
typedef struct {
    double *buffer;          /* SLOTS items of ITEM_DOUBLES, line aligned */
    SlotState *slot_state;   /* guarded by lock */
    pthread_mutex_t lock;
    pthread_cond_t filled;   /* a slot received an item */
    pthread_cond_t emptied;  /* a slot was read by every consumer */
    int nconsumers;
    long nitems;
    int use_sem;                          /* HANDOFF sem: the semaphores below, not the states */
    sem_t sem_filled[MAX_CONSUMERS];      /* per consumer: items filled for it */
    sem_t sem_emptied[MAX_CONSUMERS];     /* per consumer: items it has read */
} Queue;

typedef struct {
    Queue *q;
    int index;
    double sum;  /* what this consumer read */
} Consumer;

/* The value of element e of item k: small integers, so every sum is exact. */
static double ItemValue(long k, int e) { return (double)((k * 7 + e * 3) % 101); }

static void *Produce(void *arg)
{
    Queue *q = arg;
    for (long k = 0; k < q->nitems; k++) {
        int s = (int)(k % SLOTS);
        if (q->use_sem) {
            for (int c = 0; c < q->nconsumers && k >= SLOTS; c++)
                sem_wait(&q->sem_emptied[c]); /* c has read item k - SLOTS */
        } else {
            pthread_mutex_lock(&q->lock);
            while (q->slot_state[s].readers_left > 0)
                pthread_cond_wait(&q->emptied, &q->lock);
            pthread_mutex_unlock(&q->lock);
        }
        double *item = &q->buffer[s * ITEM_DOUBLES];
        for (int e = 0; e < ITEM_DOUBLES; e++)
            item[e] = ItemValue(k, e);
        if (q->use_sem) {
            for (int c = 0; c < q->nconsumers; c++)
                sem_post(&q->sem_filled[c]);
            continue;
        }
        pthread_mutex_lock(&q->lock);
        q->slot_state[s].seq = k + 1;
        q->slot_state[s].readers_left = q->nconsumers;
        pthread_cond_broadcast(&q->filled);
        pthread_mutex_unlock(&q->lock);
    }
    return NULL;
}

static void *Consume(void *arg)
{
    Consumer *c = arg;
    Queue *q = c->q;
    double sum = 0;
    for (long k = 0; k < q->nitems; k++) {
        int s = (int)(k % SLOTS);
        if (q->use_sem) {
            sem_wait(&q->sem_filled[c->index]);
        } else {
            pthread_mutex_lock(&q->lock);
            while (q->slot_state[s].seq != k + 1)
                pthread_cond_wait(&q->filled, &q->lock);
            pthread_mutex_unlock(&q->lock);
        }
        const double *item = &q->buffer[s * ITEM_DOUBLES];
        for (int e = 0; e < ITEM_DOUBLES; e++)
            sum += item[e];
        if (q->use_sem) {
            sem_post(&q->sem_emptied[c->index]);
            continue;
        }
        pthread_mutex_lock(&q->lock);
        if (--q->slot_state[s].readers_left == 0)
            pthread_cond_signal(&q->emptied);
        pthread_mutex_unlock(&q->lock);
    }
    c->sum = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    int nconsumers = argc > 1 ? atoi(argv[1]) : 1;
    long nitems = argc > 2 ? atol(argv[2]) : 4000;
    const char *handoff = argc > 3 ? argv[3] : "cond";
    if (nconsumers < 1 || nconsumers > MAX_CONSUMERS || nitems < 1 ||
        (strcmp(handoff, "cond") != 0 && strcmp(handoff, "sem") != 0)) {
        fprintf(stderr, "usage: prodcons [CONSUMERS [ITEMS [cond|sem]]]\n");
        return 2;
    }
    Queue q = {.nconsumers = nconsumers, .nitems = nitems, .use_sem = strcmp(handoff, "sem") == 0};
    q.buffer = aligned_alloc(64, sizeof(double) * SLOTS * ITEM_DOUBLES);
    q.slot_state = calloc(SLOTS, sizeof(SlotState));
    if (!q.buffer || !q.slot_state) {
        perror("prodcons");
        return 1;
    }
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.filled, NULL);
    pthread_cond_init(&q.emptied, NULL);
    for (int c = 0; c < nconsumers; c++) {
        sem_init(&q.sem_filled[c], 0, 0);
        sem_init(&q.sem_emptied[c], 0, 0);
    }
    Consumer consumers[MAX_CONSUMERS];
    pthread_t consumer_tids[MAX_CONSUMERS];
    for (int c = 0; c < nconsumers; c++) {
        consumers[c] = (Consumer){&q, c, 0.0};
        if (pthread_create(&consumer_tids[c], NULL, Consume, &consumers[c]) != 0)
            return 1;
    }
    Produce(&q);   /* the main thread is the producer */
    for (int c = 0; c < nconsumers; c++)
        pthread_join(consumer_tids[c], NULL);
    double expected = 0;
    for (long k = 0; k < nitems; k++)
        for (int e = 0; e < ITEM_DOUBLES; e++)
            expected += ItemValue(k, e);
    int ok = 1;
    for (int c = 0; c < nconsumers; c++)
        ok &= consumers[c].sum == expected;
    printf("consumers=%d items=%ld sum=%.0f %s\n", nconsumers, nitems, expected,
           ok ? "ok" : "MISMATCH");
    pthread_cond_destroy(&q.filled);
    pthread_cond_destroy(&q.emptied);
    pthread_mutex_destroy(&q.lock);
    for (int c = 0; c < nconsumers; c++) {
        sem_destroy(&q.sem_filled[c]);
        sem_destroy(&q.sem_emptied[c]);
    }
    free(q.buffer);
    free(q.slot_state);
    return ok ? 0 : 1;
}
