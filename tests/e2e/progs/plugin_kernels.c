/* Kernels whose memory references the plugin path must see exactly (t_plugin.sh).
 *   vec R      axpy over 4096 doubles, R times: 1024 x 32-byte vectors x 3 per pass with AVX2
 *   local R    a 128 KiB local array written once and read R times
 *   table N    N dependent lookups in a const table (a chase: never vectorised)
 *   atomic N   N atomic increments of a global counter
 *   copy R     R constant-size memcpy of 4096 bytes (a libc call) and of 48 bytes (inline)
 * The result is printed so that nothing is optimised away. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
double xs[N] __attribute__((aligned(64))), ys[N] __attribute__((aligned(64)));

__attribute__((noinline)) void axpy(double a) {
    for (int i = 0; i < N; i++) ys[i] += a * xs[i];
}

__attribute__((noinline)) long local_sum(int reps, long k) {
    long loc[16384];   /* 128 KiB */
    for (int i = 0; i < 16384; i++) loc[i] = i * k;
    long s = 0;
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < 16384; i++) s += loc[i] ^ r;
    return s;
}

static const unsigned char table[256] = {
#define R4(x) (x) * 7 % 256, ((x) + 1) * 7 % 256, ((x) + 2) * 7 % 256, ((x) + 3) * 7 % 256
#define R16(x) R4(x), R4(x + 4), R4(x + 8), R4(x + 12)
#define R64(x) R16(x), R16(x + 16), R16(x + 32), R16(x + 48)
    R64(1), R64(65), R64(129), R64(193)};

__attribute__((noinline)) unsigned chase(long n, unsigned start) {
    unsigned i = start;
    for (long k = 0; k < n; k++) i = table[i];
    return i;
}

atomic_long counter;

__attribute__((noinline)) void bump(long n) {
    for (long k = 0; k < n; k++) atomic_fetch_add(&counter, 1);
}

/* line-aligned, so that a copy touches exactly 64 lines with every compiler */
char big_src[4096] __attribute__((aligned(64))), big_dst[4096] __attribute__((aligned(64)));
char small_src[48] __attribute__((aligned(64))), small_dst[48] __attribute__((aligned(64)));

__attribute__((noinline)) void copies(int reps) {
    for (int r = 0; r < reps; r++) {
        big_src[r & 4095] = (char)r;
        memcpy(big_dst, big_src, sizeof big_dst);
        small_src[r % 48] = (char)r;
        memcpy(small_dst, small_src, sizeof small_dst);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    long n = atol(argv[2]);
    if (!strcmp(argv[1], "vec")) {
        for (int i = 0; i < N; i++) xs[i] = i;
        for (long r = 0; r < n; r++) axpy(0.5);
        printf("%g\n", ys[N - 1]);
    } else if (!strcmp(argv[1], "local")) {
        printf("%ld\n", local_sum((int)n, argc));
    } else if (!strcmp(argv[1], "table")) {
        printf("%u\n", chase(n, (unsigned)argc));
    } else if (!strcmp(argv[1], "atomic")) {
        bump(n);
        printf("%ld\n", (long)counter);
    } else if (!strcmp(argv[1], "copy")) {
        copies((int)n);
        printf("%d %d\n", big_dst[5], small_dst[5]);
    }
    return 0;
}
