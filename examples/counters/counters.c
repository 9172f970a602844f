/* Per-thread counters in one shared array, as ccSIM found in IRS's and SMG's timers.
 *
 * Every thread scans its share of a sample array and counts the odd samples in its own
 * counter, counts[thread id * stride]. Nothing is shared logically, but in the packed layout
 * (stride 1) all the counters sit in one cache line: each increment invalidates the line in
 * every other processor's cache, and every one of those invalidations is false sharing.
 * Padding each counter to its own 64-byte line (stride 8) removes them.
 *
 * The counter is bumped by an out-of-line routine, as a timer or statistics call would be, so
 * that it really lives in memory at every optimisation level (at -O2 a counter incremented
 * inline in the loop would be kept in a register and the sharing would vanish).
 *
 * usage: counters [packed|padded] [SAMPLES [PASSES]]   (defaults packed 100000 2)
 * The number of threads is OpenMP's (OMP_NUM_THREADS); the tests use 4.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_BYTES 64

/* Add one event to a counter. Out of line on purpose (see above). */
__attribute__((noinline)) static void CountEvent(long *counter)
{
    *counter += 1;
}

int main(int argc, char **argv)
{
    int padded = argc > 1 && strcmp(argv[1], "padded") == 0;
    int nsamples = argc > 2 ? atoi(argv[2]) : 100000;
    int passes = argc > 3 ? atoi(argv[3]) : 2;
    if ((argc > 1 && !padded && strcmp(argv[1], "packed") != 0) || nsamples < 1 || passes < 1) {
        fprintf(stderr, "usage: counters [packed|padded] [SAMPLES [PASSES]]\n");
        return 2;
    }
    int nthreads = omp_get_max_threads();
    size_t stride = padded ? LINE_BYTES / sizeof(long) : 1;
    size_t counts_bytes = (nthreads * stride * sizeof(long) + LINE_BYTES - 1) / LINE_BYTES * LINE_BYTES;
    long *counts = aligned_alloc(LINE_BYTES, counts_bytes);
    int *samples = malloc(sizeof(int) * (size_t)nsamples);
    if (!counts || !samples) {
        perror("counters");
        return 1;
    }
    memset(counts, 0, counts_bytes);
    unsigned seed = 12345;
    for (int i = 0; i < nsamples; i++) {
        seed = seed * 1103515245u + 12345u;
        samples[i] = (int)(seed >> 8);
    }
#pragma omp parallel
    {
        long *mine = &counts[(size_t)omp_get_thread_num() * stride];
        for (int pass = 0; pass < passes; pass++) {
#pragma omp for schedule(static)
            for (int i = 0; i < nsamples; i++)
                if (samples[i] & 1)
                    CountEvent(mine);
        }
    }
    long total = 0;
    for (int t = 0; t < nthreads; t++)
        total += counts[(size_t)t * stride];
    printf("threads=%d layout=%s samples=%d passes=%d odd=%ld\n", nthreads,
           padded ? "padded" : "packed", nsamples, passes, total);
    free(counts);
    free(samples);
    return 0;
}
