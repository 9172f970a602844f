/* Per-thread counters, each in an allocation of its own: with malloc, the small allocations
 * lie 32 bytes apart, two counters share every 64-byte line and their threads false-share it;
 * with "aligned" each counter starts a line of its own (aligned_alloc) and nothing is shared.
 * `memspy whatif --align 'c[]=64'` predicts the aligned layout from a recording of the packed
 * one (tests/e2e/t_whatif.sh). Each thread counts the non-zero samples of its share of an
 * array.
 *
 * usage: heapcounters [packed|aligned] [SAMPLES]   (threads: OMP_NUM_THREADS, at most 16;
 * packed: at most 7, the size of glibc's per-thread cache of free chunks, see Reserve)
 *
 * It prints the number of lines the counters share ("shared=2" for 4 threads): packed, each
 * pair of counters 2k, 2k+1 shares one; aligned, none.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXT 16
#define MAXPROBES 512

/* Make the next nt malloc(sizeof(long)) return chunks 32 bytes apart, the first in the first
 * half of a 64-byte line: 1, or 0 if none were found. Malloc hands out the chunks freed
 * before (by the environment's parsing, libomp's start-up: different for each environment,
 * e.g. make's MAKEFLAGS) first, wherever they lie, so the counters allocated one after
 * another were not always neighbours: 0, 1 or 2 lines shared by 4 counters, and the
 * false sharing with them (t_timed_load, t_whatif). Probes of the counters' size are taken,
 * and held, until nt in a row lie as wanted; those are freed last first, so that glibc's
 * per-thread cache (LIFO, at most 7 chunks of a size) gives them back first first, and
 * checked by taking them once more. */
static int Reserve(int nt, void **held, int *nheld)
{
    int n = 0;
    while (n < MAXPROBES) {
        held[n++] = malloc(sizeof(long));
        if (!held[n - 1]) break;
        if (n < nt) continue;
        char *first = held[n - nt];
        int ok = ((uintptr_t)first & 63) < 32;
        for (int k = 1; ok && k < nt; k++) ok = (char *)held[n - nt + k] == first + 32 * k;
        if (!ok) continue;
        for (int k = nt - 1; k >= 0; k--) free(held[n - nt + k]);
        int same = 1;
        for (int k = 0; k < nt; k++) {
            void *again = malloc(sizeof(long));
            same = same && again == held[n - nt + k];
            held[n - nt + k] = again; /* held again (if it is another, it stays held) */
        }
        if (same) {
            for (int k = nt - 1; k >= 0; k--) free(held[n - nt + k]);
            *nheld = n - nt;
            return 1;
        }
    }
    *nheld = n;
    return 0;
}

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
    /* Counters 2k and 2k+1 share a line whatever the heap held before. */
    void *held[MAXPROBES];
    int nheld = 0;
    if (!aligned && !Reserve(nt, held, &nheld)) {
        fprintf(stderr, "heapcounters: no %d neighbouring chunks found\n", nt);
        return 3;
    }
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
    int shared = 0;
    for (int t = 0; t < nt; t++) {
        total += *c[t];
        shared += t > 0 && (uintptr_t)c[t] / 64 == (uintptr_t)c[t - 1] / 64;
    }
    for (int t = 0; t < nt; t++) free(c[t]);
    for (int k = 0; k < nheld; k++) free(held[k]);
    free(samples);
    printf("threads=%d layout=%s total=%ld shared=%d\n", nt, aligned ? "aligned" : "packed", total, shared);
    return 0;
}
