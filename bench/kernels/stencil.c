/* 2D five-point Jacobi stencil on two global grids: streams through memory, three rows of the
 * source grid reused from the cache. usage: stencil [N [SWEEPS]] (defaults 1024 10) */
#include <stdio.h>
#include <stdlib.h>

#define MAXN 2048
static double grid[MAXN * MAXN], next[MAXN * MAXN];

__attribute__((noinline)) static void sweep(const double *src, double *dst, int n)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++)
            dst[i * n + j] = 0.2 * (src[i * n + j] + src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                                    src[i * n + j - 1] + src[i * n + j + 1]);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024, sweeps = argc > 2 ? atoi(argv[2]) : 10;
    if (n < 3 || n > MAXN)
        return 2;
    for (int i = 0; i < n * n; i++)
        grid[i] = next[i] = (double)(i % 17);
    for (int s = 0; s < sweeps; s++) {
        sweep(grid, next, n);
        sweep(next, grid, n);
    }
    printf("stencil n=%d center=%.6f\n", n, grid[(n / 2) * n + n / 2]);
    return 0;
}
