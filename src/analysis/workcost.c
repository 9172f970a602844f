/* Block costs (workcost.h): the statement-count estimate. */
#include "workcost.h"
#include <stdlib.h>

int ms_work_cost_estimate(ms_work_cost *cost, const ms_raw *raw)
{
    cost->n = raw->nblocks;
    cost->source = "estimate: 1 cycle per GIMPLE statement of a block";
    cost->cycles = raw->nblocks ? calloc(raw->nblocks, sizeof *cost->cycles) : NULL;
    if (raw->nblocks && !cost->cycles) return -1;
    for (size_t i = 0; i < raw->nblocks; i++) cost->cycles[i] = raw->blocks[i].stmts ? raw->blocks[i].stmts : 1;
    return 0;
}

int ms_work_cost_from_cycles(ms_work_cost *cost, const ms_raw *raw, const double *cycles, const char *source)
{
    if (ms_work_cost_estimate(cost, raw) < 0) return -1;
    cost->source = source;
    for (size_t i = 0; i < raw->nblocks; i++)
        if (cycles[i] > 0) cost->cycles[i] = cycles[i] < 1.5 ? 1u : (uint32_t)(cycles[i] + 0.5);
    return 0;
}

uint64_t ms_work_cost_cycles(const ms_work_cost *cost, uint32_t block, uint64_t count)
{
    return (block < cost->n ? cost->cycles[block] : 1u) * count;
}

void ms_work_cost_free(ms_work_cost *cost)
{
    free(cost->cycles);
    cost->cycles = NULL;
    cost->n = 0;
}
