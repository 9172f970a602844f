/* Threads mode and thread creation.
 *
 * One-processor mode (the default) feeds every flushed buffer to the in-process simulator.
 * Threads mode sends each thread's accesses and synchronisation events to its own stream
 * DIR/thread-N.zst instead (MEMSPY_RECORD_DIR), to be replayed on a multiprocessor after the
 * program exits: it starts at activation with MEMSPY_THREADS=1, or when a second thread
 * appears (pthread_create, an OpenMP team, a pool thread's first access). A late switch keeps
 * the prefix's counters in process and drops it from the streams (the raw file says so).
 *
 * pthread_create is interposed: the parent gives the child its index before the real create
 * (so it can record CREATE(child)), and the child starts in a trampoline that adopts it.
 * pthread_join records JOIN(child index) once the child is gone; EXIT is recorded by the
 * thread-exit destructor (runtime.c). A forked child is left alone: not profiled. */
#include "rt.h"
#include "../format/stream.h"
#include <pthread.h>
#include <sched.h>

volatile int ms_streams_mode;
static int switched_mid_run;
static int switch_flag; /* serialises switches */

/* ---- the switch ---- */

void ms_threads_mode_start(void)
{
    if (ms_rec_active()) ms_streams_mode = 1;
}

int ms_threads_mode_switched(void) { return switched_mid_run; }

static void restart_stream(ms_thread_data *d, void *ud)
{
    (void)ud;
    ms_flush_flag_take(d);
    ms_rec_thread_restart(d);
    ms_flush_flag_give(d);
}

void ms_threads_mode_enter(void)
{
    if (MS_LIKELY(ms_streams_mode) || !ms_rt_on || !ms_rec_active()) return;
    ms_thread *t = &ms_tls;
    uint8_t prev = ms_busy_begin();
    if (t->data) { /* the calling thread's prefix is simulated in process */
        ms_flush_flag_take(t->data);
        ms_events_flush_data(t->data, &t->nev, 0);
        ms_flush_flag_give(t->data);
    }
    while (__atomic_exchange_n(&switch_flag, 1, __ATOMIC_ACQUIRE)) sched_yield();
    if (!ms_streams_mode) {
        /* A flush holds its block's flag while it reads the mode, simulates and writes its
         * chunk, so each chunk is either simulated and dropped here, or streamed only. */
        __atomic_store_n(&ms_streams_mode, 1, __ATOMIC_SEQ_CST);
        switched_mid_run = 1;
        ms_threads_each_data(restart_stream, NULL);
    }
    __atomic_store_n(&switch_flag, 0, __ATOMIC_RELEASE);
    ms_busy_end(prev);
}

/* ---- fork: the child is not profiled ---- */

static void forked_child(void) { __atomic_store_n(&ms_rt_on, 0, __ATOMIC_RELEASE); }

void ms_threads_init(void) { pthread_atfork(NULL, NULL, forked_child); }

/* ---- pthread_t -> thread index (for JOIN), and the start records of new threads ---- */

#define TABLE_SLOTS (1u << 14)

typedef struct {
    pthread_t thread;
    uint32_t index_plus1;
} thread_slot;

typedef struct start_record {
    void *(*fn)(void *);
    void *arg;
    uint32_t index;
    struct start_record *next_free;
} start_record;

static thread_slot *table; /* open addressing; index_plus1 0 = free */
static start_record *free_records;
static int table_flag;

static void table_lock(void)
{
    while (__atomic_exchange_n(&table_flag, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static void table_unlock(void) { __atomic_store_n(&table_flag, 0, __ATOMIC_RELEASE); }

static uint32_t slot_of(pthread_t th)
{
    return (uint32_t)(((uint64_t)th * 0x9e3779b97f4a7c15ull) >> 40) & (TABLE_SLOTS - 1);
}

/* Remember th's index (a reused pthread_t replaces the old entry). Lock held. */
static void table_put(pthread_t th, uint32_t index)
{
    if (!table && !(table = ms_map(TABLE_SLOTS * sizeof *table))) return;
    uint32_t j = slot_of(th);
    for (uint32_t probes = 0; probes < TABLE_SLOTS; probes++, j = (j + 1) & (TABLE_SLOTS - 1)) {
        if (table[j].index_plus1 && !pthread_equal(table[j].thread, th)) continue;
        table[j].thread = th;
        table[j].index_plus1 = index + 1;
        return;
    }
}

/* th's index + 1, 0 if unknown. Lock held. Entries stay (a later create of the same
 * pthread_t overwrites them), so probing never needs tombstones. */
static uint32_t table_get(pthread_t th)
{
    if (!table) return 0;
    uint32_t j = slot_of(th);
    for (uint32_t probes = 0; probes < TABLE_SLOTS && table[j].index_plus1; probes++) {
        if (pthread_equal(table[j].thread, th)) return table[j].index_plus1;
        j = (j + 1) & (TABLE_SLOTS - 1);
    }
    return 0;
}

static start_record *record_take(void)
{
    table_lock();
    start_record *r = free_records;
    if (r) free_records = r->next_free;
    table_unlock();
    return r ? r : ms_arena_alloc(sizeof *r);
}

static void record_give(start_record *r)
{
    table_lock();
    r->next_free = free_records;
    free_records = r;
    table_unlock();
}

/* ---- interposed functions ---- */

typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int join_fn(pthread_t, void **);

/* The child's first code: adopt the index the parent gave, then run the program's function. */
static void *thread_start(void *p)
{
    start_record *r = p;
    void *(*fn)(void *) = r->fn;
    void *arg = r->arg;
    ms_thread *t = &ms_tls;
    if (t->mode == MS_T_NEW) {
        t->preset_index = r->index + 1;
        ms_thread_can_record(t);
    }
    record_give(r);
    return fn(arg);
}

/* pthread_create: CREATE(child index) in the parent before the real create. */
int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static create_fn *real_create;
    if (MS_UNLIKELY(!real_create)) real_create = (create_fn *)ms_real_function("pthread_create", NULL);
    ms_thread *t = &ms_tls;
    if (!ms_rt_on || !ms_thread_can_record(t)) return real_create(th, attr, fn, arg);
    start_record *r = record_take();
    if (!r) return real_create(th, attr, fn, arg);
    ms_threads_mode_enter();
    r->fn = fn;
    r->arg = arg;
    r->index = ms_thread_index_next();
    ms_sync_event(MS_SYNC_CREATE, r->index, 0, (uintptr_t)__builtin_return_address(0));
    uint32_t index = r->index; /* r may be recycled by the child once it runs */
    int rc = real_create(th, attr, thread_start, r);
    if (rc != 0) {
        record_give(r);
        return rc;
    }
    table_lock();
    table_put(*th, index);
    table_unlock();
    return rc;
}

/* pthread_join: JOIN(child index) once the child has ended. */
int pthread_join(pthread_t th, void **ret)
{
    static join_fn *real_join;
    if (MS_UNLIKELY(!real_join)) real_join = (join_fn *)ms_real_function("pthread_join", NULL);
    table_lock();
    uint32_t index_plus1 = table_get(th);
    table_unlock();
    int rc = real_join(th, ret);
    if (rc == 0 && index_plus1) ms_sync_event(MS_SYNC_JOIN, index_plus1 - 1, 0, (uintptr_t)__builtin_return_address(0));
    return rc;
}
