/* Sparse matrix-vector product y = A x in compressed row format with random columns: the
 * value and index arrays stream, the x vector is gathered at random.
 * usage: spmv [ROWS [NNZ_PER_ROW [REPEAT]]] (defaults 100000 16 5) */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void spmv(int n, const int *rowptr, const int *col, const double *val,
                                           const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
            s += val[j] * x[col[j]];
        y[i] = s;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100000, per = argc > 2 ? atoi(argv[2]) : 16;
    int rep = argc > 3 ? atoi(argv[3]) : 5;
    unsigned seed = 7;
    int *rowptr = malloc(sizeof(int) * (size_t)(n + 1));
    int *col = malloc(sizeof(int) * (size_t)n * per);
    double *val = malloc(sizeof(double) * (size_t)n * per);
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i <= n; i++)
        rowptr[i] = i * per;
    for (size_t k = 0; k < (size_t)n * per; k++) {
        seed = seed * 1103515245u + 12345u;
        col[k] = (int)((seed >> 8) % (unsigned)n);
        val[k] = 1.0 / (double)(1 + k % 5);
    }
    for (int i = 0; i < n; i++)
        x[i] = 1.0;
    for (int r = 0; r < rep; r++)
        spmv(n, rowptr, col, val, x, y);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += y[i];
    printf("spmv n=%d sum=%.3f\n", n, s);
    free(rowptr); free(col); free(val); free(x); free(y);
    return 0;
}
