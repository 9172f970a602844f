/* Two worker threads gather from an array far larger than the caches while the main thread
 * waits in pthread_join. The workers are made with every signal blocked and block them again
 * themselves, as xz's and many thread pools' are (signals are left to the main thread); each
 * checks that the mask it reads back is the one it set (exit 4 otherwise). Arguments: the
 * array's size in MiB (default 64) and the rounds (default 6). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static long *big;
static long mask_words, rounds, bad;

static void *gather_worker(void *arg)
{
    long id = (long)arg, sum = 0;
    sigset_t all, now;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    if (pthread_sigmask(SIG_BLOCK, NULL, &now) != 0 || sigismember(&now, SIGPROF) != 1 ||
        sigprocmask(SIG_BLOCK, NULL, &now) != 0 || sigismember(&now, SIGPROF) != 1)
        __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
    for (long r = 0; r < rounds; r++)
        for (long k = id; k < mask_words; k += 2) sum += big[(k * 1000003) & (mask_words - 1)];
    return (void *)sum;
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? atol(argv[1]) : 64;
    rounds = argc > 2 ? atol(argv[2]) : 6;
    mask_words = mb * 1024 * 1024 / (long)sizeof(long);
    big = malloc((size_t)mask_words * sizeof *big);
    if (!big) return 1;
    for (long i = 0; i < mask_words; i++) big[i] = i;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, gather_worker, (void *)i) != 0) return 1;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    long total = 0;
    for (int i = 0; i < 2; i++) {
        void *s;
        pthread_join(t[i], &s);
        total += (long)s;
    }
    printf("%ld\n", total);
    return bad ? 4 : 0;
}
