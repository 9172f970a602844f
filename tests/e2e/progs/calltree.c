/* A call tree for the callgrind export's call edges (t_export_calls.sh): main -> a -> b (twice
 * per call of a), main -> b, main -> rec, which calls itself DEPTH times, and touch(), inlined
 * into a. Each call from main is in a loop of its own (a basic block of its own). */
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define OUTLINED __attribute__((noinline))
#else
#define OUTLINED __attribute__((noinline, noclone))
#endif

#define N 4096
#define DEPTH 20
double *x, *y;

static inline __attribute__((always_inline)) void touch(int k)
{
    for (int i = 0; i < N; i += 16) y[(i + k) % N] += 1;
}

OUTLINED double b(int k)
{
    double s = 0;
    for (int i = 0; i < N; i += 8) s += x[(i + k) % N];
    return s;
}

OUTLINED double a(int k)
{
    for (int i = 0; i < N; i++) y[i] += 1;
    touch(k);
    return b(k) + b(k + 1);
}

OUTLINED double rec(int depth)
{
    if (depth == 0) return 0;
    y[depth * 64 % N] += depth;
    return y[depth] + rec(depth - 1);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    x = calloc(N, sizeof *x);
    y = calloc(N, sizeof *y);
    double s = 0;
    for (int r = 0; r < n; r++) s += a(r);
    for (int r = 0; r < n; r++) s += b(r);
    for (int r = 0; r < n; r++) s += rec(DEPTH);
    printf("%g\n", s);
    free(x);
    free(y);
    return 0;
}
