/* Ends in the way argv[1] says, after touching a heap array: normal, exit3, segv, abort,
 * _exit, kill (SIGTERM to itself). Prints a line on stdout first. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "normal";
    double *work = malloc(4096 * sizeof(double));
    work[0] = 0;
    for (int i = 1; i < 4096; i++)   /* a recurrence: no compiler vectorizes it */
        work[i] = work[i - 1] * 0.5 + i;
    double s = 0;
    for (int i = 0; i < 4096; i++)
        s += work[i];
    printf("sum=%.0f how=%s\n", s, how);
    fflush(stdout);
    if (strcmp(how, "exit3") == 0)
        exit(3);
    if (strcmp(how, "segv") == 0)
        *(volatile int *)(uintptr_t)8 = 1;
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "_exit") == 0)
        _exit(4);
    if (strcmp(how, "kill") == 0)
        kill(getpid(), SIGTERM);
    free(work);
    return 0;
}
