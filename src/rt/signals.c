/* Deaths that skip exit handlers: fatal signals and _exit/_Exit. Each still leaves a raw
 * file, flagged incomplete, and the process dies exactly as it would have: the signal is
 * re-raised with its default disposition; _exit ends with exit_group and the same status.
 * Handlers are installed only for signals the program left at SIG_DFL; the main thread gets
 * an alternate signal stack if it has none, so stack overflows can be reported too.
 *
 * An interrupt (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGXCPU: sent, never caused by the code)
 * that lands while its thread is inside the runtime (mid-flush, holding the simulator lock or
 * waiting for the simulator thread) is deferred: the handler notes it and returns, and the
 * thread ends the process when it leaves the runtime (ms_busy_end), with every lock free, so
 * the counters are kept whole. A process in a vfork child or a forked child never dumps. */
#include "rt.h"
#include "../format/raw.h"
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,  SIGABRT, SIGTRAP, SIGSYS,
                                     SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ };

#define ALT_STACK_BYTES (256u << 10)

volatile int ms_signal_deferred;

/* Dump, then die of sig with its default disposition. In a handler the signal stays blocked
 * (pending) until the handler returns; elsewhere it is unblocked and kills at once. A fault
 * would also simply recur when the faulting instruction runs again. */
static void die_of(int sig)
{
    ms_dump(MS_EXIT_SIGNAL, sig, 1);
    struct sigaction dfl = { 0 };
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

static int is_interrupt(int sig)
{
    return sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT || sig == SIGXCPU;
}

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx)
{
    (void)info, (void)uctx;
    int saved = errno;
    /* Inside the runtime, with a data block (not a thread left unprofiled): defer. */
    if (is_interrupt(sig) && ms_tls.mode == MS_T_BUSY && ms_tls.data && ms_process_is_owner()) {
        int none = 0;
        __atomic_compare_exchange_n(&ms_signal_deferred, &none, sig, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        errno = saved;
        return;
    }
    die_of(sig);
    errno = saved;
}

void ms_signal_run_deferred(void)
{
    if (!ms_process_is_owner()) return; /* a vfork child: the interrupt is its parent's */
    int sig = __atomic_exchange_n(&ms_signal_deferred, 0, __ATOMIC_SEQ_CST);
    if (!sig) return;
    int saved = errno;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, sig);
    /* Blocked meanwhile, so that a second interrupt does not cut the dump short. */
    pthread_sigmask(SIG_BLOCK, &one, NULL);
    die_of(sig);
    pthread_sigmask(SIG_UNBLOCK, &one, NULL); /* delivered here: the process ends */
    errno = saved;
}

void ms_signals_init(void)
{
    stack_t ss;
    if (sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_DISABLE)) {
        void *mem = ms_map(ALT_STACK_BYTES);
        if (mem) {
            ss.ss_sp = mem;
            ss.ss_size = ALT_STACK_BYTES;
            ss.ss_flags = 0;
            sigaltstack(&ss, NULL);
        }
    }
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0) continue;
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue; /* not ours */
        struct sigaction sa = { 0 };
        sa.sa_sigaction = on_fatal_signal;
        /* SA_RESTART: a deferred interrupt returns into the runtime, whose system calls go on. */
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* _exit and _Exit skip exit handlers: dump (incomplete), then leave as they would. */
static __attribute__((noreturn)) void exit_now(int status)
{
    ms_dump(MS_EXIT_UNDERSCORE, status, 1);
    for (;;) syscall(SYS_exit_group, status);
}

void _exit(int status) { exit_now(status); }
void _Exit(int status) { exit_now(status); }
