/* Cross-interference: two arrays that fit in the cache together but map onto the same
 * cache sets, so each keeps evicting the other.
 *
 * Buffers aligned to a large power of two (FFT work areas, DMA or SIMD buffers, arrays whose
 * size is a power of two) start at the same offset within the cache's set-index range. Here
 * a and b are 12 KiB each (24 KiB together, less than the 32 KiB cache) but both are aligned
 * to 32 KiB, so in a direct-mapped 32 KiB cache a[i] and b[i] always share a line frame.
 * The misses are conflict misses (a fully associative cache of the same size would hold both
 * arrays), and each array's replacements are caused by the other array.
 * Run with "pad" to offset b by half the cache: the conflicts disappear.
 *
 * usage: crossint [pad] [SWEEPS]      (default 200 sweeps)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 1536            /* doubles per array: 12 KiB */
#define ALIGN 32768         /* a power of two as large as the cache */

/* a[i] += s * b[i] over the whole arrays, `sweeps` times. */
static void Axpy(double *a, const double *b, double s, int sweeps)
{
    for (int t = 0; t < sweeps; t++)
        for (int i = 0; i < LEN; i++)
            a[i] = a[i] + s * b[i];
}

int main(int argc, char **argv)
{
    int pad = argc > 1 && strcmp(argv[1], "pad") == 0;
    int sweeps = argc > 1 + pad ? atoi(argv[1 + pad]) : 200;
    double *a = aligned_alloc(ALIGN, ALIGN);
    double *b = aligned_alloc(ALIGN, 2 * ALIGN);
    if (!a || !b) {
        perror("aligned_alloc");
        return 1;
    }
    if (pad)
        b += ALIGN / 2 / sizeof(double);
    for (int i = 0; i < LEN; i++) {
        a[i] = 1.0;
        b[i] = (double)(i % 7);
    }
    Axpy(a, b, 1e-3, sweeps);
    double sum = 0;
    for (int i = 0; i < LEN; i++)
        sum += a[i];
    printf("sweeps=%d pad=%d sum=%.6f\n", sweeps, pad, sum);
    free(a);
    free(pad ? b - ALIGN / 2 / sizeof(double) : b);
    return 0;
}
