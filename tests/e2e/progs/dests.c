/* Heap data named by where the compiler saw each allocation stored (tests/e2e/t_dests.sh),
 * with the source file deleted before the run: a PolyBench-style wrapper over an xmalloc that
 * aborts on failure (the arrays are named by the callers' variables, not `ret` or `p`), fields
 * of a local struct, an aligned_alloc kept in a register, a posix_memalign's out-parameter, an
 * array of rows, a global pointer. */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *x, *y;
} Pair;

double *grid; /* the heap buffer it holds is named grid */

static void *xmalloc(size_t n)
{
    void *p = malloc(n);
    if (!p) abort();
    return p;
}

__attribute__((noinline)) static void *alloc_data(size_t n, size_t elt)
{
    void *ret = xmalloc(n * elt);
    return ret;
}

int main(int argc, char **argv)
{
    (void)argv;
    int n = 1000 + argc;
    double *A = alloc_data((size_t)n, sizeof(double));
    double *B = alloc_data((size_t)n, sizeof(double));
    Pair s;
    s.x = alloc_data((size_t)n, sizeof(double));
    s.y = alloc_data((size_t)n, sizeof(double));
    long *counts = aligned_alloc(64, 64 * sizeof(long));
    double *aligned;
    if (posix_memalign((void **)&aligned, 64, 128 * sizeof(double)))
        return 1;
    double *rows[4];
    for (int r = 0; r < 4; r++)
        rows[r] = xmalloc(512 * sizeof(double));
    grid = xmalloc(256 * sizeof(double));
    for (int i = 0; i < 64; i++)
        counts[i] = 0;
    for (int i = 0; i < n; i++) {
        A[i] = i;
        B[i] = 2 * A[i];
        s.x[i] = B[i] + 1;
        s.y[i] = s.x[i] * 0.5;
        counts[i % 64] += i;
        aligned[i % 128] = s.y[i];
    }
    for (int r = 0; r < 4; r++)
        for (int i = 0; i < 512; i++)
            rows[r][i] = r + i;
    for (int i = 0; i < 256; i++)
        grid[i] = rows[i % 4][i];
    double t = 0;
    for (int i = 0; i < n; i++)
        t += s.y[i] + A[i];
    printf("%.0f %ld %.0f %.0f\n", t, counts[7], grid[255], aligned[5]);
    for (int r = 0; r < 4; r++)
        free(rows[r]);
    free(aligned);
    free(counts);
    free(s.y);
    free(s.x);
    free(B);
    free(A);
    free(grid);
    return 0;
}
