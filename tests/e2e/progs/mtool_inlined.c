/* MTOOL on loops written in static functions that the compiler inlines into their one caller
 * (t_mtool_inlined): a gather over an array far larger than the last-level cache and an
 * L1-resident multiply-add chain. Each is called from one line of main, so every block of
 * either loop carries that call's line in main; the timing run's samples must be placed by
 * the inlined frame's lines to time each loop on its own. Usage: mtool_inlined STEPS REPS */
#include <stdio.h>
#include <stdlib.h>

#if defined(__GNUC__)
#define INLINE static inline __attribute__((always_inline))
#else
#define INLINE static inline
#endif

INLINE long gather(const long *big, long mask, long steps)
{
    long s = 0;
    for (long k = 0; k < steps; k++) /* GATHER_LOOP */
        s += big[(k * 1000003) & mask]; /* a new cache line every load */
    return s;
}

INLINE double dense(const double *a, long n, long reps)
{
    double x = 1.0;
    for (long r = 0; r < reps; r++) /* DENSE_LOOP */
        for (long i = 0; i < n; i++) x = x * a[i] + 0.5; /* a dependent chain, in L1 */
    return x;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 4000000, reps = argc > 2 ? atol(argv[2]) : 4000;
    long mask = (1L << 24) - 1; /* 128 MiB of longs */
    long *big = (long *)malloc((size_t)(mask + 1) * sizeof *big);
    double *a = (double *)malloc(512 * sizeof *a);
    if (!big || !a) return 1;
    for (long i = 0; i <= mask; i++) big[i] = i ^ (i >> 3);
    for (long i = 0; i < 512; i++) a[i] = 0.5 + (double)(i % 7) / 16;
    long s = gather(big, mask, steps); /* CALL_GATHER */
    double x = dense(a, 512, reps);    /* CALL_DENSE */
    printf("%ld %.6f\n", s, x);
    free(big);
    free(a);
    return 0;
}
