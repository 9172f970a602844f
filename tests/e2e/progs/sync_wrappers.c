/* Synchronisation through the program's own wrappers (as pigz's yarn or pbzip2's
 * safe_mutex_lock do it), 2 threads:
 *   wait_for()/post(): one non-inlined wrapper around a semaphore, used on two "locks"
 *     allocated by new_lock(): in each round the main thread works, posts `jobs` and waits for
 *     `done`; the worker waits for `jobs`, works twice as long and posts `done`: each waits
 *     for the other every round (semaphores: the replay, not the real run's timing, decides
 *     whether a thread waits, so the counts are exact);
 *   lock_it(): an always-inlined wrapper of pthread_mutex_lock, called from main and from
 *     worker around the same shared table. */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    sem_t sem;
    long uses;
} lock_t;

static lock_t *jobs, *done;
static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static double table[256], work[4096];
#define ROUNDS 20

__attribute__((noinline)) static lock_t *new_lock(void)
{
    lock_t *l = malloc(sizeof *l);
    if (!l) exit(1);
    sem_init(&l->sem, 0, 0);
    l->uses = 0;
    return l;
}

__attribute__((noinline)) static void wait_for(lock_t *l)
{
    sem_wait(&l->sem);
    l->uses++;
}

__attribute__((noinline)) static void post(lock_t *l) { sem_post(&l->sem); }
static inline __attribute__((always_inline)) void lock_it(pthread_mutex_t *m) { pthread_mutex_lock(m); }

__attribute__((noinline)) static void crunch(int n, int r)
{
    for (int i = 0; i < n; i++) work[i % 4096] = work[i % 4096] * 0.5 + (double)(i ^ r);
}

__attribute__((noinline)) static void update(double by)
{
    for (int i = 0; i < 256; i++) table[i] += by;
}

static void *worker(void *arg)
{
    (void)arg;
    for (int r = 1; r <= ROUNDS; r++) {
        wait_for(jobs);
        crunch(40000, r);
        post(done);
    }
    for (int r = 0; r < 200; r++) {
        lock_it(&table_mu);
        update(1.0);
        pthread_mutex_unlock(&table_mu);
    }
    return NULL;
}

int main(void)
{
    jobs = new_lock();
    done = new_lock();
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (int r = 1; r <= ROUNDS; r++) {
        crunch(20000, r);
        post(jobs);
        wait_for(done);
    }
    for (int r = 0; r < 200; r++) {
        lock_it(&table_mu);
        update(2.0);
        pthread_mutex_unlock(&table_mu);
    }
    pthread_join(t, NULL);
    printf("%.1f %.1f %ld\n", table[0], work[7], jobs->uses + done->uses);
    return 0;
}
