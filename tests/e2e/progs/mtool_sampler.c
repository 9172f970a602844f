/* Two threads compute for a while (a xorshift chain, all in registers, that no compiler folds),
 * then the program opens /dev/null and prints the descriptor it got: the sampler's own
 * descriptors must not take the low numbers the program's open() calls get. With the argument
 * "probe" it only says whether this machine lets a thread open a task-clock perf event (the
 * sampler's preferred source), so that the test knows which period to expect. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long rounds;

static void *spin(void *arg)
{
    unsigned long x = (unsigned long)arg | 1;
    for (long i = 0; i < rounds; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return (void *)x;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "probe") == 0) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.size = sizeof a;
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_TASK_CLOCK;
        a.sample_period = 1000000;
        a.exclude_kernel = 1;
        long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
        puts(fd >= 0 ? "perf" : "no perf");
        return 0;
    }
    rounds = argc > 1 ? atol(argv[1]) : 100000000;
    pthread_t t;
    pthread_create(&t, NULL, spin, (void *)2);
    void *r;
    unsigned long mine = (unsigned long)spin((void *)1);
    pthread_join(t, &r);
    int fd = open("/dev/null", O_RDONLY);
    printf("fd %d, %d\n", fd, (mine ^ (unsigned long)r) != 0);
    return 0;
}
