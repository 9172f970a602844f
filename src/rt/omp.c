/* OpenMP with gcc's libgomp (no OMPT there): the GOMP entry points the compiler calls are
 * interposed in the executable and forward to libgomp (dlsym RTLD_NEXT).
 *
 * A parallel region (GOMP_parallel and the combined loop/sections forms) gets a process-wide
 * instance id; its body runs through a trampoline that gives every team member BEGIN(id,
 * team size) and, after the body, BARRIER(id, team size) (the region's implicit barrier);
 * the master records FORK(id, team size) first. Explicit and work-sharing barriers
 * (GOMP_barrier, GOMP_loop_end, GOMP_sections_end) are BARRIER(id of the enclosing region).
 * Critical sections, atomic blocks and omp locks are ACQUIRE/RELEASE. When an OMPT tool
 * session runs (libomp's GOMP layer), these functions only forward: OMPT reports the events. */
#include "rt.h"
#include "../format/stream.h"

/* The team the calling thread works in (id 0 = none). */
typedef struct {
    uint64_t id;
    uint32_t size;
} omp_team;
static __thread omp_team current_team __attribute__((tls_model("initial-exec")));
static uint64_t last_region_id;

/* A parallel region being started: the program's body and the region's id. */
typedef struct {
    void (*fn)(void *);
    void *data;
    uint64_t id;
    uintptr_t site; /* the program's call of GOMP_parallel...: the region's code location */
} omp_region;

/* The return address of the interposed GOMP function this is used in: the program's call. */
#define RA() ((uintptr_t)__builtin_return_address(0))

#define REAL(name)                        \
    static __typeof__(name) *real_##name; \
    if (MS_UNLIKELY(!real_##name)) real_##name = (__typeof__(name) *)ms_real_function(#name, NULL)

/* Whether this runtime records the OpenMP events itself (not OMPT, profiling on). */
static int gomp_events(void) { return ms_rt_on && !ms_ompt_active; }

/* Every team member's body: FORK (master), BEGIN, the program's body, the implicit BARRIER. */
static void member_start(void *p)
{
    const omp_region *r = p;
    static int (*num_threads)(void), (*thread_num)(void);
    if (MS_UNLIKELY(!num_threads)) num_threads = (int (*)(void))ms_real_function("omp_get_num_threads", NULL);
    if (MS_UNLIKELY(!thread_num)) thread_num = (int (*)(void))ms_real_function("omp_get_thread_num", NULL);
    omp_team outer = current_team;
    current_team.id = r->id;
    current_team.size = num_threads ? (uint32_t)num_threads() : 1;
    if (!thread_num || thread_num() == 0) ms_sync_event(MS_SYNC_FORK, r->id, current_team.size, r->site);
    ms_sync_event(MS_SYNC_BEGIN, r->id, current_team.size, r->site);
    r->fn(r->data);
    ms_sync_event(MS_SYNC_BARRIER, r->id, current_team.size, r->site);
    current_team = outer;
}

/* Prepare region r for fn(data), started at site: the program is now multithreaded. */
static void region_start(omp_region *r, void (*fn)(void *), void *data, uintptr_t site)
{
    ms_threads_mode_enter();
    r->fn = fn;
    r->data = data;
    r->site = site;
    r->id = __atomic_add_fetch(&last_region_id, 1, __ATOMIC_RELAXED);
}

void GOMP_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
    REAL(GOMP_parallel);
    if (!gomp_events()) return real_GOMP_parallel(fn, data, nthreads, flags);
    omp_region r;
    region_start(&r, fn, data, RA());
    real_GOMP_parallel(member_start, &r, nthreads, flags);
}

void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads, unsigned count, unsigned flags)
{
    REAL(GOMP_parallel_sections);
    if (!gomp_events()) return real_GOMP_parallel_sections(fn, data, nthreads, count, flags);
    omp_region r;
    region_start(&r, fn, data, RA());
    real_GOMP_parallel_sections(member_start, &r, nthreads, count, flags);
}

/* Set once a parallel loop whose iterations are handed out at run time (dynamic, guided,
 * runtime schedules) has started: the recorded assignment is this run's (a note says so). */
static int dynamic_loops_seen;

int ms_omp_dynamic_loops_seen(void) { return __atomic_load_n(&dynamic_loops_seen, __ATOMIC_RELAXED); }

void ms_omp_saw_dynamic_loop(void) { __atomic_store_n(&dynamic_loops_seen, 1, __ATOMIC_RELAXED); }

/* The combined parallel loops with a chunk size (static, dynamic, guided and their
 * nonmonotonic forms); dynamic is 1 for the schedules that assign iterations at run time. */
#define PARALLEL_LOOP(name, dynamic)                                                                          \
    void name(void (*fn)(void *), void *data, unsigned nthreads, long start, long end, long incr, long chunk, \
              unsigned flags)                                                                                 \
    {                                                                                                         \
        REAL(name);                                                                                           \
        if (dynamic) ms_omp_saw_dynamic_loop();                                                               \
        if (!gomp_events()) return real_##name(fn, data, nthreads, start, end, incr, chunk, flags);           \
        omp_region r;                                                                                         \
        region_start(&r, fn, data, RA());                                                                     \
        real_##name(member_start, &r, nthreads, start, end, incr, chunk, flags);                              \
    }

PARALLEL_LOOP(GOMP_parallel_loop_static, 0)
PARALLEL_LOOP(GOMP_parallel_loop_dynamic, 1)
PARALLEL_LOOP(GOMP_parallel_loop_guided, 1)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, 1)
PARALLEL_LOOP(GOMP_parallel_loop_nonmonotonic_guided, 1)

void GOMP_parallel_loop_runtime(void (*fn)(void *), void *data, unsigned nthreads, long start, long end, long incr,
                                unsigned flags)
{
    REAL(GOMP_parallel_loop_runtime);
    ms_omp_saw_dynamic_loop(); /* OMP_SCHEDULE may name a dynamic schedule */
    if (!gomp_events()) return real_GOMP_parallel_loop_runtime(fn, data, nthreads, start, end, incr, flags);
    omp_region r;
    region_start(&r, fn, data, RA());
    real_GOMP_parallel_loop_runtime(member_start, &r, nthreads, start, end, incr, flags);
}

/* A barrier of the calling thread's team at site, after it has been passed (the thread's
 * plugin records are drained before it is entered: rt.h, ms_plug_sync_ready). */
static void team_barrier(uintptr_t site)
{
    if (gomp_events() && current_team.id) ms_sync_event(MS_SYNC_BARRIER, current_team.id, current_team.size, site);
}

void GOMP_barrier(void)
{
    REAL(GOMP_barrier);
    ms_plug_sync_ready();
    real_GOMP_barrier();
    team_barrier(RA());
}

void GOMP_loop_end(void)
{
    REAL(GOMP_loop_end);
    ms_plug_sync_ready();
    real_GOMP_loop_end();
    team_barrier(RA());
}

void GOMP_sections_end(void)
{
    REAL(GOMP_sections_end);
    ms_plug_sync_ready();
    real_GOMP_sections_end();
    team_barrier(RA());
}

/* ---- mutual exclusion ---- */

/* Whether a lock's ACQUIRE/RELEASE is wanted: not in MTOOL's runs (MEMSPY_MODE=count, time),
 * which record no streams, where the event would only drain the plugin buffer, which they
 * need not (rt.h, ms_plug_sync_ready). nbf's critical section per element: the event was 27%
 * of the timing run's instructions, inside the critical section. */
MS_HOT int lock_events(void) { return (!ms_count_only || ms_streams_mode) && gomp_events(); }

MS_HOT void acquired(uint64_t lock, uintptr_t site)
{
    if (lock_events()) ms_sync_event(MS_SYNC_ACQUIRE, lock, 0, site);
}
MS_HOT void releasing(uint64_t lock, uintptr_t site)
{
    if (lock_events()) ms_sync_event(MS_SYNC_RELEASE, lock, 0, site);
}

#define LOCK_ID(p) ((uint64_t)(uintptr_t)(p))

void GOMP_critical_start(void)
{
    REAL(GOMP_critical_start);
    real_GOMP_critical_start();
    acquired(MS_SYNC_UNNAMED_CRITICAL, RA());
}

void GOMP_critical_end(void)
{
    REAL(GOMP_critical_end);
    releasing(MS_SYNC_UNNAMED_CRITICAL, RA());
    real_GOMP_critical_end();
}

void GOMP_critical_name_start(void **name)
{
    REAL(GOMP_critical_name_start);
    real_GOMP_critical_name_start(name);
    acquired(LOCK_ID(name), RA());
}

void GOMP_critical_name_end(void **name)
{
    REAL(GOMP_critical_name_end);
    releasing(LOCK_ID(name), RA());
    real_GOMP_critical_name_end(name);
}

void GOMP_atomic_start(void)
{
    REAL(GOMP_atomic_start);
    real_GOMP_atomic_start();
    acquired(MS_SYNC_OMP_ATOMIC, RA());
}

void GOMP_atomic_end(void)
{
    REAL(GOMP_atomic_end);
    releasing(MS_SYNC_OMP_ATOMIC, RA());
    real_GOMP_atomic_end();
}

/* omp locks (omp_lock_t * passed through untouched). */
void omp_set_lock(void *lock)
{
    REAL(omp_set_lock);
    real_omp_set_lock(lock);
    acquired(LOCK_ID(lock), RA());
}

void omp_unset_lock(void *lock)
{
    REAL(omp_unset_lock);
    releasing(LOCK_ID(lock), RA());
    real_omp_unset_lock(lock);
}

int omp_test_lock(void *lock)
{
    REAL(omp_test_lock);
    int got = real_omp_test_lock(lock);
    if (got) acquired(LOCK_ID(lock), RA());
    return got;
}

/* Nested locks: only the outermost set/unset of the owner is an ACQUIRE/RELEASE. The owner's
 * depth per lock is kept in a small per-thread table (a lock beyond it is recorded each time). */
#define NEST_SLOTS 8
static __thread struct {
    void *lock;
    uint32_t depth;
} nest[NEST_SLOTS] __attribute__((tls_model("initial-exec")));

/* The calling thread's depth slot for lock (made if free), NULL if the table is full. */
static uint32_t *nest_depth(void *lock)
{
    int free_slot = -1;
    for (int i = 0; i < NEST_SLOTS; i++) {
        if (nest[i].lock == lock && nest[i].depth) return &nest[i].depth;
        if (!nest[i].depth && free_slot < 0) free_slot = i;
    }
    if (free_slot < 0) return NULL;
    nest[free_slot].lock = lock;
    return &nest[free_slot].depth;
}

void omp_set_nest_lock(void *lock)
{
    REAL(omp_set_nest_lock);
    real_omp_set_nest_lock(lock);
    uint32_t *depth = nest_depth(lock);
    if (!depth || (*depth)++ == 0) acquired(LOCK_ID(lock), RA());
}

void omp_unset_nest_lock(void *lock)
{
    REAL(omp_unset_nest_lock);
    uint32_t *depth = nest_depth(lock);
    if (!depth || *depth <= 1) releasing(LOCK_ID(lock), RA());
    if (depth && *depth) (*depth)--;
    real_omp_unset_nest_lock(lock);
}
