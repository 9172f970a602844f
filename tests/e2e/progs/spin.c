/* Runs until a signal ends it: spin [THREADS] writes and reads a heap array (double*.grid)
 * over and over, in the main thread (THREADS 0, the default) or in THREADS threads that the
 * main thread joins. Single-threaded, it keeps the simulator busy, so that a signal often
 * lands inside the runtime (in a flush, waiting for the simulator thread); threads pause
 * between sweeps so that their recorded streams stay small. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N (1 << 16)

static volatile double sink;

static void sweep(double *grid)
{
    for (int i = 1; i < N; i++) grid[i] = grid[i - 1] * 0.5 + grid[i];
    sink = grid[N - 1];
}

static void *worker(void *arg)
{
    double *grid = calloc(N, sizeof(double));
    (void)arg;
    for (;;) {
        sweep(grid);
        usleep(2000);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    if (threads <= 0) {
        double *grid = calloc(N, sizeof(double));
        for (;;) sweep(grid);
    }
    pthread_t t[16];
    if (threads > 16) threads = 16;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(t[i], NULL);
    return 0;
}
