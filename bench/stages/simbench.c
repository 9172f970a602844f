/* Decode and simulation speed of one recorded stream, apart: reads DIR/thread-0.zst chunk by
 * chunk (ms_stream_reader: zstd, CRC, varints) and feeds each chunk's accesses to a simulator
 * exactly as `memspy resim` does (ranges beyond one L1 line as ms_sim_access_range, accesses
 * without a context or size dropped), timing the two separately in CPU time (the process
 * clock: on a loaded shared machine wall time measures the other processes too).
 * Prints one line: accesses, decode ns per access, simulation ns per access, and a checksum of
 * the counters (so that two builds can be compared). With --phase decode it only decodes
 * (for instruction counts of decoding alone).
 * usage: simbench DIR [--preset NAME | --cache SPEC] [--phase decode|all] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/stream_reader.h"
#include "sim/sim.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
    const char *dir = NULL, *preset = "x86", *cache = NULL, *phase = "all";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--preset") && i + 1 < argc)
            preset = argv[++i];
        else if (!strcmp(argv[i], "--cache") && i + 1 < argc)
            cache = argv[++i];
        else if (!strcmp(argv[i], "--phase") && i + 1 < argc)
            phase = argv[++i];
        else
            dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "usage: simbench DIR [--preset NAME | --cache SPEC] [--phase decode|all]\n");
        return 2;
    }
    char err[600], path[4096];
    ms_hier_config cfg;
    if ((cache ? ms_config_parse_cache(cache, &cfg, err, sizeof err)
               : ms_config_preset(preset, &cfg, err, sizeof err)) != 0) {
        fprintf(stderr, "simbench: %s\n", err);
        return 2;
    }
    ms_allocator alloc = {sim_calloc, sim_free, NULL};
    ms_sim *sim = NULL;
    if (ms_sim_create(&sim, &cfg, &alloc) != 0) {
        fprintf(stderr, "simbench: cannot create the simulator\n");
        return 1;
    }
    snprintf(path, sizeof path, "%s/thread-0.zst", dir);
    ms_stream_reader *rd = NULL;
    if (ms_stream_reader_open(&rd, path, 0, UINT32_MAX - 1, err, sizeof err) != MS_SR_CHUNK) {
        fprintf(stderr, "simbench: %s\n", err);
        return 1;
    }
    int simulate = strcmp(phase, "decode") != 0;
    uint32_t line = cfg.level[0].line;
    uint64_t n = 0;
    double t_decode = 0, t_sim = 0;
    for (;;) {
        const ms_replay_event *ev;
        size_t nev;
        double t0 = now();
        int rc = ms_stream_reader_next(rd, &ev, &nev, err, sizeof err);
        double t1 = now();
        t_decode += t1 - t0;
        if (rc != MS_SR_CHUNK)
            break;
        for (size_t i = 0; i < nev; i++) {
            const ms_replay_event *e = &ev[i];
            if (e->kind != 0)
                continue;
            n++;
            if (!simulate || !e->ctx || !e->size)
                continue;
            unsigned flags = e->write ? MS_ACC_WRITE : 0u;
            if (e->size <= line)
                ms_sim_access(sim, 0, e->addr, (uint32_t)e->size, flags, e->ctx);
            else
                ms_sim_access_range(sim, 0, e->addr, e->size, flags, e->ctx);
        }
        t_sim += now() - t1;
    }
    ms_sim_finish(sim);
    ms_counters tot;
    ms_sim_totals(sim, &tot);
    uint64_t sum = 0;
    const uint64_t *w = (const uint64_t *)(const void *)&tot;
    for (size_t i = 0; i < sizeof tot / sizeof *w; i++)
        sum = sum * 1000003u + w[i];
    printf("accesses %llu decode_ns %.2f sim_ns %.2f checksum %016llx\n", (unsigned long long)n,
           n ? 1e9 * t_decode / (double)n : 0.0, n ? 1e9 * t_sim / (double)n : 0.0, (unsigned long long)sum);
    ms_stream_reader_close(rd);
    ms_sim_destroy(sim);
    return 0;
}
