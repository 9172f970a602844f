/* OpenMP with LLVM's libomp (clang -fopenmp): an OMPT tool defined in the executable, found by
 * libomp through ompt_start_tool, maps the runtime's callbacks to sync events:
 *   parallel_begin                  -> the region gets an instance id (threads mode starts)
 *   implicit_task begin             -> FORK(id, team size) by the master, BEGIN(id, team size)
 *   sync_region barrier begin       -> BARRIER(id, team size)
 *   mutex_acquired / mutex_released -> ACQUIRE / RELEASE(wait id): critical, locks, atomic
 * each with its codeptr_ra (the program's call into libomp) as the event's site.
 * The OMPT declarations below are the subset of the OpenMP 5.0 ABI (omp-tools.h) used here.
 * OMPT does not tell a loop's schedule: libomp's dispatch entry points, which clang calls for
 * the loops whose iterations are handed out at run time, are interposed for that. */
#include "rt.h"
#include "../format/stream.h"
#include <stdlib.h>

typedef union {
    uint64_t value;
    void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *name);
typedef int (*ompt_set_callback_t)(int event, ompt_interface_fn_t callback);
typedef struct {
    int (*initialize)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
    void (*finalize)(ompt_data_t *tool_data);
    ompt_data_t tool_data;
} ompt_start_tool_result_t;

enum {
    OMPT_CALLBACK_PARALLEL_BEGIN = 3,
    OMPT_CALLBACK_IMPLICIT_TASK = 7,
    OMPT_CALLBACK_MUTEX_RELEASED = 17,
    OMPT_CALLBACK_SYNC_REGION = 23,
    OMPT_CALLBACK_MUTEX_ACQUIRED = 27
};
enum { OMPT_SCOPE_BEGIN = 1 };
enum { OMPT_TASK_INITIAL = 1 };
/* Barrier kinds of ompt_sync_region_t: barrier (deprecated), implicit, explicit,
 * implementation, implicit workshare, implicit parallel, teams. */
static int is_barrier(int kind) { return (kind >= 1 && kind <= 4) || (kind >= 8 && kind <= 10); }

volatile int ms_ompt_active;
static uint64_t last_region_id;

/* The return address of the program's call into libomp that the callbacks run in, when it is
 * one of the entry points interposed below (0 otherwise): the event's site. libomp's own
 * codeptr_ra is not always the caller's (its critical sections report an address stored by an
 * earlier construct, the parallel region's); the others' codeptr_ra is used. */
static __thread uintptr_t call_site __attribute__((tls_model("initial-exec")));

static uintptr_t site_of(const void *codeptr) { return call_site ? call_site : (uintptr_t)codeptr; }

/* An implicit task's data: its region id and team size. */
#define TEAM_BITS 20
static uint64_t team_pack(uint64_t id, uint32_t size) { return id << TEAM_BITS | size; }

/* The site of each recent region (its __kmpc_fork_call's return address), by region id: set
 * by the master at parallel_begin, before libomp starts the team, read by every member at its
 * implicit task's begin (FORK and BEGIN take it, as GOMP_parallel's do under gcc). */
#define REGION_SITES 256
static uintptr_t region_site[REGION_SITES];

static void on_parallel_begin(ompt_data_t *task, const void *frame, ompt_data_t *parallel, unsigned requested,
                              int flags, const void *codeptr)
{
    (void)task, (void)frame, (void)requested, (void)flags;
    ms_threads_mode_enter();
    uint64_t id = __atomic_add_fetch(&last_region_id, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&region_site[id % REGION_SITES], site_of(codeptr), __ATOMIC_RELEASE);
    parallel->value = id;
}

static void on_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task, unsigned actual, unsigned index,
                             int flags)
{
    if (endpoint != OMPT_SCOPE_BEGIN || (flags & OMPT_TASK_INITIAL) || !parallel) return;
    uint64_t id = parallel->value;
    task->value = team_pack(id, actual);
    uintptr_t site = __atomic_load_n(&region_site[id % REGION_SITES], __ATOMIC_ACQUIRE);
    if (index == 0) ms_sync_event(MS_SYNC_FORK, id, actual, site);
    ms_sync_event(MS_SYNC_BEGIN, id, actual, site);
}

static void on_sync_region(int kind, int endpoint, ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel;
    if (endpoint != OMPT_SCOPE_BEGIN || !is_barrier(kind) || !task || !task->value) return;
    ms_sync_event(MS_SYNC_BARRIER, task->value >> TEAM_BITS, (uint32_t)(task->value & ((1u << TEAM_BITS) - 1)),
                  site_of(codeptr));
}

static void on_mutex_acquired(int kind, uint64_t wait_id, const void *codeptr)
{
    (void)kind;
    ms_sync_event(MS_SYNC_ACQUIRE, wait_id, 0, site_of(codeptr));
}

static void on_mutex_released(int kind, uint64_t wait_id, const void *codeptr)
{
    (void)kind;
    ms_sync_event(MS_SYNC_RELEASE, wait_id, 0, site_of(codeptr));
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
    (void)device, (void)tool_data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (!set) return 0;
    set(OMPT_CALLBACK_PARALLEL_BEGIN, (ompt_interface_fn_t)on_parallel_begin);
    set(OMPT_CALLBACK_IMPLICIT_TASK, (ompt_interface_fn_t)on_implicit_task);
    set(OMPT_CALLBACK_SYNC_REGION, (ompt_interface_fn_t)on_sync_region);
    set(OMPT_CALLBACK_MUTEX_ACQUIRED, (ompt_interface_fn_t)on_mutex_acquired);
    set(OMPT_CALLBACK_MUTEX_RELEASED, (ompt_interface_fn_t)on_mutex_released);
    ms_ompt_active = 1;
    return 1;
}

static void tool_finalize(ompt_data_t *tool_data) { (void)tool_data; }

/* Called by libomp at its initialisation: the tool runs only while profiling. */
ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
    static ompt_start_tool_result_t tool = { tool_initialize, tool_finalize, { 0 } };
    (void)omp_version, (void)runtime_version;
    ms_runtime_init();
    return ms_rt_on ? &tool : NULL;
}

/* libomp's sched_type values of the schedules that assign iterations before the loop runs
 * (static, static chunked, greedy, balanced, their ordered and distribute forms); the others
 * (dynamic, guided, runtime, auto, trapezoidal, steal...) hand them out at run time. The
 * monotonic/nonmonotonic modifiers are bits 29 and 30. */
static int dispatched_at_run_time(int32_t schedule)
{
    switch (schedule & ~(3 << 29)) {
    case 33:
    case 34:
    case 40:
    case 41:
    case 45:
    case 65:
    case 66:
    case 91:
    case 92: return 0;
    default: return 1;
    }
}

#define REAL(name)                        \
    static __typeof__(name) *real_##name; \
    if (MS_UNLIKELY(!real_##name)) real_##name = (__typeof__(name) *)ms_real_function(#name, NULL)

/* __kmpc_dispatch_init_{4,4u,8,8u}(loc, gtid, schedule, lb, ub, st, chunk): a loop that clang
 * dispatches through libomp starts; forwarded after noting a run-time schedule. */
#define DISPATCH_INIT(name, T)                                                      \
    void name(void *loc, int32_t gtid, int32_t schedule, T lb, T ub, T st, T chunk) \
    {                                                                               \
        REAL(name);                                                                 \
        if (dispatched_at_run_time(schedule)) ms_omp_saw_dynamic_loop();            \
        if (real_##name) real_##name(loc, gtid, schedule, lb, ub, st, chunk);       \
    }
DISPATCH_INIT(__kmpc_dispatch_init_4, int32_t)
DISPATCH_INIT(__kmpc_dispatch_init_4u, uint32_t)
DISPATCH_INIT(__kmpc_dispatch_init_8, int64_t)
DISPATCH_INIT(__kmpc_dispatch_init_8u, uint64_t)

/* An interposed libomp entry point whose events take the program's call as their site. */
#define AT_CALL_SITE(name, params, args)                    \
    void name params                                        \
    {                                                       \
        REAL(name);                                         \
        uintptr_t outer = call_site;                        \
        call_site = (uintptr_t)__builtin_return_address(0); \
        if (real_##name) real_##name args;                  \
        call_site = outer;                                  \
    }
AT_CALL_SITE(__kmpc_barrier, (void *loc, int32_t gtid), (loc, gtid))
AT_CALL_SITE(__kmpc_critical, (void *loc, int32_t gtid, void *crit), (loc, gtid, crit))
AT_CALL_SITE(__kmpc_critical_with_hint, (void *loc, int32_t gtid, void *crit, uint32_t hint), (loc, gtid, crit, hint))
AT_CALL_SITE(__kmpc_end_critical, (void *loc, int32_t gtid, void *crit), (loc, gtid, crit))
