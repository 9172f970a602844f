/* Progress of `memspy run` on a terminal while the profiled program runs. */
#ifndef MEMSPY_CLI_PROGRESS_H
#define MEMSPY_CLI_PROGRESS_H
#include <sys/types.h>

/* waitpid(pid, status, 0), and meanwhile, if standard error is a terminal and the run has
 * taken 2 s, a line updated every second in place: references simulated so far (read from
 * raw_dir's progress file, see MS_PROGRESS_FILE), their rate, the elapsed time; the line is
 * erased before returning. Returns 0, or -1 with errno set as waitpid sets it. */
int ms_progress_waitpid(pid_t pid, int *status, const char *raw_dir);

#endif
