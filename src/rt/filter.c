/* The hit window in front of the simulator (sim/window.h): composes chunks of commands (rt.h)
 * from references. A reference the window counts only adds to its context's count for the
 * chunk; a closing window's operations go in before the reference that closed it; the rest
 * are references to simulate; the counts follow at the end of the chunk, one command per
 * context. The flush or the simulator thread runs it, one at a time (pipeline.c). */
#include "rt.h"

int ms_filter_init(ms_filter *f, const ms_hier_config *cfg)
{
    f->l1_shift = 0;
    while ((1u << f->l1_shift) < cfg->level[0].line) f->l1_shift++;
    f->mem = (ms_mem){ ms_sim_allocator, 0 };
    if (ms_window_init(&f->win, cfg, &f->mem) != 0) return -1;
    /* Spatial utilisation (cfg.utilisation) needs the bytes every reference touches: the
     * simulator's own window keeps them, so this one stays off. */
    if (cfg->utilisation) f->win.on = 0;
    return 0;
}

int ms_filter_grow(ms_filter *f, uint32_t ctx)
{
    uint32_t cap = f->counts_cap ? f->counts_cap : 4096;
    while (cap <= ctx) cap *= 2;
    uint64_t *counts = ms_map(cap * sizeof *counts);
    if (!counts) return -1;
    if (f->counts) ms_memcpy(counts, f->counts, f->counts_cap * sizeof *counts);
    ms_unmap(f->counts, f->counts_cap * sizeof *counts);
    f->counts = counts;
    f->counts_cap = cap;
    return 0;
}

void ms_filter_ops(ms_filter *f, ms_sim_ref *c, uint32_t *k, uint32_t n)
{
    for (uint32_t j = 0; j < n; j++) {
        const ms_win_op *op = &f->win.ops[j];
        ms_cmd_store(&c[(*k)++], op->line, 0, (uint32_t)op->rereference << 1 | op->dirty, f->stream);
    }
}

uint32_t ms_filter_finish(ms_filter *f, ms_sim_ref *c, uint32_t k)
{
    for (uint32_t j = 0; j < f->ntouched; j++) {
        uint32_t ctx = f->touched[j];
        ms_cmd_store(&c[k++], f->counts[ctx], ctx | MS_CMD_COUNT, 0, f->stream);
        f->counts[ctx] = 0;
    }
    f->ntouched = 0;
    return k;
}
