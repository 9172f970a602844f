/* What `memspy run` guarantees about the program's life beside its own (docs/processes.md):
 * interrupts sent to memspy reach the program, the program never outlives memspy, and the
 * run's scratch directory never outlives both. */
#ifndef MEMSPY_CLI_RUN_GUARD_H
#define MEMSPY_CLI_RUN_GUARD_H
#include <sys/types.h>

typedef struct {
    int fd;       /* write end of the pipe to the guard process, -1 if none */
    pid_t parent; /* memspy's pid, for the child's check */
} ms_run_guard;

/* Start the guard: a process of its own session that waits for memspy to end. If memspy
 * ends without ms_run_guard_release (killed, crashed), it kills the program (if it still
 * runs) and removes scratch_dir, unless the program already left a raw profile there: the
 * directory is then kept with a file RECOVERY naming it. Returns 0, or -1 with errno (the run
 * then goes on unguarded). */
int ms_run_guard_start(ms_run_guard *g, const char *scratch_dir);
/* In the forked child before exec: die with memspy (PR_SET_PDEATHSIG, SIGKILL), also if
 * memspy already died since the fork. */
void ms_run_guard_child(const ms_run_guard *g);
/* In memspy after the fork: tell the guard which process is the program. */
void ms_run_guard_program(ms_run_guard *g, pid_t pid);
/* memspy is done with the scratch directory: the guard exits quietly. */
void ms_run_guard_release(ms_run_guard *g);

/* At the start of `memspy run` or `memspy mtool`: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to memspy are
 * forwarded to the program from the fork until ms_run_forward_signals_end. One that comes
 * before the program started is kept, and ms_run_forward_signals_hold returns it: memspy then
 * starts nothing (instead of dying before it stored or said anything). Those the terminal
 * sends to the whole foreground job reach the running program directly and are not sent
 * twice. memspy itself keeps running to store the run. */
void ms_run_forward_signals_begin(void);
/* Just before the fork: block the forwarded signals (one sent in between stays pending, and
 * is forwarded once the pid is known) and return the interrupt that came before, 0 if none. */
int ms_run_forward_signals_hold(void);
/* Unblock them again: in memspy after ms_run_forward_signals_to (or a failed fork), in the
 * child after ms_run_forward_signals_end (a pending one then ends the child). */
void ms_run_forward_signals_unhold(void);
/* The program's pid, once forked. */
void ms_run_forward_signals_to(pid_t pid);
/* Fork the program's process (`memspy run`, each run of `memspy mtool`) after
 * ms_run_forward_signals_begin, the forwarded signals held around the fork (one sent meanwhile
 * is forwarded once the pid is known). Returns the pid in memspy (the guard told), 0 in the
 * child (memspy's dispositions and mask undone, dying with memspy), -1 if fork failed (errno),
 * or -1 with *early set to an interrupt that came before: then nothing was started. */
pid_t ms_run_fork(ms_run_guard *g, int *early);
/* Say that interrupt sig came before what started (nothing ran); returns 128 + sig. */
int ms_run_say_interrupted(const char *cmd, const char *what, int sig);
/* Between two runs of the program (memspy mtool): an interrupt from now on is kept for the
 * next ms_run_fork, as before the first. Returns the last interrupt memspy got since the last
 * fork (forwarded, or the terminal's, which the program got too), 0 if none. */
int ms_run_forward_signals_between(void);
/* The program has ended: from now on the first interrupt of each kind is absorbed (the copy a
 * terminal or timeout sends to the process group, arriving late), a second one acts as it
 * would have without memspy's handler. Returns the last signal forwarded, 0 if none. */
int ms_run_forward_signals_done(void);
/* Back to the previous dispositions (in the child before exec, or if it could not start);
 * returns the last signal forwarded, 0 if none. */
int ms_run_forward_signals_end(void);

/* Whether sig is one of the interrupts forwarded (SIGINT, SIGTERM, SIGHUP, SIGQUIT). */
int ms_run_is_interrupt(int sig);

/* Remove a run's scratch directory and everything under it. */
void ms_run_remove_scratch(const char *dir);

#endif
