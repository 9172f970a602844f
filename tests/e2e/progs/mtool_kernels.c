/* MTOOL validation kernels (tests/e2e/t_mtool.sh, docs/mtool.md): two loops on data that fit
 * in L1 (a dependent multiply-add chain on a small array, a small reduction) and one that
 * gathers over an array far larger than the last-level cache. Usage: mtool_kernels REPS BIG_MB [STATUS]: BIG_MB a power of 2; exits with STATUS (default 0).
 */
#include <stdio.h>
#include <stdlib.h>

#define SMALL 512 /* 4 KiB of doubles: L1 */

__attribute__((noinline)) double dense(const double *a, long reps)
{
    double x = 1.0;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < SMALL; i++) x = x * a[i] + 0.5;
    return x;
}

__attribute__((noinline)) double reduce(const double *a, long reps)
{
    double s = 0;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < SMALL; i++) s += a[i];
    return s;
}

__attribute__((noinline)) long gather(const long *big, long mask, long steps)
{
    long s = 0;
    for (long k = 0; k < steps; k++) s += big[(k * 1000003) & mask]; /* a new line every load */
    return s;
}

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 20000;
    long mb = argc > 2 ? atol(argv[2]) : 256;
    long n = mb * 1024 * 1024 / (long)sizeof(long);
    double *a = (double *)malloc(SMALL * sizeof *a);
    long *big = (long *)malloc((size_t)n * sizeof *big);
    if (!a || !big) return 1;
    for (int i = 0; i < SMALL; i++) a[i] = 0.5 + (double)(i % 7) * 0.01;
    for (long i = 0; i < n; i++) big[i] = i;
    double x = dense(a, reps), s = reduce(a, reps);
    long g = gather(big, n - 1, reps * 256);
    printf("%.3f %.3f %ld\n", x, s, g);
    free(a);
    free(big);
    return argc > 3 ? atoi(argv[3]) : 0;
}
