/* An indexed sum that clang -O3 -march=skylake vectorises with gathers (t_plugin_llvm.sh):
 * gsum reads 4096 ints of idx (as 1024 16-byte loads widened to 64-bit lanes) and 4096 longs
 * of x through 4-lane gathers, once; msum reads x[idx[i]] only where c[i] (every 4th i), with
 * masked gathers: 1024 reads of x. */
#include <stdio.h>

#define N 4096
long x[N];
int idx[N], c[N];

__attribute__((noinline)) long gsum(void) {
    long s = 0;
    for (int i = 0; i < N; i++) s += x[idx[i]];
    return s;
}

__attribute__((noinline)) long msum(void) {
    long s = 0;
    for (int i = 0; i < N; i++)
        if (c[i]) s += x[idx[i]];
    return s;
}

int main(void) {
    for (int i = 0; i < N; i++) x[i] = i, idx[i] = (i * 7) % N, c[i] = i % 4 == 0;
    printf("%ld %ld\n", gsum(), msum());
    return 0;
}
