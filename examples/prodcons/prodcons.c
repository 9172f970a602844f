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
 * usage: prodcons [CONSUMERS [ITEMS]]      (defaults 1 4000; CONSUMERS + 1 threads)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

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
} Queue;

typedef struct {
    Queue *q;
    double sum;  /* what this consumer read */
} Consumer;

/* The value of element e of item k: small integers, so every sum is exact. */
static double ItemValue(long k, int e) { return (double)((k * 7 + e * 3) % 101); }

static void *Produce(void *arg)
{
    Queue *q = arg;
    for (long k = 0; k < q->nitems; k++) {
        int s = (int)(k % SLOTS);
        pthread_mutex_lock(&q->lock);
        while (q->slot_state[s].readers_left > 0)
            pthread_cond_wait(&q->emptied, &q->lock);
        pthread_mutex_unlock(&q->lock);
        double *item = &q->buffer[s * ITEM_DOUBLES];
        for (int e = 0; e < ITEM_DOUBLES; e++)
            item[e] = ItemValue(k, e);
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
        pthread_mutex_lock(&q->lock);
        while (q->slot_state[s].seq != k + 1)
            pthread_cond_wait(&q->filled, &q->lock);
        pthread_mutex_unlock(&q->lock);
        const double *item = &q->buffer[s * ITEM_DOUBLES];
        for (int e = 0; e < ITEM_DOUBLES; e++)
            sum += item[e];
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
    if (nconsumers < 1 || nconsumers > MAX_CONSUMERS || nitems < 1) {
        fprintf(stderr, "usage: prodcons [CONSUMERS [ITEMS]]\n");
        return 2;
    }
    Queue q = {.nconsumers = nconsumers, .nitems = nitems};
    q.buffer = aligned_alloc(64, sizeof(double) * SLOTS * ITEM_DOUBLES);
    q.slot_state = calloc(SLOTS, sizeof(SlotState));
    if (!q.buffer || !q.slot_state) {
        perror("prodcons");
        return 1;
    }
    pthread_mutex_init(&q.lock, NULL);
    pthread_cond_init(&q.filled, NULL);
    pthread_cond_init(&q.emptied, NULL);
    Consumer consumers[MAX_CONSUMERS];
    pthread_t consumer_tids[MAX_CONSUMERS];
    for (int c = 0; c < nconsumers; c++) {
        consumers[c] = (Consumer){&q, 0.0};
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
    free(q.buffer);
    free(q.slot_state);
    return ok ? 0 : 1;
}
