/* MTOOL validation of the loops' chains beyond add and multiply (tests/e2e/t_mtool_chains.sh,
 * docs/mtool.md "The core's latencies in a loop's chains"): on 4 KiB of doubles (L1), a
 * division chain x = x / a[i] and, where the CPU has FMA, a fused multiply-add chain
 * x = fma(x, a[i], 0.5) (compiled for FMA in that function only, called only when the CPU has
 * it). Usage: mtool_chains REPS. */
#include <stdio.h>
#include <stdlib.h>

#define SMALL 512

__attribute__((noinline)) double divchain(const double *a, long reps)
{
    double x = 1.0;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < SMALL; i++) x = x / a[i];
    return x;
}

#if defined(__x86_64__)
__attribute__((noinline, target("fma"))) double fmachain(const double *a, long reps)
{
    double x = 1.0;
    for (long r = 0; r < reps; r++)
        for (int i = 0; i < SMALL; i++) x = __builtin_fma(x, a[i], 0.5);
    return x;
}
#endif

int main(int argc, char **argv)
{
    long reps = argc > 1 ? atol(argv[1]) : 1000;
    double *a = (double *)malloc(SMALL * sizeof *a), *b = (double *)malloc(SMALL * sizeof *b);
    if (!a || !b) return 1;
    for (int i = 0; i < SMALL; i++) { /* x stays near 1: no denormals, no shortcut for the divider */
        a[i] = i % 2 ? 1.0000001 : 0.9999999;
        b[i] = 0.5 + (double)(i % 7) * 0.01;
    }
    double x = divchain(a, reps), y = 0;
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("fma")) y = fmachain(b, reps);
#endif
    printf("%.6f %.6f\n", x, y);
    free(a);
    free(b);
    return 0;
}
