/* The replay's synchronisation objects (locks, condition variables, semaphores, barrier
 * episodes and arrival counters, OpenMP forks), found by (type, a, b) in a chained hash table
 * that grows with the number of live objects. Internal to src/replay. */
#ifndef MEMSPY_REPLAY_SYNC_TABLE_H
#define MEMSPY_REPLAY_SYNC_TABLE_H
#include <stddef.h>
#include <stdint.h>

struct replay_thread; /* replay.c: threads queue on locks and condition variables */

typedef enum {
    SYNC_LOCK,     /* a = lock address */
    SYNC_COND,     /* a = condition variable address */
    SYNC_SEM,      /* a = semaphore address */
    SYNC_EPISODE,  /* a = barrier id, b = generation */
    SYNC_ARRIVALS, /* a = thread index, b = barrier id: arrivals so far (the generation) */
    SYNC_FORK,     /* a = parallel region instance id */
    SYNC_ATOMIC,   /* a = address of an atomic variable: its releasing events (replay_atomic.c) */
} sync_type;

/* A COND_SIGNAL that no waiter has taken yet (or a broadcast, which every matching waiter
 * takes), kept for waits that come later in replay order. */
typedef struct {
    uint64_t seq;
    int broadcast;
} pending_signal;

/* A FIFO of waiting threads, linked through the threads' own wait_next. */
typedef struct {
    struct replay_thread *head, *tail;
} wait_queue;

typedef struct sync_obj {
    struct sync_obj *next; /* hash chain */
    uint64_t a, b;
    sync_type type;
    union {
        struct {
            uint32_t exclusive, shared;
            wait_queue waiters;
        } lock; /* holders, FIFO */
        struct {
            wait_queue waiters;
            pending_signal *pending;
            size_t npending, cap;
        } cond;
        int64_t count; /* SEM count, ARRIVALS count, FORK: team members still to begin */
        struct {
            uint64_t arrived, waiting;
            int completed;
        } episode;
        struct {
            uint64_t *seqs;        /* recorded seqs of its releasing events, ascending */
            unsigned char *done;   /* per seq: replayed */
            size_t n, cap, prefix; /* prefix: the first `prefix` of them are all replayed */
            /* the storage of seqs and done while there is one release (most atomics: a flag
             * set once), so that a lookup touches one allocation and the run allocates one
             * object per address instead of three */
            uint64_t seq1;
            unsigned char done1;
        } atomic;
    } u;
} sync_obj;

/* Atomics' objects, never removed one by one, come from blocks of many: allocated and freed
 * in a few calls, and side by side in the order the pre-scan found them. */
#define SYNC_POOL_OBJS 1024u
typedef struct sync_pool {
    struct sync_pool *next;
    size_t used;
    sync_obj obj[SYNC_POOL_OBJS];
} sync_pool;

typedef struct {
    sync_obj **buckets;
    size_t nbuckets, nobjs;
    sync_pool *pool; /* the atomics' blocks, the newest first */
} sync_table;

/* The object (type, a, b), or NULL if there is none. */
sync_obj *sync_find(const sync_table *t, sync_type type, uint64_t a, uint64_t b);

/* The object (type, a, b), created zeroed if there is none; NULL when out of memory. */
sync_obj *sync_get(sync_table *t, sync_type type, uint64_t a, uint64_t b);

/* Remove and free o (an object of t) and what it owns. */
void sync_remove(sync_table *t, sync_obj *o);

/* Free every object. */
void sync_table_free(sync_table *t);

#endif
