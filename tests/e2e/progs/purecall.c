/* A leaf function that gcc finds pure (it only reads memory), called in one loop body with
 * others: once instrumented it writes memspy's buffer, so a caller must not keep the buffer's
 * count across the call (the GCC plugin clears the pure/const flags of instrumented code). */
#include <stdio.h>
#define N 1000
static double v[N];

__attribute__((noinline)) double sum(const double *r)
{
    double s = 0;
    for (int i = 0; i < N; i++) s += r[i];
    return s;
}

__attribute__((noinline)) void fill(double *r, double x)
{
    for (int i = 0; i < N; i++) r[i] = x;
}

__attribute__((noinline)) int depth(int n) { return n <= 0 ? 0 : 1 + depth(n - 1); }

int main(void)
{
    double t = 0;
    int k = 0;
    for (int it = 0; it < 10; it++) {
        fill(v, it);
        t += sum(v);
        k += depth(20);
    }
    printf("%g %d\n", t, k);
    return 0;
}
