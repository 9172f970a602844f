/* Blocked matrix multiply with the fix for MemSpy's Figure 1 finding: each B x B block of Y
 * is copied into a contiguous buffer before it is used, so that the block's rows no longer
 * collide with each other in the cache (see blkmatmul.c for the original and docs/guide.md
 * for the case study).
 *
 * The original's description:
 * Z = X * Y for N x N matrices, blocked by B so that "a single block just fits" the cache:
 * with N = 295, B = 64 and the paper's 32 KiB cache, a B x B block of Y is exactly 32 KiB.
 * Because a row of the matrix is 295 doubles (not a power of two) and the cache is
 * direct-mapped, the rows of Y's block collide with each other in the cache: Y in BlkMultiply
 * takes most of the memory stall time, and its misses are replacements caused mostly by Y
 * itself (self-interference). Copying the block into a contiguous buffer, or choosing a
 * smaller B, fixes it.
 *
 * usage: blkmatmul_copy [N [B]]    (defaults 295 64)
 */
#include <stdio.h>
#include <stdlib.h>

static int min(int a, int b) { return a < b ? a : b; }

/* One N x N matrix of doubles, row-major. */
static double *NewMatrix(int n)
{
    double *m = malloc((size_t)n * n * sizeof(double));
    if (!m) {
        perror("malloc");
        exit(1);
    }
    return m;
}

static void InitMatrix(double *m, int n, double seed)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            m[(size_t)i * n + j] = seed + (double)((i * 7 + j * 3) % 11) / 11.0;
}

static void ClearProduct(double *z, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            z[(size_t)i * n + j] = 0.0;
}

/* The paper's BlkMultiply with Y's block copied into Yblock (B x B, contiguous) once per
 * (kk, jj) block, then Z[i,j] += X[i,k] * Yblock[k-kk, j-jj]. */
static void BlkMultiply(const double *X, const double *Y, double *Z, int N, int B)
{
    double *Yblock = malloc((size_t)B * B * sizeof(double));
    if (!Yblock) {
        perror("malloc");
        exit(1);
    }
    for (int kk = 0; kk < N; kk += B)
        for (int jj = 0; jj < N; jj += B) {
            int kn = min(kk + B, N) - kk, jn = min(jj + B, N) - jj;
            for (int k = 0; k < kn; k++)
                for (int j = 0; j < jn; j++)
                    Yblock[(size_t)k * B + j] = Y[(size_t)(kk + k) * N + jj + j];
            for (int i = 0; i < N; i++)
                for (int k = 0; k < kn; k++) {
                    double r = X[(size_t)i * N + kk + k];
                    for (int j = 0; j < jn; j++)
                        Z[(size_t)i * N + jj + j] = Z[(size_t)i * N + jj + j] + r * Yblock[(size_t)k * B + j];
                }
        }
    free(Yblock);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 295;
    int b = argc > 2 ? atoi(argv[2]) : 64;
    if (n <= 0 || b <= 0) {
        fprintf(stderr, "usage: blkmatmul_copy [N [B]]\n");
        return 2;
    }
    double *X = NewMatrix(n);
    double *Y = NewMatrix(n);
    double *Z = NewMatrix(n);
    InitMatrix(X, n, 1.0);
    InitMatrix(Y, n, 2.0);
    ClearProduct(Z, n);
    BlkMultiply(X, Y, Z, n, b);
    double trace = 0;
    for (int i = 0; i < n; i++)
        trace += Z[(size_t)i * n + i];
    printf("N=%d B=%d trace=%.6f\n", n, b, trace);
    free(X);
    free(Y);
    free(Z);
    return 0;
}
