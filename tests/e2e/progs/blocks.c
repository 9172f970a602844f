/* Known basic-block counts: kernel(n, m) runs k times; its inner body n*m times per call.
 * With argument 't', two threads each run kernel(n, m) k times (per-thread WORK totals). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static double a[4][1024];
static int n, m, k;

__attribute__((noinline)) void kernel(double *v, int rows, int cols)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) v[j] = v[j] * 0.5 + i; /* the body: rows * cols */
}

static void *worker(void *arg)
{
    double *v = (double *)arg;
    for (int r = 0; r < k; r++) kernel(v, n, m);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    n = atoi(argv[1]), m = atoi(argv[2]), k = atoi(argv[3]);
    if (argc > 4 && argv[4][0] == 't') {
        pthread_t t[2];
        for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, a[i + 1]);
        for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    } else {
        worker(a[0]);
    }
    printf("%g %g\n", a[0][1], a[1][1]);
    return 0;
}
