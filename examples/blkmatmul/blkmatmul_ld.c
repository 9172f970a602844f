/* Blocked matrix multiply with the other fix for MemSpy's Figure 1 finding: Y's leading
 * dimension is padded, so that the rows of a B x B block of Y no longer collide with each
 * other in the cache (see blkmatmul.c for the original, blkmatmul_copy.c for the copying fix,
 * and docs/whatif.md for predicting this change with `memspy whatif` before making it).
 *
 * Y is stored with LD doubles per row (LD >= N; the original has LD = N = 295, rows 2360 bytes
 * apart). With the paper's direct-mapped 32 KiB cache and B = 64, LD = 320 (2560-byte rows,
 * five 512-byte block rows) places the 64 rows of a block on 64 different 512-byte slices of
 * the cache.
 *
 * usage: blkmatmul_ld [N [B [LD]]]    (defaults 295 64 320)
 */
#include <stdio.h>
#include <stdlib.h>

static int min(int a, int b) { return a < b ? a : b; }

/* One n x ld matrix of doubles, row-major (the columns past n are padding). */
static double *NewMatrix(int n, int ld)
{
    double *m = malloc((size_t)n * ld * sizeof(double));
    if (!m) {
        perror("malloc");
        exit(1);
    }
    return m;
}

static void InitMatrix(double *m, int n, int ld, double seed)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m[(size_t)i * ld + j] = seed + (double)((i * 7 + j * 3) % 11) / 11.0;
}

static void ClearProduct(double *z, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            z[(size_t)i * n + j] = 0.0;
}

/* The paper's BlkMultiply, Y with leading dimension LD. */
static void BlkMultiply(const double *X, const double *Y, double *Z, int N, int B, int LD)
{
    for (int kk = 0; kk < N; kk += B)
        for (int jj = 0; jj < N; jj += B)
            for (int i = 0; i < N; i++)
                for (int k = kk; k < min(kk + B, N); k++) {
                    double r = X[(size_t)i * N + k];
                    for (int j = jj; j < min(jj + B, N); j++)
                        Z[(size_t)i * N + j] = Z[(size_t)i * N + j] + r * Y[(size_t)k * LD + j];
                }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 295;
    int b = argc > 2 ? atoi(argv[2]) : 64;
    int ld = argc > 3 ? atoi(argv[3]) : 320;
    if (n <= 0 || b <= 0 || ld < n) {
        fprintf(stderr, "usage: blkmatmul_ld [N [B [LD]]]  (LD >= N)\n");
        return 2;
    }
    double *X = NewMatrix(n, n);
    double *Y = NewMatrix(n, ld);
    double *Z = NewMatrix(n, n);
    InitMatrix(X, n, n, 1.0);
    InitMatrix(Y, n, ld, 2.0);
    ClearProduct(Z, n);
    BlkMultiply(X, Y, Z, n, b, ld);
    double trace = 0;
    for (int i = 0; i < n; i++)
        trace += Z[(size_t)i * n + i];
    printf("N=%d B=%d LD=%d trace=%.6f\n", n, b, ld, trace);
    free(X);
    free(Y);
    free(Z);
    return 0;
}
