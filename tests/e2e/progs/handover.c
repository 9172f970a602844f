/* handover THREADS ROUNDS: a record handed from thread to thread through C11 atomics. A turn
 * variable says whose turn it is; each thread waits for its turn with a load-acquire spin,
 * updates the record (read-modify-write) and passes the turn on with a store-release. The
 * record is migratory sharing in the order the turns give (0, 1, ..., THREADS-1, 0, ...); stamp,
 * which each thread only writes in its turn, is write-only sharing. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static struct {
    long balance, count, last;
} record __attribute__((aligned(64)));
static _Atomic long turn __attribute__((aligned(64)));
static struct {
    long v;
    char pad[56]; /* alone in its line */
} stamp __attribute__((aligned(64))); /* written in turn, never read: write-only sharing */
static long nthreads, rounds;

static void *worker(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (long r = 0; r < rounds; r++) {
        long mine = r * nthreads + id;
        while (atomic_load_explicit(&turn, memory_order_acquire) != mine) sched_yield();
        record.balance += id + 1;
        record.count++;
        record.last = id;
        *(volatile long *)&stamp.v = r;
        atomic_store_explicit(&turn, mine + 1, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    nthreads = argc > 1 ? atol(argv[1]) : 4;
    rounds = argc > 2 ? atol(argv[2]) : 500;
    if (nthreads < 1 || nthreads > 64 || rounds < 1) return 2;
    pthread_t tid[64];
    for (long i = 0; i < nthreads; i++) pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i);
    for (long i = 0; i < nthreads; i++) pthread_join(tid[i], NULL);
    printf("threads=%ld rounds=%ld balance=%ld count=%ld last=%ld\n", nthreads, rounds, record.balance, record.count,
           record.last);
    return 0;
}
