/* Changes its process in the way argv[1] says, after writing a heap array (4096 writes in
 * main, double*.work): plain (nothing), vfork_exit (a vfork child that calls _exit), vfork_exec
 * (a vfork child that execs /bin/true), fork (a forked child that writes an array of its own
 * and exits 3), spawn (posix_spawn of /bin/true), exec_plain (exec of /bin/sh -c 'exit 7'),
 * exec_self (exec of this program with "after": it writes 2048 elements of double*.after
 * and exits 5), exec_missing (an exec that fails, then exit 6), child_then_kill (a forked
 * child execs this program with "after", then the parent dies of SIGKILL). The parent always checks what
 * its children returned and writes the array again after them (another 4096 writes), except
 * in the exec modes and plain. */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static double *fill(size_t n, double seed)
{
    double *a = malloc(n * sizeof(double));
    a[0] = seed;
    for (size_t i = 1; i < n; i++)   /* a recurrence: no compiler vectorizes it */
        a[i] = a[i - 1] * 0.5 + (double)i;
    return a;
}

static int child_status(pid_t pid)
{
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "plain";
    if (strcmp(how, "after") == 0) {
        double *after = fill(2048, 2);
        printf("after=%.0f\n", after[2047]);
        return 5;
    }
    double *work = fill(4096, 1);
    printf("work=%.0f how=%s\n", work[4095], how);
    fflush(stdout);
    int got = 0, want = 0;
    if (strcmp(how, "vfork_exit") == 0) {
        pid_t pid = vfork();
        if (pid == 0) _exit(0);
        got = child_status(pid);
    } else if (strcmp(how, "vfork_exec") == 0) {
        pid_t pid = vfork();
        if (pid == 0) {
            execl("/bin/true", "true", (char *)NULL);
            _exit(127);
        }
        got = child_status(pid);
    } else if (strcmp(how, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            double *mine = fill(1024, 3);
            exit(mine[1023] > 0 ? 3 : 4);
        }
        got = child_status(pid), want = 3;
    } else if (strcmp(how, "spawn") == 0) {
        pid_t pid = -1;
        char *args[] = { "true", NULL };
        if (posix_spawn(&pid, "/bin/true", NULL, NULL, args, environ) != 0) pid = -1;
        got = child_status(pid);
    } else if (strcmp(how, "exec_plain") == 0) {
        execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
        return 1;
    } else if (strcmp(how, "exec_self") == 0) {
        execl(argv[0], argv[0], "after", (char *)NULL);
        return 1;
    } else if (strcmp(how, "child_then_kill") == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            execl(argv[0], argv[0], "after", (char *)NULL);
            _exit(127);
        }
        got = child_status(pid);
        kill(getpid(), SIGKILL);
    } else if (strcmp(how, "exec_missing") == 0) {
        execl("/nonexistent/program", "program", (char *)NULL);
        got = 0;
        want = 0;
        work = fill(4096, 1);   /* still profiled after the failed exec */
        printf("still=%.0f\n", work[4095]);
        return 6;
    }
    if (got != want) {
        fprintf(stderr, "child returned %d, expected %d\n", got, want);
        return 1;
    }
    if (strcmp(how, "plain") != 0) {
        work = fill(4096, 1);
        printf("again=%.0f\n", work[4095]);
    }
    return 0;
}
