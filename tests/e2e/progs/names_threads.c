/* Thread-local data and another thread's stack (tests/e2e/t_names_threads.sh): each thread
 * accumulates into its own copy of the thread-local array tls_acc, then adds its result into
 * `shared`, an array in main's frame that main handed to the threads. */
#include <pthread.h>
#include <stdio.h>

static __thread double tls_acc[512];

__attribute__((noinline)) static void *worker(void *arg)
{
    long *shared = arg;
    for (int r = 0; r < 8; r++)
        for (int i = 0; i < 512; i++)
            tls_acc[i] += i * r;
    double s = 0;
    for (int i = 0; i < 512; i++)
        s += tls_acc[i];
    for (int i = 0; i < 64; i++)
        shared[i] += (long)s;
    return NULL;
}

int main(void)
{
    long shared[64] = { 0 };
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, worker, shared);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    worker(shared);
    printf("shared[3]=%ld\n", shared[3]);
    return 0;
}
