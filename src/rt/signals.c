/* Deaths that skip exit handlers: fatal signals and _exit/_Exit. Each still leaves a raw
 * file, flagged incomplete, and the process dies exactly as it would have: the signal is
 * re-raised with its default disposition; _exit ends with exit_group and the same status.
 * Handlers are installed only for signals the program left at SIG_DFL; the main thread gets
 * an alternate signal stack if it has none, so stack overflows can be reported too. */
#include "rt.h"
#include "../format/raw.h"
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL, SIGABRT, SIGTRAP, SIGSYS,
                                    SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGXFSZ};

#define ALT_STACK_BYTES (256u << 10)

static void on_fatal_signal(int sig, siginfo_t *info, void *uctx) {
    (void)info, (void)uctx;
    int saved = errno;
    ms_dump(MS_EXIT_SIGNAL, sig, 1);
    struct sigaction dfl = {0};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    /* Pending until the handler returns (the signal is blocked meanwhile); a fault would
     * also simply recur when the faulting instruction runs again. */
    raise(sig);
    errno = saved;
}

void ms_signals_init(void) {
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
        if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) continue;   /* not ours */
        struct sigaction sa = {0};
        sa.sa_sigaction = on_fatal_signal;
        sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

/* _exit and _Exit skip exit handlers: dump (incomplete), then leave as they would. */
static __attribute__((noreturn)) void exit_now(int status) {
    ms_dump(MS_EXIT_UNDERSCORE, status, 1);
    for (;;) syscall(SYS_exit_group, status);
}

void _exit(int status) { exit_now(status); }
void _Exit(int status) { exit_now(status); }
