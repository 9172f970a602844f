/* Threads that start and end while others flush: WAVES waves of 8 threads, created together
 * and joined together, each writing then reading N ints of a heap array of its own in one of
 * 16 distinct functions (so new contexts are made by several threads at once). Prints the sum.
 * usage: thread_churn WAVES N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static int n;

#define WORKER(k)                                                                                                     \
    static long work##k(void)                                                                                         \
    {                                                                                                                 \
        volatile int *a = malloc((size_t)n * sizeof *a);                                                              \
        long s = 0;                                                                                                   \
        if (!a) return 0;                                                                                             \
        for (int i = 0; i < n; i++) a[i] = i * (k + 1);                                                               \
        for (int i = 0; i < n; i++) s += a[i];                                                                        \
        free((void *)a);                                                                                              \
        return s;                                                                                                     \
    }
WORKER(0) WORKER(1) WORKER(2) WORKER(3) WORKER(4) WORKER(5) WORKER(6) WORKER(7)
WORKER(8) WORKER(9) WORKER(10) WORKER(11) WORKER(12) WORKER(13) WORKER(14) WORKER(15)

static long (*const works[16])(void) = { work0, work1, work2,  work3,  work4,  work5,  work6,  work7,
                                         work8, work9, work10, work11, work12, work13, work14, work15 };

static void *run(void *arg)
{
    static long sums[1 << 12];
    long k = (long)arg;
    sums[k % (1 << 12)] = works[k % 16]();
    return (void *)sums[k % (1 << 12)];
}

int main(int argc, char **argv)
{
    int waves = argc > 1 ? atoi(argv[1]) : 4;
    n = argc > 2 ? atoi(argv[2]) : 10000;
    long total = 0;
    for (int w = 0; w < waves; w++) {
        pthread_t t[8];
        for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, run, (void *)(w * 8L + i));
        for (int i = 0; i < 8; i++) {
            void *r;
            pthread_join(t[i], &r);
            total += (long)r;
        }
    }
    printf("threads=%d sum=%ld\n", waves * 8, total);
    return 0;
}
