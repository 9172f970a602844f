/* Naive i-j-k matrix multiply: B is walked down its columns, one miss per element once the
 * matrix exceeds the cache. usage: matmul [N [REPEAT]] (defaults 256 1) */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static void multiply(const double *A, const double *B, double *C, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += A[(size_t)i * n + k] * B[(size_t)k * n + j];
            C[(size_t)i * n + j] = s;
        }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256, rep = argc > 2 ? atoi(argv[2]) : 1;
    double *A = malloc(sizeof(double) * (size_t)n * n);
    double *B = malloc(sizeof(double) * (size_t)n * n);
    double *C = malloc(sizeof(double) * (size_t)n * n);
    for (size_t i = 0; i < (size_t)n * n; i++) {
        A[i] = (double)(i % 13);
        B[i] = (double)(i % 7);
    }
    for (int r = 0; r < rep; r++)
        multiply(A, B, C, n);
    double t = 0;
    for (int i = 0; i < n; i++)
        t += C[(size_t)i * n + i];
    printf("matmul n=%d trace=%.1f\n", n, t);
    free(A); free(B); free(C);
    return 0;
}
