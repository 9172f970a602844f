/* Per-thread counters, each in an allocation of its own: with malloc, the small allocations
 * lie 32 bytes apart, two counters share every 64-byte line and their threads false-share it;
 * with "aligned" each counter starts a line of its own (aligned_alloc) and nothing is shared.
 * `memspy whatif --align 'c[]=64'` predicts the aligned layout from a recording of the packed
 * one (tests/e2e/t_whatif.sh). Each thread counts the non-zero samples of its share of an
 * array.
 *
 * usage: heapcounters [packed|aligned] [SAMPLES]   (threads: OMP_NUM_THREADS, at most 16)
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 16

/* Add one event to a counter, out of line so that it stays in memory. */
__attribute__((noinline)) static void Bump(long *counter) { *counter += 1; }

int main(int argc, char **argv)
{
    int aligned = argc > 1 && strcmp(argv[1], "aligned") == 0;
    int n = argc > 2 ? atoi(argv[2]) : 40000;
    int nt = omp_get_max_threads();
    if (nt > MAXT || n < 1) return 2;
    int *samples = malloc(sizeof(int) * (size_t)n);
    long *c[MAXT];
    if (!samples) return 1;
    for (int i = 0; i < n; i++) samples[i] = i % 3;
    /* Counters 2k and 2k+1 share a line whatever the heap held before (the environment's and
     * libomp's allocations move it): the first counter starts in the first half of a line.
     * A probe there is freed (malloc gives its chunk back at once), else kept. */
    void *probe = aligned ? NULL : malloc(sizeof(long));
    if (probe && ((uintptr_t)probe & 63) < 32) free(probe);
    for (int t = 0; t < nt; t++) {
        c[t] = aligned ? aligned_alloc(64, 64) : malloc(sizeof(long));
        if (!c[t]) return 1;
        *c[t] = 0;
    }
#pragma omp parallel
    {
        long *mine = c[omp_get_thread_num()];
#pragma omp for schedule(static)
        for (int i = 0; i < n; i++)
            if (samples[i])
                Bump(mine);
    }
    long total = 0;
    for (int t = 0; t < nt; t++) {
        total += *c[t];
        free(c[t]);
    }
    free(samples);
    printf("threads=%d layout=%s total=%ld\n", nt, aligned ? "aligned" : "packed", total);
    return 0;
}
