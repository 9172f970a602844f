/* The simulation pipeline: a flush maps its thread's events to contexts (under the simulator
 * lock, events.c) and hands the resulting references over in chunks; a simulator thread of
 * the runtime simulates them in hand-over order, so the program and the simulation run on
 * two CPUs at once. Results are those of simulating at each flush: the order is the same.
 *
 * A chunk is a list of commands (ms_sim_ref, rt.h) composed through the hit window
 * (filter.c), by the flush or, when the flushes keep the thread waiting less than it keeps
 * them waiting, by the thread itself from the plain references the flush hands over
 * (decide_side; MEMSPY_WINDOW_SIDE=flush or thread fixes the side, for tests).
 *
 * The thread is started at activation when the process may run on more than one CPU and
 * does not record threads' streams only (MEMSPY_SIM_THREAD=0 keeps the simulation in the
 * flushing thread, =1 forces the thread).
 * It blocks every signal, records nothing (its mode stays BUSY) and is never seen by the
 * program's thread accounting. Hand-over is a ring of MS_PIPE_SLOTS chunks with one writer
 * (the flush, lock held) and one reader (the thread); either side spins briefly, yields,
 * then sleeps on a futex. In a forked child (never profiled) the thread does not exist: chunks are
 * simulated in place. */
#include "rt.h"
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MS_PIPE_SLOTS 8u
/* Waiting for the other side: spin briefly, then yield the CPU (if both sides share one, the
 * other runs), then sleep on the futex. */
#define SPIN_PAUSES 256
#define SPIN_YIELDS 64

static struct {
    ms_sim *sim;
    uint32_t line_size;
    int wanted;  /* start the thread (ms_pipeline_start) */
    int running; /* the thread exists (in process `pid`) */
    int pid;
    pthread_t thread;
    ms_sim_ref *slot[MS_PIPE_SLOTS];
    uint32_t count[MS_PIPE_SLOTS];
    /* The words one side spins on and the other writes, and the window, each in cache lines
     * of their own: sharing a line with what the other side writes all the time would make
     * both sides pass it back and forth. */
    _Alignas(64) uint32_t head; /* chunks handed over (futex word) */
    int reader_sleeps;
    _Alignas(64) uint32_t tail; /* chunks simulated (futex word) */
    int writer_sleeps;
    uint64_t thread_idle_ns;             /* the thread's time without work */
    _Alignas(64) ms_filter filter;       /* the hit window, run by one side at a time */
    _Alignas(64) uint64_t dropped;       /* references the simulator could not count */
    ms_sim_ref *local;                   /* a chunk simulated in place */
    int side;                            /* who runs it: SIDE_FLUSH or SIDE_THREAD */
    int side_fixed;                      /* MEMSPY_WINDOW_SIDE chose it */
    uint8_t plain[MS_PIPE_SLOTS];        /* slot holds plain references (SIDE_THREAD) */
    ms_sim_ref *composed;                /* the thread's chunk composed from plain references */
    uint32_t chunks;                     /* chunks handed over */
    uint64_t flush_wait_ns;              /* the flushes' time waiting for room */
    uint64_t seen_wait_ns, seen_idle_ns; /* both at the last decision */
} pipe_;

enum { SIDE_FLUSH = 0, SIDE_THREAD = 1 };
#define DECIDE_EVERY 64u /* chunks between decisions on where the window runs */
#define DECIDE_MIN_NS 1000000u

static long futex(uint32_t *word, int op, uint32_t val, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, val, timeout, NULL, 0);
}

/* Sleep while *word == val, for at most timeout (NULL: no limit). errno is kept: the caller
 * may be a program thread. */
static void sleep_while(uint32_t *word, uint32_t val, const struct timespec *timeout)
{
    int saved = errno;
    futex(word, FUTEX_WAIT_PRIVATE, val, timeout);
    errno = saved;
}

/* One step of waiting: 1 while spinning or yielding is still worth it, 0 when it is time to
 * sleep. */
static int backoff(int step)
{
    if (step < SPIN_PAUSES) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#else
        __asm__ volatile("" ::: "memory");
#endif
        return 1;
    }
    if (step < SPIN_PAUSES + SPIN_YIELDS) {
        sched_yield();
        return 1;
    }
    return 0;
}

static void wake(uint32_t *word)
{
    int saved = errno;
    futex(word, FUTEX_WAKE_PRIVATE, INT32_MAX, NULL);
    errno = saved;
}

/* Execute a chunk's commands (rt.h). */
static void simulate(const ms_sim_ref *r, uint32_t n)
{
    uint64_t dropped = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t ctx = r[i].ctx;
        if (ctx == 0) {
            ms_win_op op = { r[i].addr, (uint8_t)((r[i].size_flags >> 1) & 1), (uint8_t)(r[i].size_flags & 1), 0 };
            ms_sim_window_ops(pipe_.sim, &op, 1);
        } else if (ctx & MS_CMD_COUNT) {
            uint64_t writes = r[i].addr >> 32, reads = r[i].addr & 0xffffffffu;
            if (ms_sim_count(pipe_.sim, ctx & ~MS_CMD_COUNT, reads, writes) < 0) dropped += reads + writes;
        } else {
            uint32_t size = r[i].size_flags & MS_EV_SIZE_MAX;
            unsigned flags = (r[i].size_flags & MS_EV_WRITE) ? MS_ACC_WRITE : 0;
            if (size <= pipe_.line_size)
                dropped += ms_sim_access(pipe_.sim, 0, r[i].addr, size, flags, ctx) < 0;
            else
                ms_sim_access_range(pipe_.sim, 0, r[i].addr, size, flags, ctx);
        }
    }
    if (dropped) __atomic_fetch_add(&pipe_.dropped, dropped, __ATOMIC_RELAXED);
}

static void *simulator_thread(void *arg)
{
    (void)arg;
    ms_tls.mode = MS_T_BUSY; /* nothing of this thread is recorded; allocations forwarded */
    uint32_t tail = pipe_.tail;
    uint64_t idle_since = 0; /* when the thread found nothing to do, 0 while busy */
    for (;;) {
        uint32_t head = __atomic_load_n(&pipe_.head, __ATOMIC_ACQUIRE);
        for (int step = 0; head == tail && backoff(step); step++) {
            if (!idle_since) idle_since = ms_now_ns();
            head = __atomic_load_n(&pipe_.head, __ATOMIC_ACQUIRE);
        }
        if (head == tail) {
            __atomic_store_n(&pipe_.reader_sleeps, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&pipe_.head, __ATOMIC_SEQ_CST) == tail) sleep_while(&pipe_.head, tail, NULL);
            __atomic_store_n(&pipe_.reader_sleeps, 0, __ATOMIC_SEQ_CST);
            continue;
        }
        if (idle_since) {
            __atomic_fetch_add(&pipe_.thread_idle_ns, ms_now_ns() - idle_since, __ATOMIC_RELAXED);
            idle_since = 0;
        }
        unsigned s = tail % MS_PIPE_SLOTS;
        if (pipe_.plain[s]) { /* the window runs here: compose, then simulate */
            uint32_t k = 0;
            const ms_sim_ref *r = pipe_.slot[s];
            pipe_.filter.stream = 0; /* composed here for here */
            for (uint32_t i = 0; i < pipe_.count[s]; i++)
                ms_filter_put(&pipe_.filter, pipe_.composed, &k, r[i].ctx, r[i].addr, r[i].size_flags);
            simulate(pipe_.composed, ms_filter_finish(&pipe_.filter, pipe_.composed, k));
        } else {
            simulate(pipe_.slot[s], pipe_.count[s]);
        }
        __atomic_store_n(&pipe_.tail, ++tail, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&pipe_.writer_sleeps, __ATOMIC_SEQ_CST)) wake(&pipe_.tail);
    }
    return NULL;
}

/* Wait until fewer than `room` chunks are pending (room MS_PIPE_SLOTS: one slot free; 1:
 * everything simulated), for at most max_ms milliseconds (< 0: no limit). Returns 0 or -1. */
static int wait_for(uint32_t room, int max_ms)
{
    uint64_t start = 0;
    for (int spin = 0;; spin++) {
        uint32_t tail = __atomic_load_n(&pipe_.tail, __ATOMIC_SEQ_CST);
        if (pipe_.head - tail < room) {
            if (start) pipe_.flush_wait_ns += ms_now_ns() - start;
            return 0;
        }
        if (!start) start = ms_now_ns();
        if (max_ms >= 0 && ms_now_ns() - start > (uint64_t)max_ms * 1000000u) return -1;
        if (backoff(spin)) continue;
        __atomic_store_n(&pipe_.writer_sleeps, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&pipe_.tail, __ATOMIC_SEQ_CST) == tail) {
            struct timespec ten_ms = { 0, 10000000 };
            sleep_while(&pipe_.tail, tail, &ten_ms);
        }
        __atomic_store_n(&pipe_.writer_sleeps, 0, __ATOMIC_SEQ_CST);
    }
}

/* 1 if the process may run on more than one CPU. */
static int several_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set) > 1;
}

int ms_pipeline_init(ms_sim *sim, const ms_hier_config *cfg)
{
    pipe_.sim = sim;
    pipe_.line_size = cfg->level[0].line;
    pipe_.local = ms_map(MS_CHUNK_CAP * sizeof(ms_sim_ref));
    if (!pipe_.local || ms_filter_init(&pipe_.filter, cfg) != 0) return -1;
    if (pipe_.filter.win.on) ms_sim_set_window(sim, 0); /* this one is in front of it */
    const char *env = getenv("MEMSPY_SIM_THREAD");
    pipe_.wanted = env && *env ? strcmp(env, "0") != 0 : several_cpus();
    const char *side = getenv("MEMSPY_WINDOW_SIDE");
    pipe_.side_fixed = side && (!strcmp(side, "flush") || !strcmp(side, "thread"));
    pipe_.side = pipe_.side_fixed && !strcmp(side, "thread") ? SIDE_THREAD : SIDE_FLUSH;
    return 0;
}

/* Start the simulator thread with every signal blocked (lock held). 0 or -1. */
static int start_thread(void)
{
    for (unsigned s = 0; s < MS_PIPE_SLOTS; s++)
        if (!pipe_.slot[s] && !(pipe_.slot[s] = ms_map(MS_CHUNK_CAP * sizeof(ms_sim_ref)))) return -1;
    if (!pipe_.composed && !(pipe_.composed = ms_map(MS_CHUNK_CAP * sizeof(ms_sim_ref)))) return -1;
    typedef int create_fn(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    create_fn *create = (create_fn *)ms_real_function("pthread_create", NULL);
    if (!create) return -1;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int saved = errno;
    int rc = create(&pipe_.thread, NULL, simulator_thread, NULL);
    errno = saved;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) return -1;
    pipe_.pid = (int)getpid();
    pipe_.running = 1;
    return 0;
}

/* The thread can take chunks: it runs in this process. */
static int threaded(void) { return pipe_.running && (int)getpid() == pipe_.pid; }

void ms_pipeline_start(void)
{
    if (pipe_.wanted && !pipe_.running && !ms_streams_mode && start_thread() < 0) pipe_.wanted = 0;
}

/* Every DECIDE_EVERY chunks, move the window to the side that has time to spare: to the
 * thread when it idled more than twice as long as the flushes waited for it, back to the
 * flushes when they waited more than twice as long as it idled (after the thread has used
 * the window for every chunk handed over: one side at a time). The statistics do not depend
 * on it, only the speed. */
static void decide_side(void)
{
    if (pipe_.side_fixed || ++pipe_.chunks % DECIDE_EVERY) return;
    uint64_t idle = __atomic_load_n(&pipe_.thread_idle_ns, __ATOMIC_RELAXED);
    uint64_t waited = pipe_.flush_wait_ns - pipe_.seen_wait_ns, idled = idle - pipe_.seen_idle_ns;
    if (pipe_.side == SIDE_FLUSH && idled > 2 * waited + DECIDE_MIN_NS) {
        pipe_.side = SIDE_THREAD;
    } else if (pipe_.side == SIDE_THREAD && waited > 2 * idled + DECIDE_MIN_NS && wait_for(1, 2000) == 0) {
        pipe_.side = SIDE_FLUSH;
    }
    pipe_.seen_wait_ns = pipe_.flush_wait_ns;
    pipe_.seen_idle_ns = __atomic_load_n(&pipe_.thread_idle_ns, __ATOMIC_RELAXED);
}

ms_sim_ref *ms_pipeline_begin(int max_ms, ms_filter **filter)
{
    if (!threaded()) {
        pipe_.filter.stream = 0;
        *filter = &pipe_.filter;
        return pipe_.local;
    }
    decide_side();
    if (wait_for(MS_PIPE_SLOTS, max_ms) < 0) return NULL;
    *filter = pipe_.side == SIDE_FLUSH ? &pipe_.filter : NULL;
    if (*filter) pipe_.filter.stream = 1;
    return pipe_.slot[pipe_.head % MS_PIPE_SLOTS];
}

void ms_pipeline_end(ms_sim_ref *chunk, uint32_t n)
{
    if (chunk == pipe_.local) {
        simulate(chunk, n);
        return;
    }
#if defined(__x86_64__)
    __builtin_ia32_sfence(); /* the chunk's non-temporal stores before the hand-over */
#endif
    pipe_.plain[pipe_.head % MS_PIPE_SLOTS] = pipe_.side == SIDE_THREAD;
    pipe_.count[pipe_.head % MS_PIPE_SLOTS] = n;
    __atomic_store_n(&pipe_.head, pipe_.head + 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&pipe_.reader_sleeps, __ATOMIC_SEQ_CST)) wake(&pipe_.head);
}

int ms_pipeline_drain(int max_ms)
{
    if (!threaded()) return 0;
    if (pthread_equal(pthread_self(), pipe_.thread)) return -1; /* a fault in the simulator */
    return wait_for(1, max_ms);
}

uint64_t ms_pipeline_dropped(void) { return __atomic_load_n(&pipe_.dropped, __ATOMIC_RELAXED); }
