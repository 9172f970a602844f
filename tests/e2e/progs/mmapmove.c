/* Three arrays big enough for glibc to map each (X, then A, then B: mapped top-down, each below
 * the previous), X and B walked together. B is 1024 doubles longer than X so that X[k] and B[k]
 * lie half a 32 KiB way apart. Built with -DLD=264, A's rows grow from 256 to 264 doubles: A
 * grows by 16 KiB, so B, mapped after it, starts 16 KiB lower and X[k] and B[k] now share their
 * cache sets. Padding A costs X and B: only a prediction that moves B as glibc does sees it.
 * Usage: mmapmove [REPS] */
#include <stdio.h>
#include <stdlib.h>

#ifndef LD
#define LD 256
#endif
#define N 256

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 4;
    double *X = malloc((size_t)N * N * sizeof *X);
    double *A = malloc((size_t)N * LD * sizeof *A);
    double *B = malloc(((size_t)N * N + 1024) * sizeof *B);
    if (!X || !A || !B) return 1;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) A[i * LD + j] = (double)(i + j);
    for (size_t k = 0; k < (size_t)N * N; k++) X[k] = B[k] = (double)(k % 7);
    double s = 0;
    for (int r = 0; r < reps; r++)
        for (size_t k = 0; k < (size_t)N * N; k++) s += X[k] * B[k];
    printf("LD=%d s=%.1f a=%.1f\n", LD, s, A[(size_t)(N - 1) * LD + N - 1]);
    free(X);
    free(A);
    free(B);
    return 0;
}
