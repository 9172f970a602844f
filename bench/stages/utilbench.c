/* The simulator alone on two synthetic streams, for instruction counts (valgrind
 * --tool=cachegrind) of the default path against the one that keeps spatial utilisation
 * (docs/simulator.md, "Spatial utilisation"; bench/stages/util_ir.sh runs it):
 *   hit     8-byte reads walking a 16 KiB array 400 times (819200 references, all L1 hits
 *           after the first pass);
 *   random  2M 8-byte reads at random 8-byte-aligned addresses in 8 MiB (mostly L1 misses).
 * The x86 preset's hierarchy, one processor, the hit window as the simulator sets it.
 * Prints the references and a checksum of the totals (equal with and without --utilisation
 * but for the two spatial counters, which it leaves out).
 * --plru makes every level pseudo-LRU: the general path instead of the specialised one.
 * usage: utilbench hit|random [--utilisation] [--plru] */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

static void *sim_calloc(void *ud, size_t bytes)
{
    (void)ud;
    return calloc(1, bytes);
}

static void sim_free(void *ud, void *p, size_t bytes)
{
    (void)ud;
    (void)bytes;
    free(p);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "hit") != 0 && strcmp(argv[1], "random") != 0)) {
        fprintf(stderr, "usage: utilbench hit|random [--utilisation] [--plru]\n");
        return 2;
    }
    char err[256];
    ms_hier_config cfg;
    if (ms_config_preset("x86", &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "utilbench: %s\n", err);
        return 2;
    }
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--plru") == 0)
            for (int k = 0; k < cfg.nlevels; k++) cfg.level[k].policy = MS_POLICY_PLRU;
#ifdef UTILBENCH_HAS_UTILISATION
        if (strcmp(argv[i], "--utilisation") == 0) cfg.utilisation = 1;
#endif
    }
    ms_allocator alloc = { sim_calloc, sim_free, NULL };
    ms_sim *sim = NULL;
    if (ms_sim_create(&sim, &cfg, &alloc) != 0) return 1;
    uint64_t n = 0, base = 1ull << 24;
    if (strcmp(argv[1], "hit") == 0) {
        for (int pass = 0; pass < 400; pass++)
            for (uint64_t off = 0; off < 16384; off += 8, n++) ms_sim_access(sim, 0, base + off, 8, 0, 1);
    } else {
        uint64_t x = 88172645463325252ull;
        for (; n < 2000000; n++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ms_sim_access(sim, 0, base + ((x >> 11) & ((8u << 20) - 8)), 8, n & 3 ? 0 : MS_ACC_WRITE, 1 + (n & 1));
        }
    }
    ms_sim_finish(sim);
    ms_counters tot;
    ms_sim_totals(sim, &tot);
    uint64_t sum = 0;
    const uint64_t *w = (const uint64_t *)(const void *)&tot;
    size_t words = offsetof(ms_counters, pattern) / sizeof *w; /* the counters before the spatial ones */
    for (size_t i = 0; i < words; i++) sum = sum * 1000003u + w[i];
    printf("references %llu checksum %016llx\n", (unsigned long long)n, (unsigned long long)sum);
    ms_sim_destroy(sim);
    return 0;
}
