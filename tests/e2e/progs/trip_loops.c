/* Loops whose body is one basic block at -O2 (the counting copy counts them by their trip
 * counts: a repeat word per execution of the loop, docs/plugin.md), with known trip counts:
 * t_trip_loops asserts every loop's iterations exactly, in the capture run and the counting run.
 *   rec:    h = h * 31 + a[i], i < n: called with n = 1000, 0 (zero-trip) and 7, then 5000 times
 *           with n = 3 (the pairs fill the buffer: flushed from the count register)
 *   search: while (a[i] != v) i++ (exits by a break-like test: the compare runs pos + 1 times),
 *           for v at 500 and at 0
 *   bounded:for (i < n && a[i] != v) (two exits): v at 300 (exits by the second test after 301
 *           compares) and v absent (n = 400: by the first)
 *   nested: for i < r: for j < c: h = h * 31 + m[i * c + j]; r = 30, c = 40, then r = 5, c = 0
 *           (the inner loop zero-trip) */
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__
#define ONE_BY_ONE _Pragma("clang loop unroll(disable) vectorize(disable)")
#else
#define ONE_BY_ONE _Pragma("GCC unroll 1")
#endif

__attribute__((noinline)) static unsigned long rec(const unsigned long *a, long n)
{
    unsigned long h = 0;
    ONE_BY_ONE
    for (long i = 0; i < n; i++) h = h * 31 + a[i];
    return h;
}

__attribute__((noinline)) static long search(const unsigned long *a, unsigned long v)
{
    long i = 0;
    ONE_BY_ONE
    while (a[i] != v) i++;
    return i;
}

__attribute__((noinline)) static long bounded(const unsigned long *a, long n, unsigned long v)
{
    long i;
    ONE_BY_ONE
    for (i = 0; i < n && a[i] != v; i++) {}
    return i;
}

__attribute__((noinline)) static unsigned long nested(const unsigned long *m, long r, long c)
{
    unsigned long h = 0;
    ONE_BY_ONE
    for (long i = 0; i < r; i++) {
        ONE_BY_ONE
        for (long j = 0; j < c; j++) h = h * 31 + m[i * c + j];
        h ^= (unsigned long)i;
    }
    return h;
}

int main(void)
{
    unsigned long *a = malloc(2000 * sizeof *a);
    if (!a) return 1;
    for (long i = 0; i < 2000; i++) a[i] = (unsigned long)i * 7 + 1;
    unsigned long h = rec(a, 1000) + rec(a, 0) + rec(a, 7);
    for (int k = 0; k < 5000; k++) h += rec(a + k % 100, 3);
    long s = search(a, 500 * 7 + 1) + search(a, 1);
    long b = bounded(a, 1000, 300 * 7 + 1) + bounded(a, 400, 999999);
    h += nested(a, 30, 40) + nested(a, 5, 0);
    printf("%lu %ld %ld\n", h, s, b);
    free(a);
    return 0;
}
