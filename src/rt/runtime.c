/* Activation and per-thread state.
 *
 * The runtime is inert unless MEMSPY_RAW_DIR is set: hooks return at once and the allocator
 * forwards to libc. Activation happens at the first __tsan_init (instrumented translation
 * units call it from constructors, possibly shared libraries' before the executable's) or in
 * the runtime's own constructor, whichever comes first. It reads MEMSPY_CONFIG (canonical
 * ms_config_format text; default preset "x86"), builds the simulator, registers globals,
 * installs the exit and fatal-signal handlers, and only then turns recording on. */
#include "rt.h"
#include "syslib.h"
#include "../format/raw.h"
#include "../format/stream.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>
#include <sched.h>
#include <sys/stat.h>

/* Marker `memspy run` looks for to know the program carries this runtime. */
const unsigned __memspy_runtime_v1 = 1;

__thread ms_thread ms_tls __attribute__((tls_model("initial-exec")));
volatile int ms_rt_on;

static int init_state; /* 0 not yet, 1 in progress, 2 done */
static int active_pid;
static uint64_t start_ns;
static char config_text[512];
static uint32_t threads_seen;
static uint32_t next_index; /* thread indices handed out (0 = the main thread) */
static pthread_key_t thread_key;

static pthread_mutex_t threads_lock = PTHREAD_MUTEX_INITIALIZER;
static ms_thread_data *all_data, *free_data;

uint64_t ms_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int ms_runtime_pid(void) { return active_pid; }
uint64_t ms_runtime_start_ns(void) { return start_ns; }
uint32_t ms_threads_seen(void) { return __atomic_load_n(&threads_seen, __ATOMIC_RELAXED); }
uint32_t ms_thread_index_next(void) { return __atomic_fetch_add(&next_index, 1, __ATOMIC_RELAXED); }
const char *ms_runtime_config_text(void) { return config_text; }

/* ---- threads ---- */

/* A per-thread data block: reused from exited threads when possible. */
static ms_thread_data *data_acquire(void)
{
    pthread_mutex_lock(&threads_lock);
    ms_thread_data *d = free_data;
    if (d) {
        free_data = d->next_free;
        ms_blocks_fold(d); /* the last thread's counts stay its own */
    } else if ((d = ms_map(sizeof *d))) {
        d->next_all = all_data;
        __atomic_store_n(&all_data, d, __ATOMIC_RELEASE); /* walked without the lock */
    }
    if (d) __atomic_store_n(&d->in_use, 1, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&threads_lock);
    return d;
}

/* pthread key destructor: record the thread's EXIT, flush its events, end its stream and
 * recycle its memory. */
static void thread_exit(void *arg)
{
    ms_thread *t = &ms_tls;
    (void)arg;
    ms_sample_thread_end();
    if (t->mode != MS_T_READY) return;
    ms_sync_event(MS_SYNC_EXIT, 0, 0, 0);
    ms_busy_begin(); /* an interrupt during the flush waits for its end (signals.c) */
    ms_flush_flag_take(t->data);
    ms_events_flush_data(t->data, &t->nev, 0);
    ms_rec_thread_end(t->data);
    ms_flush_flag_give(t->data);
    ms_busy_end(MS_T_DEAD); /* later destructors' accesses are not recorded */
    __memspy_counts = NULL; /* later destructors' counting copies count in the spare array */
    pthread_mutex_lock(&threads_lock);
    __atomic_store_n(&t->data->in_use, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->data->nev_p, NULL, __ATOMIC_RELEASE); /* read by other threads (regions.c) */
    t->data->plug_buf = NULL;
    t->data->next_free = free_data;
    free_data = t->data;
    pthread_mutex_unlock(&threads_lock);
    t->data = NULL;
    ms_unmap(t->frames, t->frames_cap * sizeof *t->frames);
    t->frames = NULL;
    t->frames_cap = t->depth = 0;
}

/* Where the main thread's initial stack pointer is simulated (any fixed, 16-byte aligned
 * address near the top of the user address space). */
#define MS_MAIN_STACK_TOP 0x7fffffff0000ull
extern void *__libc_stack_end; /* glibc: the initial stack pointer of the process */

ms_stack_placement ms_main_stack;

/* If t is the main thread (its stack holds the initial stack pointer), place its stack so
 * that the initial stack pointer is simulated within 64 bytes below MS_MAIN_STACK_TOP; other
 * stacks stay. The shift is a multiple of 64 so that every address keeps its offset in its
 * cache line: a 32-byte aligned vector access to a local array must not straddle two lines in
 * the simulation when it does not in the program. */
static void stack_placement(const ms_thread *t)
{
    uintptr_t sp0 = (uintptr_t)__libc_stack_end;
    if (sp0 && sp0 - t->stack_lo < t->stack_span)
        ms_main_stack =
            (ms_stack_placement){ t->stack_lo, t->stack_span, (MS_MAIN_STACK_TOP - (uint64_t)sp0) & ~(uint64_t)63 };
}

/* Bounds of the calling thread's stack, and its salt. */
static void stack_bounds(ms_thread *t)
{
    static uint64_t salts;
    pthread_attr_t attr;
    void *lo;
    size_t size;
    t->salt = __atomic_add_fetch(&salts, 1, __ATOMIC_RELAXED) << 40;
    t->stack_lo = t->stack_span = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
    if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
        t->stack_lo = (uintptr_t)lo;
        t->stack_span = size;
    }
    pthread_attr_destroy(&attr);
}

int ms_thread_enter_slow(ms_thread *t)
{
    if (t->mode != MS_T_NEW || !ms_rt_on) return 0;
    t->mode = MS_T_BUSY; /* pthread_getattr_np and pthread_setspecific may allocate */
    ms_thread_data *d = data_acquire();
    if (!d) return 0; /* stays BUSY: this thread is not profiled */
    stack_bounds(t);
    ms_tls_thread_start(t); /* may end the stack range below the thread's TLS */
    stack_placement(t);
    t->data = d;
    t->nev = 0;
    __atomic_store_n(&d->nev_p, &t->nev, __ATOMIC_RELEASE); /* its stack bounds with it (regions.c) */
    d->plug_buf = __memspy_buf;
    pthread_setspecific(thread_key, t);
    uint32_t index = t->preset_index ? t->preset_index - 1 : ms_thread_index_next();
    ms_rec_thread_start(d, index);
    __atomic_fetch_add(&threads_seen, 1, __ATOMIC_RELAXED);
    t->mode = MS_T_READY;
    ms_sample_thread_begin(); /* MTOOL's timing run: the thread's own CPU-time timer */
    if (MS_UNLIKELY(ms_signal_deferred)) ms_signal_run_deferred(); /* it came meanwhile */
    /* A thread not made through pthread_create (a pool thread of an OpenMP runtime): the
     * program has become multithreaded. */
    if (index != 0) ms_threads_mode_enter();
    return 1;
}

void ms_threads_each_data(void (*fn)(ms_thread_data *d, void *ud), void *ud)
{
    for (ms_thread_data *d = __atomic_load_n(&all_data, __ATOMIC_ACQUIRE); d; d = d->next_all)
        if (__atomic_load_n(&d->in_use, __ATOMIC_RELAXED)) fn(d, ud);
}

void ms_assumption_broken(const char *what, const char *file, int line)
{
    char msg[1024], *p = msg;
    const char *parts[] = { "memspy: runtime assumption broken at ", file, ":" };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t n = ms_strlen(parts[i]);
        n = n < 300 ? n : 300;
        ms_memcpy(p, parts[i], n), p += n;
    }
    p = ms_utoa(p, (uint64_t)line);
    size_t n = ms_strlen(what);
    n = n < 300 ? n : 300;
    *p++ = ':', *p++ = ' ';
    ms_memcpy(p, what, n), p += n;
    *p++ = '\n';
    ssize_t rc = write(2, msg, (size_t)(p - msg));
    (void)rc;
    abort();
}

void ms_threads_each_data_all(void (*fn)(ms_thread_data *d, void *ud), void *ud)
{
    for (ms_thread_data *d = __atomic_load_n(&all_data, __ATOMIC_ACQUIRE); d; d = d->next_all) fn(d, ud);
}

typedef struct {
    int from_signal, own_busy, skipped;
} exit_flush;

/* One thread's share of the exit flush (see ms_threads_flush_all). */
static void flush_at_exit(ms_thread_data *d, void *ud)
{
    exit_flush *x = ud;
    /* The calling thread, interrupted inside the runtime, may hold its own flag. */
    if (x->own_busy && d == ms_tls.data) {
        x->skipped++;
        return;
    }
    /* Another thread in the middle of a flush (its stream's first chunk, say): on a loaded
     * machine it may not run for a while, so a normal exit waits up to 2 s for it, the signal
     * path 200 ms; a thread stuck longer is skipped (the run's note says so). */
    if (ms_flush_flag_try(d, x->from_signal ? 200 : 2000) < 0) {
        x->skipped++;
        return;
    }
    uint32_t *nev = __atomic_load_n(&d->nev_p, __ATOMIC_ACQUIRE);
    /* A signal that interrupted the runtime: this thread may hold the simulator lock. */
    if (x->from_signal && x->own_busy)
        x->skipped += nev && *nev;
    else if (nev && (ms_plug_drain_data(d, nev, x->from_signal), ms_events_flush_data(d, nev, x->from_signal)) < 0)
        x->skipped++;
    ms_rec_thread_end(d);
    ms_flush_flag_give(d);
}

int ms_threads_flush_all(int from_signal, int own_busy)
{
    exit_flush x = { from_signal, own_busy, 0 };
    ms_threads_each_data(flush_at_exit, &x);
    ms_events_close();
    return x.skipped;
}

/* ---- activation ---- */

/* exit handler: registered at activation, so it runs after every handler the program
 * registers later and after C++ static destructors. */
static void at_exit(int status, void *arg)
{
    (void)arg;
    ms_dump(MS_EXIT_NORMAL, status, 0);
}

/* Parse MEMSPY_CONFIG (or the default preset) into cfg and config_text. */
static int load_config(ms_hier_config *cfg)
{
    char err[256];
    const char *text = getenv("MEMSPY_CONFIG");
    int rc = text && *text ? ms_config_parse_full(text, cfg, err, sizeof err)
                           : ms_config_preset("x86", cfg, err, sizeof err);
    if (rc == 0) ms_config_scale_llc(cfg, cfg->nprocs); /* the hierarchy as simulated here */
    if (rc == 0) rc = ms_config_validate(cfg, err, sizeof err);
    if (rc != 0) {
        fprintf(stderr, "memspy: bad MEMSPY_CONFIG: %s\n", err);
        return -1;
    }
    ms_config_format(cfg, config_text, sizeof config_text);
    return 0;
}

static void activate(const char *dir)
{
    ms_hier_config cfg;
    char err[512];
    if (load_config(&cfg) < 0) return;
    if (ms_syslib_init(0, err, sizeof err) < 0) { /* the raw profile's checksum */
        fprintf(stderr, "memspy: runtime initialisation failed: %s\n", err);
        return;
    }
    if (ms_shadow_init() < 0 || ms_bins_init() < 0 || ms_events_init(&cfg) < 0 ||
        pthread_key_create(&thread_key, thread_exit) != 0) {
        fprintf(stderr, "memspy: runtime initialisation failed: %s\n", strerror(errno));
        return;
    }
    ms_dump_set_dir(dir);
    ms_progress_init(dir);
    ms_process_init(getenv("MEMSPY_GENERATION"));
    const char *record_dir = getenv("MEMSPY_RECORD_DIR");
    char gen_dir[4096];
    if (record_dir && *record_dir && ms_process_generation()) {
        /* An image started by exec records beside, not over, its predecessor's streams. */
        int n = snprintf(gen_dir, sizeof gen_dir, "%s/gen-%u", record_dir, ms_process_generation());
        if (n > 0 && (size_t)n < sizeof gen_dir && (mkdir(gen_dir, 0700) == 0 || errno == EEXIST)) record_dir = gen_dir;
    }
    char why[512];
    if (record_dir && *record_dir && ms_rec_init(record_dir, why, sizeof why) < 0)
        fprintf(stderr, "memspy: not recording: %s\n", why);
    const char *mode = getenv("MEMSPY_MODE");
    if (mode && !strcmp(mode, "count")) {
        ms_count_only = 1;
        __memspy_plain = MSPLUG_RUN_COUNT; /* versioned functions run their counting copies */
    } else if (mode && !strcmp(mode, "time")) {
        ms_count_only = 1;
        __memspy_plain = MSPLUG_RUN_PLAIN; /* versioned functions run their uninstrumented copies */
    } else if (mode && *mode && strcmp(mode, "simulate"))
        fprintf(stderr, "memspy: unknown MEMSPY_MODE '%s' (count, time or simulate): simulating\n", mode);
    ms_focus_init(getenv("MEMSPY_FOCUS"));
    const char *pause = getenv("MEMSPY_TEST_DRAIN_PAUSE_MS");
    if (pause && atoi(pause) > 0) ms_test_drain_pause_ms = atoi(pause);
    const char *direct = getenv("MEMSPY_DIRECT");
    ms_plug_direct_off = direct && !strcmp(direct, "0");
    const char *threads = getenv("MEMSPY_THREADS");
    if (threads && !strcmp(threads, "1")) ms_threads_mode_start();
    ms_threads_init();
    active_pid = getpid();
    /* MTOOL's runs simulate nothing: no simulator thread (its start cost 11 ms of a short
     * timing run, and a second thread makes the sampler's F_DUPFD wait for an RCU grace
     * period when it grows the descriptor table: docs/performance.md, MTOOL) */
    if (!ms_count_only) ms_pipeline_start();
    start_ns = ms_now_ns();
    ms_native_path_init(); /* libgcc_s mapped before the modules are listed and anything is allocated */
    ms_globals_init();
    ms_dests_focus_regions(); /* --focus naming an OpenMP region: the function that holds it */
    on_exit(at_exit, NULL);
    ms_signals_init();
    ms_sample_init();
    __atomic_store_n(&ms_rt_on, 1, __ATOMIC_RELEASE);
}

void ms_runtime_init(void)
{
    int expected = 0;
    if (!__atomic_compare_exchange_n(&init_state, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&init_state, __ATOMIC_ACQUIRE) != 2) sched_yield();
        return;
    }
    uint8_t prev = ms_busy_begin();
    ms_strings_init();
    ms_longjmp_init();
    ms_alloc_init();
    const char *dir = getenv("MEMSPY_RAW_DIR");
    if (dir && *dir) activate(dir);
    ms_busy_end(prev);
    __atomic_store_n(&init_state, 2, __ATOMIC_RELEASE);
}

/* Called by every instrumented translation unit's constructor. */
void __tsan_init(void)
{
    ms_tsan_seen = 1;
    ms_runtime_init();
}

__attribute__((constructor)) static void runtime_constructor(void) { ms_runtime_init(); }
