/* Stack variables by name (tests/e2e/t_stackvars.sh): main's array `table`, read by a
 * callee; main's array `partial` and its scalar `k`, shared by the two threads of an OpenMP
 * region (NPB CG's `k`: the master and the other thread touch the master's stack). */
#include <omp.h>
#include <stdio.h>

__attribute__((noinline)) static long total(const long *a, int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += a[i];
    return s;
}

int main(int argc, char **argv)
{
    long table[256];
    long partial[64];
    long k = 0;
    (void)argv;
    for (int i = 0; i < 256; i++)
        table[i] = i * argc;
    for (int i = 0; i < 64; i++)
        partial[i] = 0;
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        for (int r = 0; r < 100; r++) {
#pragma omp atomic
            k += 1;
        }
        for (int i = 0; i < 32; i++)
            partial[me * 32 + i] += me + i;
    }
    printf("%ld %ld %ld\n", total(table, 256), k, partial[40]);
    return 0;
}
