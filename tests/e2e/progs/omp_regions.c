/* Two OpenMP regions in main: a combined "parallel for" and a "parallel" holding an "omp for"
 * (code bins named after the region: "main: omp parallel for omp_regions.c:10"). */
#include <stdio.h>
#include <stdlib.h>
#define N 1000000
double a[N], b[N];
int main(void)
{
    double s = 0;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        a[i] = i;
#pragma omp parallel
    {
#pragma omp for reduction(+ : s)
        for (int i = 0; i < N; i++) s += a[i] * b[i];
    }
    printf("%g\n", s);
    return 0;
}
