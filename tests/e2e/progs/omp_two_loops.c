/* An OpenMP program with two parallel loops in one function over arrays allocated in that
 * function (tests/e2e/t_dests_omp.sh): the arrays keep their names, double*.x and double*.y,
 * in both loops' code bins, though each loop's body is outlined into a function of its own
 * that reaches them through the compiler's shared-data struct. */
#include <stdio.h>
#include <stdlib.h>
#define N 100000

int main(void)
{
    double *x = malloc(N * sizeof *x);
    double *y = malloc(N * sizeof *y);
    if (!x || !y)
        return 1;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        x[i] = i;
        y[i] = 2.0 * i;
    }
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (int i = 0; i < N; i++)
        s += x[i] * y[i];
    printf("%.0f\n", s);
    free(y);
    free(x);
    return 0;
}
