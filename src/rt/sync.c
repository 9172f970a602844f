/* Synchronisation events (format/stream.h, version 2) from the pthread and semaphore calls of
 * the program, interposed in the executable (the real functions come from dlsym/dlvsym).
 *
 * Events are recorded in threads mode only, into the thread's event buffer beside its
 * accesses, each stamped with a process-wide sequence number when the operation happens:
 * an acquire after acquiring, a release/post/signal before, a barrier/wait after returning.
 * The runtime's own locks are taken while the thread is inside the runtime (BUSY), so they
 * are never recorded. Every interposed function drains the thread's plugin records before the
 * real call, whatever the mode: a barrier or a condition wait releases inside
 * the call, and what another thread does once it returns (free, exit) must not race with a
 * drain still under way (rt.h, ms_plug_sync_ready). */
#include "rt.h"
#include "../format/stream.h"
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <semaphore.h>

static uint64_t sync_seq;

void *ms_real_function(const char *name, const char *version)
{
    uint8_t prev = ms_busy_begin(); /* dlsym may allocate */
    void *f = version ? dlvsym(RTLD_NEXT, name, version) : dlsym(RTLD_NEXT, name);
    ms_busy_end(prev);
    return f;
}

void ms_sync_put(ms_thread *t, uint32_t kind, uint64_t obj, uint64_t arg, uint64_t seq, uintptr_t site,
                 uint32_t obj_bin)
{
    if (t->nev + 2 > MS_EVENTS_PER_THREAD) ms_events_flush(t);
    ms_event *e = &t->data->ev[t->nev];
    e[0].addr = obj;
    e[0].pc = seq;
    e[0].bin = MS_EV_SYNC_BIN;
    e[0].size_flags = kind;
    e[1].addr = arg;
    e[1].pc = site;
    e[1].bin = MS_EV_SYNC_BIN;
    e[1].size_flags = obj_bin; /* the site context's bin (events.c) */
    t->nev += 2;
    if (t->nev == MS_EVENTS_PER_THREAD) ms_events_flush(t);
}

/* ms_sync_event's and ms_sync_event_at's body; at: obj is an address whose bin the site's
 * context carries. */
static void sync_event(uint32_t kind, uint64_t obj, uint64_t arg, uintptr_t site, int at)
{
    if (ms_tls.mode == MS_T_READY) ms_plug_sync(); /* accesses before the event (plugin.c) */
    if (MS_LIKELY(!ms_streams_mode)) return;
    ms_thread *t = &ms_tls;
    if (!ms_thread_can_record(t)) return;
    if (t->data->blk_npending) ms_blocks_emit_work(t); /* the work since the last event */
    /* the object's bin as an access to it would get it (a lock in a heap block, a global,
     * a stack variable); none for the first page, which holds no object */
    uint32_t obj_bin = at && site && obj >= 4096 ? ms_resolve_bin(t, (uintptr_t)obj) : 0;
    ms_sync_put(t, kind, obj, arg, __atomic_add_fetch(&sync_seq, 1, __ATOMIC_SEQ_CST), site, obj_bin);
}

void ms_sync_event(uint32_t kind, uint64_t obj, uint64_t arg, uintptr_t site) { sync_event(kind, obj, arg, site, 0); }

void ms_sync_event_at(uint32_t kind, uint64_t obj, uint64_t arg, uintptr_t site)
{
    sync_event(kind, obj, arg, site, 1);
}

/* In an interposed function: real_<name>, the real function (looked up once; a race only
 * repeats the lookup). version: NULL for the default one. */
#define REAL(name, version)               \
    static __typeof__(name) *real_##name; \
    if (MS_UNLIKELY(!real_##name)) real_##name = (__typeof__(name) *)ms_real_function(#name, version)

#define OBJ(p) ((uint64_t)(uintptr_t)(p))

/* ---- synchronisation an OpenMP runtime does for itself ----
 * libomp hands work to its threads through pthread mutexes and condition variables, as often
 * as the schedule makes it; the program's OpenMP synchronisation is already recorded from the
 * OpenMP entry points (omp.c, ompt.c). So pthread calls made from inside an OpenMP runtime
 * library are not recorded: the streams then depend on the program, not on the schedule. */

#define MAX_OMP_TEXTS 4
static struct {
    uintptr_t lo, hi;
} omp_text[MAX_OMP_TEXTS];
static int omp_ntext = -1; /* -1 until looked up (once: the runtime is a DT_NEEDED library) */

/* 1 if the file name's last component starts with prefix. */
static int base_starts_with(const char *path, const char *prefix)
{
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/') base = p + 1;
    size_t n = ms_strlen(prefix);
    for (size_t i = 0; i < n; i++)
        if (base[i] != prefix[i]) return 0;
    return 1;
}

static int find_omp_text(struct dl_phdr_info *info, size_t size, void *ud)
{
    (void)size;
    int *n = ud;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (!base_starts_with(name, "libomp") && !base_starts_with(name, "libgomp") && !base_starts_with(name, "libiomp"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && *n < MAX_OMP_TEXTS; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        omp_text[*n].lo = info->dlpi_addr + ph->p_vaddr;
        omp_text[*n].hi = omp_text[*n].lo + ph->p_memsz;
        (*n)++;
    }
    return 0;
}

/* Whether return address ra lies in an OpenMP runtime library's code. */
static int from_omp_runtime(uintptr_t ra)
{
    int n = __atomic_load_n(&omp_ntext, __ATOMIC_ACQUIRE);
    if (MS_UNLIKELY(n < 0)) {
        int found = 0;
        dl_iterate_phdr(find_omp_text, &found);
        __atomic_store_n(&omp_ntext, found, __ATOMIC_RELEASE);
        n = found;
    }
    for (int i = 0; i < n; i++)
        if (ra - omp_text[i].lo < omp_text[i].hi - omp_text[i].lo) return 1;
    return 0;
}

/* Record a synchronisation event of the program (not of an OpenMP runtime): used in the
 * interposed functions, whose caller is the return address (the event's site). */
#define PROGRAM_SYNC(kind, obj, arg)                                                          \
    do {                                                                                      \
        uintptr_t ra_ = (uintptr_t)__builtin_return_address(0);                               \
        if (ms_streams_mode && !from_omp_runtime(ra_)) ms_sync_event_at(kind, obj, arg, ra_); \
    } while (0)

/* A lock operation that records ACQUIRE(lock, mode) when it succeeds (returns 0). */
#define ACQUIRING(name, type, mode)                                  \
    int name(type *lock)                                             \
    {                                                                \
        REAL(name, NULL);                                            \
        ms_plug_sync_ready();                                        \
        int rc = real_##name(lock);                                  \
        if (rc == 0) PROGRAM_SYNC(MS_SYNC_ACQUIRE, OBJ(lock), mode); \
        return rc;                                                   \
    }

/* The same with a deadline. */
#define TIMED_ACQUIRING(name, type, mode)                            \
    int name(type *lock, const struct timespec *abstime)             \
    {                                                                \
        REAL(name, NULL);                                            \
        ms_plug_sync_ready();                                        \
        int rc = real_##name(lock, abstime);                         \
        if (rc == 0) PROGRAM_SYNC(MS_SYNC_ACQUIRE, OBJ(lock), mode); \
        return rc;                                                   \
    }

/* An unlock: RELEASE(lock) before the real call. */
#define RELEASING(name, type)                        \
    int name(type *lock)                             \
    {                                                \
        REAL(name, NULL);                            \
        ms_plug_sync_ready();                        \
        PROGRAM_SYNC(MS_SYNC_RELEASE, OBJ(lock), 0); \
        return real_##name(lock);                    \
    }

ACQUIRING(pthread_mutex_lock, pthread_mutex_t, 0)
ACQUIRING(pthread_mutex_trylock, pthread_mutex_t, 0)
TIMED_ACQUIRING(pthread_mutex_timedlock, pthread_mutex_t, 0)
RELEASING(pthread_mutex_unlock, pthread_mutex_t)
ACQUIRING(pthread_spin_lock, pthread_spinlock_t, 0)
ACQUIRING(pthread_spin_trylock, pthread_spinlock_t, 0)
RELEASING(pthread_spin_unlock, pthread_spinlock_t)
ACQUIRING(pthread_rwlock_rdlock, pthread_rwlock_t, 1)
ACQUIRING(pthread_rwlock_tryrdlock, pthread_rwlock_t, 1)
TIMED_ACQUIRING(pthread_rwlock_timedrdlock, pthread_rwlock_t, 1)
ACQUIRING(pthread_rwlock_wrlock, pthread_rwlock_t, 0)
ACQUIRING(pthread_rwlock_trywrlock, pthread_rwlock_t, 0)
TIMED_ACQUIRING(pthread_rwlock_timedwrlock, pthread_rwlock_t, 0)
RELEASING(pthread_rwlock_unlock, pthread_rwlock_t)

/* ---- condition variables (the pthread_cond_* of glibc 2.3.2 on) ---- */

#define COND_VERSION "GLIBC_2.3.2"

int pthread_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mutex)
{
    REAL(pthread_cond_wait, COND_VERSION);
    ms_plug_sync_ready();
    int rc = real_pthread_cond_wait(cond, mutex);
    if (rc == 0) PROGRAM_SYNC(MS_SYNC_COND_WAIT, OBJ(cond), OBJ(mutex));
    return rc;
}

/* A wait that timed out is a RELEASE + ACQUIRE of the mutex (no signal to wait for). */
int pthread_cond_timedwait(pthread_cond_t *cond, pthread_mutex_t *mutex, const struct timespec *abstime)
{
    REAL(pthread_cond_timedwait, COND_VERSION);
    ms_plug_sync_ready();
    int rc = real_pthread_cond_timedwait(cond, mutex, abstime);
    if (rc == 0) {
        PROGRAM_SYNC(MS_SYNC_COND_WAIT, OBJ(cond), OBJ(mutex));
    } else if (rc == ETIMEDOUT) {
        PROGRAM_SYNC(MS_SYNC_RELEASE, OBJ(mutex), 0);
        PROGRAM_SYNC(MS_SYNC_ACQUIRE, OBJ(mutex), 0);
    }
    return rc;
}

int pthread_cond_signal(pthread_cond_t *cond)
{
    REAL(pthread_cond_signal, COND_VERSION);
    ms_plug_sync_ready();
    PROGRAM_SYNC(MS_SYNC_COND_SIGNAL, OBJ(cond), 0);
    return real_pthread_cond_signal(cond);
}

int pthread_cond_broadcast(pthread_cond_t *cond)
{
    REAL(pthread_cond_broadcast, COND_VERSION);
    ms_plug_sync_ready();
    PROGRAM_SYNC(MS_SYNC_COND_SIGNAL, OBJ(cond), 1);
    return real_pthread_cond_broadcast(cond);
}

/* ---- barriers: participants remembered from pthread_barrier_init ---- */

#define BARRIER_SLOTS 4096u

typedef struct {
    uintptr_t addr;
    uint32_t count;
} barrier_slot;

/* Open addressing on the barrier's address (never removed), mapped on first use: kept out of
 * the program's bss so that the profiled program's memory layout stays as it was. */
static barrier_slot *barriers;

static barrier_slot *barrier_table(void)
{
    barrier_slot *t = __atomic_load_n(&barriers, __ATOMIC_ACQUIRE);
    if (t) return t;
    barrier_slot *fresh = ms_map(BARRIER_SLOTS * sizeof *fresh);
    if (!fresh) return NULL;
    if (!__atomic_compare_exchange_n(&barriers, &t, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        ms_unmap(fresh, BARRIER_SLOTS * sizeof *fresh);
        return t;
    }
    return fresh;
}

static uint32_t barrier_hash(uintptr_t addr) { return (uint32_t)(addr >> 4) & (BARRIER_SLOTS - 1); }

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count)
{
    REAL(pthread_barrier_init, NULL);
    int rc = real_pthread_barrier_init(b, attr, count);
    barrier_slot *t = rc == 0 ? barrier_table() : NULL;
    uint32_t j = barrier_hash(OBJ(b));
    for (uint32_t probes = 0; t && probes < BARRIER_SLOTS; probes++, j = (j + 1) & (BARRIER_SLOTS - 1)) {
        uintptr_t seen = 0;
        if (__atomic_compare_exchange_n(&t[j].addr, &seen, OBJ(b), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
            seen == OBJ(b)) {
            __atomic_store_n(&t[j].count, count, __ATOMIC_RELEASE);
            break;
        }
    }
    return rc;
}

/* Participants of barrier b, 0 if its init was not seen. */
static uint32_t barrier_count(uintptr_t b)
{
    barrier_slot *t = __atomic_load_n(&barriers, __ATOMIC_ACQUIRE);
    uint32_t j = barrier_hash(b);
    for (uint32_t probes = 0; t && probes < BARRIER_SLOTS; probes++, j = (j + 1) & (BARRIER_SLOTS - 1)) {
        uintptr_t a = __atomic_load_n(&t[j].addr, __ATOMIC_ACQUIRE);
        if (a == b) return __atomic_load_n(&t[j].count, __ATOMIC_ACQUIRE);
        if (!a) break;
    }
    return 0;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    REAL(pthread_barrier_wait, NULL);
    ms_plug_sync_ready();
    int rc = real_pthread_barrier_wait(b);
    if (rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD) PROGRAM_SYNC(MS_SYNC_BARRIER, OBJ(b), barrier_count(OBJ(b)));
    return rc;
}

/* ---- semaphores ---- */

int sem_post(sem_t *sem)
{
    REAL(sem_post, NULL);
    ms_plug_sync_ready();
    PROGRAM_SYNC(MS_SYNC_SEM_POST, OBJ(sem), 0);
    return real_sem_post(sem);
}

/* A wait that succeeded (returns 0) records SEM_WAIT. */
#define SEM_WAITING(name)                                         \
    int name(sem_t *sem)                                          \
    {                                                             \
        REAL(name, NULL);                                         \
        ms_plug_sync_ready();                                     \
        int rc = real_##name(sem);                                \
        if (rc == 0) PROGRAM_SYNC(MS_SYNC_SEM_WAIT, OBJ(sem), 0); \
        return rc;                                                \
    }

SEM_WAITING(sem_wait)
SEM_WAITING(sem_trywait)

int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
    REAL(sem_timedwait, NULL);
    ms_plug_sync_ready();
    int rc = real_sem_timedwait(sem, abstime);
    if (rc == 0) PROGRAM_SYNC(MS_SYNC_SEM_WAIT, OBJ(sem), 0);
    return rc;
}
