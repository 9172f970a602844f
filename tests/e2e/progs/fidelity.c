/* fidelity [REPS]: four small kernels whose data references memspy counts as the native binary
 * built with the same compiler and flags makes them (t_fidelity.sh): a reduction (sum), an
 * update through two pointers (axpy), a five-point stencil over globals (smooth) and a hash
 * whose state lives in locals only (mix: registers when optimised, stack slots at -O0). */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
double xs[N], ys[N], grid[64][64], out[64][64];

__attribute__((noinline)) double sum(const double *a, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}

__attribute__((noinline)) void axpy(double alpha, const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) y[i] += alpha * x[i];
}

__attribute__((noinline)) void smooth(int n)
{
    for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < n - 1; j++) {
            double c = grid[i][j], w = grid[i][j - 1], e = grid[i][j + 1];
            double nn = grid[i - 1][j], s = grid[i + 1][j];
            out[i][j] = 0.5 * c + 0.125 * (w + e + nn + s);
        }
}

__attribute__((noinline)) unsigned mix(unsigned seed, int rounds)
{
    unsigned h = seed, k = 0;
    for (int r = 0; r < rounds; r++) {
        k = h * 2654435761u;
        h ^= k >> 13;
        h += (unsigned)r;
    }
    return h ^ k;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    for (int i = 0; i < N; i++) xs[i] = i, ys[i] = 1;
    for (int i = 0; i < 64; i++)
        for (int j = 0; j < 64; j++) grid[i][j] = i + j;
    double t = 0;
    unsigned h = 1;
    for (int r = 0; r < reps; r++) {
        t += sum(xs, N);
        axpy(0.5, xs, ys, N);
        smooth(64);
        h = mix(h, 1000);
    }
    printf("%g %u\n", t + ys[7] + out[5][5], h);
    return 0;
}
