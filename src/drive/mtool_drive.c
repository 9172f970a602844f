/* MTOOL's pipeline over one raw profile; see mtool_drive.h. */
#include "mtool_drive.h"
#include <stdlib.h>
#include <string.h>
#include "../analysis/blockcost.h"
#include "../analysis/blocks.h"
#include "../analysis/mtool.h"
#include "../analysis/mtool_calls.h"
#include "../analysis/mtool_place.h"
#include "../analysis/symbolize.h"
#include "../util/util.h"

/* A block's pc is its asm label + 1 (like a return address): the first instruction is at
 * pc - 1. The plain copy's, which the timing run executes, when the function has one; else
 * the instrumented body's (blockcost.c takes its instrumentation out). */
static uint64_t block_start(const ms_raw_block *b)
{
    uint64_t pc = b->plain_pc ? b->plain_pc : b->pc;
    return pc ? pc - 1 : 0;
}

/* Ideal cycles of every block that executed (count > 0), module by module; 0 for the others:
 * every consumer weighs a block by its executions (estimate, mobjects) or its WORK events
 * (the timed replay), so a block that never ran costs nothing, and llvm-mca is not given it
 * (a large program runs a fraction of its blocks: zstd's CLI, 29,031 in its tables). */
static int costs(const ms_raw *raw, const char *cpu, double *cycles, char *err, size_t errlen)
{
    size_t n = raw->nblocks;
    uint64_t *pcs = malloc(n * sizeof *pcs);
    size_t *idx = malloc(n * sizeof *idx);
    double *c = malloc(n * sizeof *c);
    unsigned char *in_loop = malloc(n ? n : 1);
    uint64_t *counts = malloc((n ? n : 1) * sizeof *counts);
    int rc = 0;
    if (!pcs || !idx || !c || !in_loop || !counts) rc = ms_errorf(err, errlen, "out of memory");
    for (size_t i = 0; i < n; i++) cycles[i] = 0;
    for (size_t mi = 0; rc == 0 && mi < raw->nmodules; mi++) {
        const ms_raw_module *mod = &raw->modules[mi];
        size_t k = 0;
        for (size_t i = 0; i < n; i++) {
            uint64_t pc = raw->blocks[i].count ? block_start(&raw->blocks[i]) : 0;
            if (pc && pc >= mod->lo && pc < mod->hi) {
                pcs[k] = pc;
                in_loop[k] = raw->blocks[i].loop < raw->nloops;
                counts[k] = raw->blocks[i].count;
                idx[k++] = i;
            }
        }
        if (!k || !mod->path) continue;
        if (ms_block_costs(mod->path, mod->base, pcs, in_loop, counts, k, cpu, c, err, errlen) < 0) rc = -1;
        for (size_t j = 0; rc == 0 && j < k; j++) cycles[idx[j]] = c[j];
    }
    free(pcs);
    free(idx);
    free(c);
    free(in_loop);
    free(counts);
    return rc;
}

int ms_block_cycles(const ms_raw *raw, const char *cpu, double *cycles, char *err, size_t errlen)
{
    return raw->nblocks ? costs(raw, cpu, cycles, err, errlen) : 0;
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

/* Whether module mod holds a block of counted: by its path, as the two runs load the same
 * files at different addresses. */
static int holds_blocks(const ms_raw *counted, const ms_raw_module *mod)
{
    if (!mod->path) return 0;
    for (size_t mi = 0; mi < counted->nmodules; mi++) {
        const ms_raw_module *c = &counted->modules[mi];
        if (!c->path || strcmp(c->path, mod->path) != 0) continue;
        for (size_t i = 0; i < counted->nblocks; i++) {
            const ms_raw_block *b = &counted->blocks[i];
            if ((b->pc > c->lo && b->pc <= c->hi) || (b->plain_pc > c->lo && b->plain_pc <= c->hi)) return 1;
        }
    }
    return 0;
}

/* *view: raw with only the modules that hold counted's blocks (the program's instrumented
 * code; shallow: view->modules alone is owned, freed by the caller). Mobjects and call edges
 * are functions with blocks, so a pc elsewhere (libc) is never symbolized: its DWARF (a
 * separate, compressed debug file where installed) would cost more than the program's run. */
static int program_view(const ms_raw *raw, const ms_raw *counted, ms_raw *view)
{
    *view = *raw;
    view->modules = calloc(raw->nmodules ? raw->nmodules : 1, sizeof *view->modules);
    view->nmodules = 0;
    if (!view->modules) return -1;
    for (size_t i = 0; i < raw->nmodules; i++)
        if (holds_blocks(counted, &raw->modules[i])) view->modules[view->nmodules++] = raw->modules[i];
    return 0;
}

/* Whether pc lies in a module of view. */
static int in_view(const ms_raw *view, uint64_t pc)
{
    for (size_t i = 0; i < view->nmodules; i++)
        if (pc >= view->modules[i].lo && pc < view->modules[i].hi) return 1;
    return 0;
}

/* The timing run's samples into the counting run's blocks (timed: program_view's, so that a
 * sample in a library goes to *other unsymbolized), by their inline scopes and lines
 * (analysis/mtool_place.c): the plain copies the timing run executes have no block labels
 * with gcc (docs/plugin.md, "Versioning"). */
static int attribute_samples(const ms_raw *timed, ms_mtool_places *places, size_t nblocks, uint64_t *per_block,
                             uint64_t *other, char *err, size_t errlen)
{
    ms_symbolizer *sym = NULL;
    char *note = NULL;
    if (ms_symbolizer_new(timed, &sym, &note, err, errlen) != 0) return -1;
    free(note);
    *other = 0;
    for (size_t i = 0; i < nblocks; i++) per_block[i] = 0;
    int rc = 0;
    for (size_t s = 0; s < timed->nsamples; s++) {
        size_t at = in_view(timed, timed->samples[s].pc) ? ms_mtool_place_pc(places, sym, timed->samples[s].pc)
                                                         : SIZE_MAX; /* a library's code: no mobject */
        if (at == SIZE_MAX - 1) {
            rc = ms_errorf(err, errlen, "out of memory");
            break;
        }
        if (at < nblocks)
            per_block[at] += timed->samples[s].count;
        else
            *other += timed->samples[s].count;
    }
    ms_symbolizer_free(sym);
    return rc;
}

/* The counting run's call edges by function name (the caller block's function, the callee's
 * at its address: sym, over counted's program_view; callees outside it are left out), into
 * *out (names owned by *names_out, freed by the caller). */
static int call_edges(const ms_raw *counted, ms_symbolizer *sym, const ms_model *m, ms_mtool_edge **out, size_t *n,
                      char ***names_out, char *err, size_t errlen)
{
    *out = NULL;
    *n = 0;
    *names_out = NULL;
    if (!counted->ncalls) return 0;
    ms_mtool_edge *e = calloc(counted->ncalls, sizeof *e);
    char **names = calloc(counted->ncalls, sizeof *names);
    int rc = e && names ? 0 : ms_errorf(err, errlen, "out of memory");
    for (size_t i = 0; rc == 0 && i < counted->ncalls; i++) {
        const ms_raw_call *c = &counted->calls[i];
        if (c->caller_block >= m->nblocks || !m->blocks[c->caller_block].function || !in_view(counted, c->callee_pc))
            continue;
        const ms_sym *y = ms_symbolize(sym, c->callee_pc, false);
        const ms_frame *f = y && y->nframes ? &y->frames[y->nframes - 1] : NULL;
        const char *fn = f && f->func ? ms_symbolizer_readable(sym, f->func) : NULL;
        if (!fn) continue;
        if (!(names[*n] = strdup(fn))) {
            rc = ms_errorf(err, errlen, "out of memory");
            break;
        }
        e[*n] = (ms_mtool_edge){ m->blocks[c->caller_block].function, names[*n], c->count };
        (*n)++;
    }
    *out = e;
    *names_out = names;
    return rc;
}

int ms_mtool_from_raws(const ms_raw *counted, const ms_raw *timed, const char *cpu, const ms_core_reading *core,
                       double system_s, ms_mtool_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!counted->nblocks)
        return ms_errorf(err, errlen,
                         "the profile has no basic blocks: the program was not built with memspy-cc's "
                         "GCC plugin (MEMSPY_INSTRUMENT=plugin)");
    if (!timed->nsamples) return ms_errorf(err, errlen, "the timing run took no samples (it ran too briefly to time)");
    /* the blocks and loops placed in the source: all MTOOL needs of the counting run's model */
    ms_model m;
    ms_model_init(&m);
    ms_raw cview, tview;
    ms_symbolizer *sym = NULL;
    ms_mtool_places *places = NULL;
    char *note = NULL;
    memset(&tview, 0, sizeof tview);
    size_t n = counted->nblocks;
    double *cycles = calloc(n, sizeof *cycles);
    uint64_t *per_block = calloc(n, sizeof *per_block);
    int rc = -1;
    if (program_view(counted, counted, &cview) < 0) {
        free(cycles);
        free(per_block);
        return ms_errorf(err, errlen, "out of memory");
    }
    if (!cycles || !per_block || program_view(timed, counted, &tview) < 0) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    if (ms_symbolizer_new(&cview, &sym, &note, err, errlen) != 0) goto out;
    free(note);
    if (ms_analyze_blocks(counted, sym, &m) != 0 || m.nblocks != n) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    if (costs(counted, cpu, cycles, err, errlen) < 0) goto out;
    ms_core_reading checked = *core;
    if (ms_core_model(&checked, cpu, err, errlen) < 0) goto out;
    uint64_t other = 0;
    if (ms_mtool_places_new(counted, timed, sym, &m, &places) < 0) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    if (attribute_samples(&tview, places, n, per_block, &other, err, errlen) < 0) goto out;
    ms_mtool_input in = { m.blocks,
                          m.nblocks,
                          m.loops,
                          m.nloops,
                          cycles,
                          per_block,
                          other,
                          timed->samples_runtime,
                          timed->sample_period_ns,
                          core->clock_hz,
                          system_s,
                          ms_mtool_places_loops(places) };
    if (ms_mtool_analyze(&in, out) < 0) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    ms_mtool_edge *edges = NULL;
    char **names = NULL;
    size_t nedges = 0;
    int cg = call_edges(&cview, sym, &m, &edges, &nedges, &names, err, errlen);
    if (cg == 0 && ms_mtool_inclusive(out, edges, nedges) < 0) cg = ms_errorf(err, errlen, "out of memory");
    for (size_t i = 0; names && i < nedges; i++) free(names[i]);
    free(names);
    free(edges);
    if (cg < 0) {
        ms_mtool_result_free(out);
        goto out;
    }
    out->cpu_model = strdup(cpu);
    memcpy(out->chains, checked.chains, sizeof out->chains);
    out->nchains = checked.nchains;
    out->incomplete = counted->truncated || (counted->flags & MS_RAW_F_INCOMPLETE) || timed->truncated ||
                      (timed->flags & MS_RAW_F_INCOMPLETE);
    rc = out->cpu_model ? 0 : ms_errorf(err, errlen, "out of memory");
    if (rc) ms_mtool_result_free(out);
out:
    free(cycles);
    free(per_block);
    ms_mtool_places_free(places);
    ms_symbolizer_free(sym);
    free(cview.modules);
    free(tview.modules);
    ms_model_free(&m);
    return rc;
}
