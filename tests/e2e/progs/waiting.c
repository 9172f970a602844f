/* Waiting-time cases for t_waiting (Carnival's classes), 4 threads:
 *   imbalance: thread 0 runs crunch() 4x as often as the others before a barrier;
 *   balanced:  the same 70000 iterations split evenly (the fix, docs/guide.md);
 *   serial:    the main thread runs setup() alone while the workers wait at a barrier;
 *   lock:      every thread updates a shared table inside one mutex, many times;
 *   comm:      every thread rewrites its row of a shared table, then, after a barrier, sums a
 *              row: thread 0 one that another thread has just written (coherence misses),
 *              the others their own (hits); the same work, and a barrier after the sums. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define NT 4
static pthread_barrier_t bar;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static double data[NT][512], table[256], init[4096], rows[NT][512];
static const char *mode;
static double sink;

__attribute__((noinline)) static double crunch(double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i % 512] * 1.0001 + (double)i;
    return s;
}

__attribute__((noinline)) static void setup(void)
{
    for (int r = 0; r < 20; r++)
        for (int i = 0; i < 4096; i++) init[i] = init[i] * 0.5 + (double)(i ^ r);
}

__attribute__((noinline)) static void update(int id)
{
    for (int i = 0; i < 256; i++) table[i] += (double)id;
}

__attribute__((noinline)) static void fill(double *row, int r)
{
    for (int i = 0; i < 512; i++) row[i] = (double)(i + r);
}

__attribute__((noinline)) static double sum(const double *row)
{
    double s = 0;
    for (int i = 0; i < 512; i++) s += row[i];
    return s;
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;
    double s = 0;
    if (strcmp(mode, "imbalance") == 0 || strcmp(mode, "balanced") == 0) {
        int balanced = strcmp(mode, "balanced") == 0;
        s += crunch(data[id], balanced ? 17500 : id == 0 ? 40000 : 10000);
        pthread_barrier_wait(&bar);
    } else if (strcmp(mode, "serial") == 0) {
        if (id == 0) setup();
        pthread_barrier_wait(&bar);
        s += crunch(data[id], 2000);
    } else if (strcmp(mode, "comm") == 0) {
        for (int r = 0; r < 20; r++) {
            fill(rows[id], r);
            pthread_barrier_wait(&bar);
            s += sum(rows[id == 0 ? 1 + r % (NT - 1) : id]);
            pthread_barrier_wait(&bar);
        }
    } else {
        for (int k = 0; k < 50; k++) {
            pthread_mutex_lock(&mu);
            update(id);
            pthread_mutex_unlock(&mu);
        }
    }
    if (id) sink += s;
    return NULL;
}

int main(int argc, char **argv)
{
    mode = argc > 1 ? argv[1] : "imbalance";
    pthread_t t[NT];
    pthread_barrier_init(&bar, NULL, NT);
    for (long i = 1; i < NT; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    worker((void *)0);
    for (int i = 1; i < NT; i++) pthread_join(t[i], NULL);
    printf("mode=%s table0=%g\n", mode, table[0]);
    return 0;
}
