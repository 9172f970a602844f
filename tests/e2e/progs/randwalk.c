/* A one-dimensional array (no rows) walked in a random order: most of its replacement misses
 * are capacity, some conflicts of a direct-mapped cache. Self-interference without rows: the
 * advice must not pad a leading dimension. Usage: randwalk [KIB [STEPS]] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 48) * 1024 / sizeof(unsigned);
    long steps = argc > 2 ? atol(argv[2]) : 400000;
    unsigned *a = calloc(n, sizeof *a);
    if (!a) return 1;
    unsigned long x = 12345;
    for (long s = 0; s < steps; s++) {
        x = x * 6364136223846793005ul + 1442695040888963407ul;
        a[(x >> 33) % n] += 1;
    }
    unsigned long sum = 0;
    for (size_t i = 0; i < n; i++) sum += a[i];
    printf("sum=%lu\n", sum);
    free(a);
    return 0;
}
