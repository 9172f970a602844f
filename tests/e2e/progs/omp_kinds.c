/* OpenMP constructs of several kinds in two functions (tests/e2e/t_omp_names.sh): each
 * outlined region is a code bin named after the function it is written in, the construct
 * and the pragma's line, the same under gcc and clang, from the compiler's records. */
#include <stdio.h>
#include <stdlib.h>
#define N 200000
static double a[N], b[N];
static void kernel(double *x, int n)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        x[i] = 2.0 * i;
}
int main(void)
{
    kernel(a, N);
#pragma omp parallel sections
    {
#pragma omp section
        for (int i = 0; i < N / 2; i++) b[i] = a[i];
#pragma omp section
        for (int i = N / 2; i < N; i++) b[i] = a[i] + 1;
    }
    double s = 0;
#pragma omp parallel
    {
#pragma omp single
        {
#pragma omp task shared(s)
            for (int i = 0; i < N; i++) s += b[i];
        }
    }
    printf("%g\n", s);
    return 0;
}
