/* The program's life beside memspy's (run_guard.h).
 *
 * Signals: while the program runs, memspy forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT sent
 * to it alone (kill PID, timeout, a service manager) to the program, as a shell's job control
 * would deliver them to its foreground job; the program's runtime then keeps what it gathered
 * (src/rt/signals.c) and memspy stores it. A signal the terminal sends (si_code SI_KERNEL)
 * already went to the whole foreground process group, the program included: not sent twice.
 *
 * Death: the child asks for SIGKILL when memspy dies (PR_SET_PDEATHSIG) and checks that memspy
 * did not die before it asked (getppid). Nothing in memspy can run after a SIGKILL, so a guard
 * process, started before the program in a session of its own (a signal to memspy's process
 * group misses it), holds the read end of a pipe whose write end only memspy holds: end of
 * file without a release means memspy is gone. The guard then kills the program if it still
 * runs (checked by its environment naming the scratch directory, never a recycled pid), and
 * removes the scratch directory, or keeps it with a RECOVERY file when the program had
 * finished and left its raw profile there. */
#define _GNU_SOURCE
#include "run_guard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RELEASE_BYTE 'R'

void ms_run_remove_scratch(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        int fd = dirfd(d);
        for (struct dirent *e; (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            if (unlinkat(fd, e->d_name, 0) < 0 && (errno == EISDIR || errno == EPERM)) {
                char *sub = NULL;
                if (asprintf(&sub, "%s/%s", dir, e->d_name) >= 0) ms_run_remove_scratch(sub);
                free(sub);
            }
        }
        closedir(d);
    }
    rmdir(dir);
}

/* ---- the guard process ---- */

/* 1 if process pid runs with MEMSPY_RAW_DIR=dir in its environment (our program, or a
 * process it started), 0 if it is gone, a zombie or someone else. */
static int runs_our_program(pid_t pid, const char *dir)
{
    char path[64], want[4200], buf[1 << 16];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char state = 0;
    int fields = fscanf(f, "%*d (%*[^)]) %c", &state);
    fclose(f);
    if (fields != 1 || state == 'Z' || state == 'X') return 0;
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    int wlen = snprintf(want, sizeof want, "MEMSPY_RAW_DIR=%s", dir);
    for (ssize_t i = 0; i < n; i += (ssize_t)strlen(buf + i) + 1)
        if (!strncmp(buf + i, want, (size_t)wlen + 1)) return 1;
    return 0;
}

static int is_raw(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 4 && !strcmp(d->d_name + n - 4, ".raw");
}

/* memspy died: end the program, then leave nothing, or the raw profiles with a note. */
static void clean_up_after(pid_t program, const char *dir)
{
    if (program > 0 && runs_our_program(program, dir)) {
        kill(program, SIGKILL);
        for (int i = 0; i < 500 && runs_our_program(program, dir); i++) {
            struct timespec ten_ms = { 0, 10000000 };
            nanosleep(&ten_ms, NULL);
        }
    }
    struct dirent **list = NULL;
    int n = scandir(dir, &list, is_raw, alphasort);
    if (n <= 0) {
        ms_run_remove_scratch(dir);
    } else {
        char *note = NULL;
        if (asprintf(&note, "%s/RECOVERY", dir) >= 0) {
            FILE *f = fopen(note, "w");
            if (f) {
                fprintf(f, "memspy was killed after the program ended, before it stored the run.\n"
                           "The program's raw profile is kept here (nothing else reads or removes it):\n");
                for (int i = 0; i < n; i++) fprintf(f, "  %s/%s\n", dir, list[i]->d_name);
                char *streams = NULL;
                if (asprintf(&streams, "%s/streams", dir) >= 0 && access(streams, F_OK) == 0)
                    fprintf(f, "with the streams of its threads in %s.\n", streams);
                free(streams);
                fprintf(f, "Remove this directory when it is no longer needed.\n");
                fclose(f);
            }
            free(note);
        }
    }
    for (int i = 0; i < n; i++) free(list[i]);
    free(list);
}

/* Close every descriptor above standard error but keep: two close_range calls where the
 * kernel has them (Linux 5.9), else one close per possible descriptor (20,000 system calls
 * under a common limit: 2-3 ms of CPU at every `memspy run` and `mtool`). */
static void close_all_but(int keep)
{
#ifdef SYS_close_range
    if ((keep <= STDERR_FILENO + 1 || syscall(SYS_close_range, STDERR_FILENO + 1, keep - 1, 0) == 0) &&
        syscall(SYS_close_range, keep + 1, ~0u, 0) == 0)
        return;
#endif
    struct rlimit rl;
    int maxfd = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < 65536 ? (int)rl.rlim_cur : 65536;
    for (int fd = STDERR_FILENO + 1; fd < maxfd; fd++)
        if (fd != keep) close(fd);
}

/* The guard's life: detached from memspy's session, deaf to signals, holding no file of
 * memspy's but the pipe (a reader of memspy's output must see its end when memspy ends). */
static void guard_main(int rfd, const char *dir)
{
    setsid();
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) signal(s, SIG_IGN);
    int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
    }
    close_all_but(rfd);
    pid_t program = 0;
    unsigned char buf[64];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(rfd, buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        have += (size_t)n;
        /* messages: 'P' + pid (sizeof pid_t), or the release byte */
        while (have) {
            if (buf[0] == RELEASE_BYTE) _exit(0);
            if (buf[0] != 'P' || have < 1 + sizeof program) break;
            memcpy(&program, buf + 1, sizeof program);
            memmove(buf, buf + 1 + sizeof program, have - 1 - sizeof program);
            have -= 1 + sizeof program;
        }
        if (have == sizeof buf) have = 0; /* garbage: cannot happen */
    }
    clean_up_after(program, dir);
    _exit(0);
}

int ms_run_guard_start(ms_run_guard *g, const char *scratch_dir)
{
    int p[2];
    g->fd = -1;
    g->parent = getpid();
    if (pipe2(p, O_CLOEXEC) < 0) return -1;
    fflush(NULL);
    pid_t mid = fork();
    if (mid < 0) {
        int e = errno;
        close(p[0]);
        close(p[1]);
        errno = e;
        return -1;
    }
    if (mid == 0) { /* forks the guard and leaves: the guard is never memspy's child */
        close(p[1]);
        pid_t guard = fork();
        if (guard == 0) guard_main(p[0], scratch_dir);
        _exit(guard < 0 ? 1 : 0);
    }
    close(p[0]);
    int status = 0;
    while (waitpid(mid, &status, 0) < 0 && errno == EINTR) {}
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        close(p[1]);
        errno = EAGAIN;
        return -1;
    }
    g->fd = p[1];
    return 0;
}

void ms_run_guard_child(const ms_run_guard *g)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != g->parent) raise(SIGKILL); /* memspy died before the request */
}

static void send_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        p += w;
        n -= (size_t)w;
    }
}

void ms_run_guard_program(ms_run_guard *g, pid_t pid)
{
    if (g->fd < 0) return;
    unsigned char msg[1 + sizeof pid];
    msg[0] = 'P';
    memcpy(msg + 1, &pid, sizeof pid);
    send_all(g->fd, msg, sizeof msg);
}

void ms_run_guard_release(ms_run_guard *g)
{
    if (g->fd < 0) return;
    char r = RELEASE_BYTE;
    send_all(g->fd, &r, 1);
    close(g->fd);
    g->fd = -1;
}

/* ---- forwarding ---- */

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFORWARDED (sizeof forwarded / sizeof forwarded[0])
static volatile pid_t forward_to;
static volatile sig_atomic_t early, last_forwarded; /* before the program started; any */
static volatile sig_atomic_t seen;                  /* any while it ran, the terminal's too */
static struct sigaction saved[NFORWARDED];
static sigset_t held_mask; /* the mask before ms_run_forward_signals_hold */

static void forward(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    int e = errno;
    if (forward_to < 0) { /* the program has ended: absorb this one, the next acts as before */
        for (size_t i = 0; i < NFORWARDED; i++)
            if (forwarded[i] == sig) sigaction(sig, &saved[i], NULL);
    } else if (forward_to == 0) { /* not started (a terminal's too: no program got it) */
        early = sig;
    } else {
        seen = sig;
        if (info->si_code != SI_KERNEL) {
            last_forwarded = sig;
            kill(forward_to, sig);
        }
    }
    errno = e;
}

void ms_run_forward_signals_begin(void)
{
    forward_to = 0;
    early = last_forwarded = seen = 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    /* One memspy was started ignoring (nohup, a background job of a script) stays ignored:
     * the program inherits that too. */
    for (size_t i = 0; i < NFORWARDED; i++)
        if (sigaction(forwarded[i], NULL, &saved[i]) == 0 && saved[i].sa_handler != SIG_IGN)
            sigaction(forwarded[i], &sa, NULL);
}

int ms_run_forward_signals_hold(void)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NFORWARDED; i++) sigaddset(&set, forwarded[i]);
    sigprocmask(SIG_BLOCK, &set, &held_mask);
    return early;
}

void ms_run_forward_signals_unhold(void) { sigprocmask(SIG_SETMASK, &held_mask, NULL); }

void ms_run_forward_signals_to(pid_t pid) { forward_to = pid; }

int ms_run_is_interrupt(int sig)
{
    for (size_t i = 0; i < NFORWARDED; i++)
        if (forwarded[i] == sig) return 1;
    return 0;
}

pid_t ms_run_fork(ms_run_guard *g, int *early)
{
    if ((*early = ms_run_forward_signals_hold()) != 0) { /* memspy's own start took until then */
        ms_run_forward_signals_unhold();
        errno = EINTR;
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        ms_run_forward_signals_end();
        ms_run_forward_signals_unhold();
        ms_run_guard_child(g);
        return 0;
    }
    int e = errno;
    if (pid > 0) ms_run_forward_signals_to(pid);
    ms_run_forward_signals_unhold();
    if (pid > 0) ms_run_guard_program(g, pid);
    errno = e;
    return pid;
}

int ms_run_say_interrupted(const char *cmd, const char *what, int sig)
{
    const char *abbrev = sigabbrev_np(sig);
    fprintf(stderr, "memspy %s: interrupted (SIG%s) before %s started: nothing ran, nothing to store\n", cmd,
            abbrev ? abbrev : "?", what);
    return 128 + sig;
}

int ms_run_forward_signals_between(void)
{
    forward_to = 0;
    int sig = early ? early : seen;
    early = last_forwarded = seen = 0;
    return sig;
}

int ms_run_forward_signals_done(void)
{
    forward_to = -1;
    return last_forwarded;
}

int ms_run_forward_signals_end(void)
{
    for (size_t i = 0; i < NFORWARDED; i++) sigaction(forwarded[i], &saved[i], NULL);
    forward_to = 0;
    return last_forwarded;
}
