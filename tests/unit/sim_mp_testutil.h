/* Helpers of the multiprocessor simulator tests: counters of one (ctx, cpu) and one-line
 * reads and writes of 8 bytes (64-byte lines in every test configuration). */
#ifndef MEMSPY_TEST_SIM_MP_TESTUTIL_H
#define MEMSPY_TEST_SIM_MP_TESTUTIL_H
#include "sim_testutil.h"

#define WR MS_ACC_WRITE

/* Counters of (ctx, cpu); exits if that entry does not exist. */
static inline const ms_counters *at(const ms_sim *sim, uint32_t ctx, unsigned cpu)
{
    uint32_t n = 0;
    const ms_counters *c = ms_sim_counters(sim, &n);
    uint32_t i = ctx * ms_sim_nprocs(sim) + cpu;
    if (i >= n) {
        fprintf(stderr, "no counters for ctx %u cpu %u (%u entries)\n", ctx, cpu, n);
        exit(1);
    }
    return &c[i];
}

static inline int rd(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t ctx)
{
    return ms_sim_access(sim, cpu, addr, 8, 0, ctx);
}

static inline int wr(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t ctx)
{
    return ms_sim_access(sim, cpu, addr, 8, WR, ctx);
}

#endif
