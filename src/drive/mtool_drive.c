/* MTOOL's pipeline over one raw profile; see mtool_drive.h. */
#include "mtool_drive.h"
#include <stdlib.h>
#include <string.h>
#include "../analysis/analyze.h"
#include "../analysis/blockcost.h"
#include "../analysis/mtool.h"
#include "../util/util.h"

/* A block's pc is its asm label + 1 (like a return address): the first instruction is at
 * pc - 1. */
static uint64_t block_start(const ms_raw_block *b) { return b->pc ? b->pc - 1 : 0; }

/* Ideal cycles of every block, module by module. */
static int costs(const ms_raw *raw, const char *cpu, double *cycles, char *err, size_t errlen)
{
    size_t n = raw->nblocks;
    uint64_t *pcs = malloc(n * sizeof *pcs);
    size_t *idx = malloc(n * sizeof *idx);
    double *c = malloc(n * sizeof *c);
    int rc = 0;
    if (!pcs || !idx || !c) rc = ms_errorf(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) cycles[i] = 0;
    for (size_t mi = 0; rc == 0 && mi < raw->nmodules; mi++) {
        const ms_raw_module *mod = &raw->modules[mi];
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t pc = block_start(&raw->blocks[i]);
            if (pc && pc >= mod->lo && pc < mod->hi) {
                pcs[k] = pc;
                idx[k++] = i;
            }
        }
        if (!k || !mod->path) continue;
        if (ms_block_costs(mod->path, mod->base, pcs, k, cpu, c, err, errlen) < 0) rc = -1;
        for (size_t j = 0; rc == 0 && j < k; j++) cycles[idx[j]] = c[j];
    }
    free(pcs);
    free(idx);
    free(c);
    return rc;
}

int ms_ideal_cycles(const ms_raw *raw, const char *cpu, double *out, char *err, size_t errlen)
{
    *out = 0;
    if (!raw->nblocks) return 0;
    double *cycles = calloc(raw->nblocks, sizeof *cycles);
    if (!cycles) return ms_errorf(err, errlen, "out of memory");
    int rc = costs(raw, cpu, cycles, err, errlen);
    for (size_t i = 0; rc == 0 && i < raw->nblocks; i++) *out += cycles[i] * (double)raw->blocks[i].count;
    free(cycles);
    return rc;
}

int ms_mtool_from_raw(const ms_raw *raw, const char *cpu, double clock_hz, double system_s, ms_mtool_result *out,
                      char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!raw->nblocks)
        return ms_errorf(err, errlen,
                         "the profile has no basic blocks: the program was not built with memspy-cc's "
                         "GCC plugin (MEMSPY_INSTRUMENT=plugin)");
    if (!raw->nsamples) return ms_errorf(err, errlen, "the timing run took no samples (it ran too briefly to time)");
    ms_model m;
    ms_analyze_opts opts = { NULL };
    if (ms_analyze(raw, &opts, &m, err, errlen) != 0) return -1;
    size_t n = raw->nblocks;
    double *cycles = calloc(n, sizeof *cycles);
    uint64_t *per_block = calloc(n, sizeof *per_block), *starts = calloc(n, sizeof *starts);
    uint64_t *spc = calloc(raw->nsamples, sizeof *spc), *scount = calloc(raw->nsamples, sizeof *scount);
    int rc = -1;
    if (!cycles || !per_block || !starts || !spc || !scount || m.nblocks != n) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    if (costs(raw, cpu, cycles, err, errlen) < 0) goto out;
    for (size_t i = 0; i < n; i++) starts[i] = block_start(&raw->blocks[i]);
    for (size_t s = 0; s < raw->nsamples; s++) {
        spc[s] = raw->samples[s].pc;
        scount[s] = raw->samples[s].count;
    }
    uint64_t other = 0;
    if (ms_mtool_attribute(starts, n, spc, scount, raw->nsamples, per_block, &other) < 0) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    ms_mtool_input in = {
        m.blocks, m.nblocks, m.loops, m.nloops, cycles, per_block, other, raw->samples_runtime, raw->sample_period_ns,
        clock_hz, system_s
    };
    if (ms_mtool_analyze(&in, out) < 0) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    out->cpu_model = strdup(cpu);
    out->incomplete = raw->truncated || (raw->flags & MS_RAW_F_INCOMPLETE);
    rc = out->cpu_model ? 0 : ms_errorf(err, errlen, "out of memory");
    if (rc) ms_mtool_result_free(out);
out:
    free(cycles);
    free(per_block);
    free(starts);
    free(spc);
    free(scount);
    ms_model_free(&m);
    return rc;
}
