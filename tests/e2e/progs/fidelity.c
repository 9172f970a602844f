/* fidelity [REPS]: four small kernels whose data references memspy counts as the native binary
 * built with the same compiler and flags makes them (t_fidelity.sh): a reduction (sum), an
 * update through two pointers (axpy), a five-point stencil over globals (smooth) and a hash
 * whose state lives in locals only (mix: registers when optimised, stack slots at -O0), and
 * lz4's XXH32 inner loop reduced (hash4: gcc -O2 loads each 16-byte vector twice, see
 * docs/performance.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* XXH32's round on four lanes (lz4 1.9.4, lib/xxhash.c): gcc -O2 makes it one 16-byte load and
 * a vector multiply per 16 bytes, which its register allocator turns into two loads. */
static unsigned read32(const unsigned char *p)
{
    unsigned v;
    memcpy(&v, p, sizeof v);
    return v;
}
static unsigned round32(unsigned s, unsigned in)
{
    s += in * 2246822519u;
    s = (s << 13) | (s >> 19);
    return s * 2654435761u;
}
unsigned lanes[4];

__attribute__((noinline)) void hash4(const unsigned char *p, size_t len)
{
    const unsigned char *limit = p + len - 15;
    unsigned v1 = lanes[0], v2 = lanes[1], v3 = lanes[2], v4 = lanes[3];
    do {
        v1 = round32(v1, read32(p)), p += 4;
        v2 = round32(v2, read32(p)), p += 4;
        v3 = round32(v3, read32(p)), p += 4;
        v4 = round32(v4, read32(p)), p += 4;
    } while (p < limit);
    lanes[0] = v1, lanes[1] = v2, lanes[2] = v3, lanes[3] = v4;
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
        hash4((const unsigned char *)xs, sizeof xs);
    }
    printf("%g %u %u\n", t + ys[7] + out[5][5], h, lanes[0]);
    return 0;
}
