/* The compute cycles of basic blocks, for the timed replay: a small interface so that a better
 * model (MTOOL's per-block cycles from llvm-mca) can replace the estimate without touching the
 * replay or the waiting-time analysis. */
#ifndef MEMSPY_ANALYSIS_WORKCOST_H
#define MEMSPY_ANALYSIS_WORKCOST_H
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"

typedef struct {
    uint32_t *cycles;   /* per block id of MS_RAW_BLOCKS */
    size_t n;           /* blocks known; an unknown id costs 1 cycle per execution */
    const char *source; /* how the cycles were obtained (static text, shown in reports) */
} ms_work_cost;

/* The documented estimate until per-block cycles exist: one cycle per GIMPLE statement of the
 * block (its `stmts`), at least one. Returns 0, or -1 when out of memory. */
int ms_work_cost_estimate(ms_work_cost *cost, const ms_raw *raw);

/* MTOOL's per-block cycles (llvm-mca, one value per raw block, rounded, at least 1; a block
 * with 0, not costed, keeps the statement estimate). source: static text naming them.
 * Returns 0, or -1 when out of memory. */
int ms_work_cost_from_cycles(ms_work_cost *cost, const ms_raw *raw, const double *cycles, const char *source);

/* Cycles of block executed count times. */
uint64_t ms_work_cost_cycles(const ms_work_cost *cost, uint32_t block, uint64_t count);

void ms_work_cost_free(ms_work_cost *cost);

#endif
