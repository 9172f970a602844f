/* MTOOL's timing run: CPU-time sampling of the program counter (MEMSPY_SAMPLE_NS=period in
 * the program's environment, set by `memspy mtool`). Each thread the runtime sees gets its own
 * CPU-time sampler that raises SIGPROF in that thread after each period of CPU time the thread
 * uses: preferably the kernel's task-clock software event (perf_event_open, the thread's own
 * event, signalled through F_SETSIG/F_SETOWN_EX), whose hrtimer honours the period exactly;
 * where perf events are refused (a seccomp filter, perf_event_paranoid), a POSIX timer on the
 * thread's CPU-time clock (timer_create(CLOCK_THREAD_CPUTIME_ID), SIGEV_THREAD_ID), which the
 * kernel checks only at its tick (4 ms at 250 Hz: a quarter of the samples of a 1 ms period).
 * The handler adds the interrupted pc to a lock-free open-addressed table in the runtime's own
 * memory, then calls the handler that was installed before it (a profiler of the program's own
 * keeps working). SA_RESTART: a sample never makes a system call of the program fail with
 * EINTR. The table goes into the raw profile's MS_RAW_SAMPLES section at exit.
 * Not the process's ITIMER_PROF: Linux delivers its signal to the main thread whenever that
 * thread does not block it, so a program whose main thread waits while workers compute (xz
 * -T2, any thread pool) had every sample in the main thread's wait in libc. */
#define _GNU_SOURCE
#include "rt.h"
#include "../format/raw.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <ucontext.h>

#define SAMPLE_SLOTS (1u << 16) /* distinct pcs kept; more are counted as lost */
#define MIN_PERIOD_NS 100000ull /* 0.1 ms: finer than the kernel's timer would honour */

typedef struct {
    uint64_t pc, count;
} sample_slot;

static sample_slot *table;
static uint64_t period_ns, lost, in_runtime;
static struct sigaction previous;
static int armed, stopped;
static uint64_t timer_failures; /* threads left unsampled: timer_create failed */
/* Whether perf events are refused (then every thread gets a POSIX timer). */
static int perf_refused;
/* The calling thread's sampler (ms_sample_thread_begin): its perf event's descriptor + 1, or
 * its POSIX timer. */
static __thread int thread_perf_fd1 __attribute__((tls_model("initial-exec")));
static __thread timer_t thread_timer __attribute__((tls_model("initial-exec")));
static __thread int thread_timer_on __attribute__((tls_model("initial-exec")));
/* Whether the program has SIGPROF blocked in the calling thread (the runtime keeps it
 * unblocked while it samples: ms_sample_thread_begin, pthread_sigmask below). */
static __thread int program_blocks_prof __attribute__((tls_model("initial-exec")));
static uint64_t cpu_start_ns; /* process CPU time when sampling started */

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t pc_of(void *uctx)
{
    const ucontext_t *uc = uctx;
#if defined(__x86_64__)
    return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

static void add_sample(uint64_t pc)
{
    if (!pc) pc = 1; /* 0 marks a free slot */
    uint32_t h = (uint32_t)((pc * 0x9e3779b97f4a7c15ull) >> 48) & (SAMPLE_SLOTS - 1);
    for (uint32_t probe = 0; probe < 64; probe++, h = (h + 1) & (SAMPLE_SLOTS - 1)) {
        uint64_t cur = __atomic_load_n(&table[h].pc, __ATOMIC_ACQUIRE);
        if (cur == 0) {
            uint64_t zero = 0;
            if (__atomic_compare_exchange_n(&table[h].pc, &zero, pc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
                cur = pc;
            else
                cur = zero;
        }
        if (cur == pc) {
            __atomic_fetch_add(&table[h].count, 1, __ATOMIC_RELAXED);
            return;
        }
    }
    __atomic_fetch_add(&lost, 1, __ATOMIC_RELAXED);
}

static void on_prof(int sig, siginfo_t *info, void *uctx)
{
    int saved = errno;
    if (__atomic_load_n(&stopped, __ATOMIC_RELAXED))
        ;                              /* the profile is being written: a late timer of another thread */
    else if (ms_tls.mode == MS_T_BUSY) /* inside memspy's runtime (a buffer drain): not the program's */
        __atomic_fetch_add(&in_runtime, 1, __ATOMIC_RELAXED);
    else
        add_sample(pc_of(uctx));
    errno = saved;
    /* the program's own handler, as it asked to be called (not where it blocks SIGPROF) */
    if (program_blocks_prof)
        ;
    else if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction) previous.sa_sigaction(sig, info, uctx);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN && previous.sa_handler) {
        previous.sa_handler(sig);
    }
}

void ms_sample_init(void)
{
    const char *s = getenv("MEMSPY_SAMPLE_NS");
    if (!s || !*s) return;
    char *end;
    unsigned long long ns = strtoull(s, &end, 10);
    if (*end || ns < MIN_PERIOD_NS) ns = MIN_PERIOD_NS;
    table = ms_map((size_t)SAMPLE_SLOTS * sizeof *table);
    if (!table) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, &previous) != 0) return;
    period_ns = ns;
    /* a test hook: the POSIX timers that serve where perf events are refused */
    const char *timer = getenv("MEMSPY_TEST_SAMPLE_TIMER");
    perf_refused = timer && *timer == '1';
    cpu_start_ns = process_cpu_ns();
    __atomic_store_n(&armed, 1, __ATOMIC_RELEASE);
    ms_sample_thread_begin();
    if (!thread_timer_on && !thread_perf_fd1) { /* not even the first thread's sampler: no sampling */
        __atomic_store_n(&armed, 0, __ATOMIC_RELEASE);
        sigaction(SIGPROF, &previous, NULL);
        period_ns = 0;
    }
}

typedef int sigmask_fn(int, const sigset_t *, sigset_t *);

/* libc's pthread_sigmask. */
static sigmask_fn *real_sigmask(void)
{
    static sigmask_fn *real;
    if (MS_UNLIKELY(!real)) real = (sigmask_fn *)ms_real_function("pthread_sigmask", NULL);
    return real;
}

/* The program's change of its signal mask, while sampling: SIGPROF stays deliverable (the
 * sampler's timer signals the thread), what the program asked for SIGPROF is remembered and
 * reported back in oset; otherwise libc's, unchanged. */
static int mask_call(int how, const sigset_t *set, sigset_t *oset)
{
    if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE)) return real_sigmask()(how, set, oset);
    int blocked = program_blocks_prof;
    sigset_t mine;
    if (set) {
        mine = *set;
        int has = sigismember(set, SIGPROF) == 1;
        if (how == SIG_BLOCK && has)
            blocked = 1;
        else if (how == SIG_UNBLOCK && has)
            blocked = 0;
        else if (how == SIG_SETMASK)
            blocked = has;
        sigdelset(&mine, SIGPROF);
    }
    int rc = real_sigmask()(how, set ? &mine : NULL, oset);
    if (rc != 0) return rc;
    if (oset) {
        if (program_blocks_prof)
            sigaddset(oset, SIGPROF);
        else
            sigdelset(oset, SIGPROF);
    }
    program_blocks_prof = blocked;
    return 0;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *oset) { return mask_call(how, set, oset); }

int sigprocmask(int how, const sigset_t *set, sigset_t *oset)
{
    int rc = mask_call(how, set, oset);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

/* The calling thread's task-clock event, signalling SIGPROF to this thread after each period
 * of its CPU time; -1 where perf events are refused (perf_refused is then set for good, unless
 * only this thread failed, e.g. out of descriptors). Kernel time is sampled where allowed
 * (as the CPU-time timer does), else user time alone (perf_event_paranoid 2). */
static int open_task_clock(pid_t tid)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && errno == EACCES) {
        a.exclude_kernel = 1;
        fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0) {
        if (errno != EMFILE && errno != ENFILE && errno != ENOMEM) perf_refused = 1;
        return -1;
    }
    /* out of the low numbers the program's own open() calls would get */
    long high = fcntl((int)fd, F_DUPFD_CLOEXEC, 512);
    if (high >= 0) {
        close((int)fd);
        fd = high;
    }
    struct f_owner_ex owner = { F_OWNER_TID, tid };
    if (fcntl((int)fd, F_SETOWN_EX, &owner) != 0 || fcntl((int)fd, F_SETSIG, SIGPROF) != 0 ||
        fcntl((int)fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
        close((int)fd);
        perf_refused = 1;
        return -1;
    }
    return (int)fd;
}

/* The calling thread's POSIX CPU-time timer (the fallback); 0 on success. */
static int start_timer(pid_t tid)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = SIGPROF;
    ev._sigev_un._tid = tid;
    struct itimerspec it;
    it.it_value.tv_sec = it.it_interval.tv_sec = (time_t)(period_ns / 1000000000u);
    it.it_value.tv_nsec = it.it_interval.tv_nsec = (long)(period_ns % 1000000000u);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &thread_timer) != 0) return -1;
    if (timer_settime(thread_timer, 0, &it, NULL) != 0) {
        timer_delete(thread_timer);
        return -1;
    }
    thread_timer_on = 1;
    return 0;
}

void ms_sample_thread_begin(void)
{
    if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || thread_timer_on || thread_perf_fd1) return;
    /* a thread made with every signal blocked (xz's workers, thread pools that keep signals
     * to the main thread) is sampled too: SIGPROF unblocked, the program's wish kept apart */
    sigset_t cur, prof;
    sigemptyset(&prof);
    sigaddset(&prof, SIGPROF);
    if (real_sigmask()(SIG_UNBLOCK, &prof, &cur) == 0) program_blocks_prof = sigismember(&cur, SIGPROF) == 1;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    int saved = errno;
    int fd = __atomic_load_n(&perf_refused, __ATOMIC_RELAXED) ? -1 : open_task_clock(tid);
    if (fd >= 0)
        thread_perf_fd1 = fd + 1;
    else if (start_timer(tid) != 0)
        __atomic_fetch_add(&timer_failures, 1, __ATOMIC_RELAXED);
    errno = saved;
}

void ms_sample_thread_end(void)
{
    if (thread_perf_fd1) {
        close(thread_perf_fd1 - 1);
        thread_perf_fd1 = 0;
    }
    if (!thread_timer_on) return;
    timer_delete(thread_timer);
    thread_timer_on = 0;
}

void ms_sample_stop(void)
{
    if (!armed) return;
    __atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
    ms_sample_thread_end(); /* other threads' timers end with them, or with the process */
    armed = 0;
}

void ms_sample_put_raw(ms_raw_writer *w)
{
    if (!table || !period_ns) return;
    ms_sample_stop();
    uint32_t n = 0;
    uint64_t rt = __atomic_load_n(&in_runtime, __ATOMIC_RELAXED);
    uint64_t total = __atomic_load_n(&lost, __ATOMIC_RELAXED) + rt;
    for (uint32_t i = 0; i < SAMPLE_SLOTS; i++)
        if (__atomic_load_n(&table[i].pc, __ATOMIC_ACQUIRE)) {
            n++;
            total += __atomic_load_n(&table[i].count, __ATOMIC_RELAXED);
        }
    /* The kernel checks CPU-time timers at its tick: a period shorter than the tick gives one
     * signal per tick, not per period. What a sample stands for is the CPU time used while
     * sampling divided by the samples taken. */
    uint64_t used = process_cpu_ns() - cpu_start_ns;
    uint64_t effective = total && used ? used / total : period_ns;
    ms_raw_section_begin(w, MS_RAW_SAMPLES);
    ms_raw_put_u64(w, effective);
    ms_raw_put_u64(w, __atomic_load_n(&lost, __ATOMIC_RELAXED));
    ms_raw_put_u64(w, rt);
    ms_raw_put_u32(w, n);
    for (uint32_t i = 0; i < SAMPLE_SLOTS; i++) {
        uint64_t pc = __atomic_load_n(&table[i].pc, __ATOMIC_ACQUIRE);
        if (!pc) continue;
        ms_raw_put_u64(w, pc);
        ms_raw_put_u64(w, __atomic_load_n(&table[i].count, __ATOMIC_RELAXED));
    }
    ms_raw_section_end(w);
}
