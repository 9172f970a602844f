/* Workers doing unequal work and a watchdog thread that does none (as pbzip2's terminator
 * thread): main starts the watchdog, which waits on a condition until main tells it the run is
 * over; then 3 workers crunch 1, 2 and 3 shares of the work and meet at a barrier (workers 0 and
 * 1 wait there for worker 2: load imbalance); main joins them and wakes the watchdog. */
#include <pthread.h>
#include <stdio.h>

#define WORKERS 3
#define SHARE 40000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cv = PTHREAD_COND_INITIALIZER, stop_cv = PTHREAD_COND_INITIALIZER;
static int ready, stop;
static pthread_barrier_t bar;
static double work[WORKERS][4096];

static void *watchdog(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    ready = 1;
    pthread_cond_signal(&ready_cv);
    while (!stop) pthread_cond_wait(&stop_cv, &mu);
    pthread_mutex_unlock(&mu);
    return NULL;
}

__attribute__((noinline)) static void crunch(double *w, int n)
{
    for (int i = 0; i < n; i++) w[i % 4096] = w[i % 4096] * 0.5 + (double)i;
}

static void *worker(void *arg)
{
    long k = (long)arg;
    crunch(work[k], (int)(k + 1) * SHARE);
    pthread_barrier_wait(&bar);
    return NULL;
}

int main(void)
{
    pthread_t wd, t[WORKERS];
    pthread_barrier_init(&bar, NULL, WORKERS);
    pthread_create(&wd, NULL, watchdog, NULL);
    pthread_mutex_lock(&mu);
    while (!ready) pthread_cond_wait(&ready_cv, &mu);
    pthread_mutex_unlock(&mu);
    for (long k = 0; k < WORKERS; k++) pthread_create(&t[k], NULL, worker, (void *)k);
    for (int k = 0; k < WORKERS; k++) pthread_join(t[k], NULL);
    pthread_mutex_lock(&mu);
    stop = 1;
    pthread_cond_signal(&stop_cv);
    pthread_mutex_unlock(&mu);
    pthread_join(wd, NULL);
    double s = 0;
    for (int k = 0; k < WORKERS; k++) s += work[k][7];
    printf("%.1f\n", s);
    return 0;
}
