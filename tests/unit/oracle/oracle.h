/* The frozen oracle's API for test_sim_diff: the simulator as it was before the speed work of
 * issue 10 (commit 73dd67a), copied into tests/unit/oracle with every external name prefixed
 * oracle_ (oracle_rename.h). Same model and public API as src/sim/sim.h. */
#ifndef MEMSPY_ORACLE_H
#define MEMSPY_ORACLE_H
#include "sim/sim.h"

typedef struct oracle_sim oracle_sim;

int oracle_ms_sim_create(oracle_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc);
void oracle_ms_sim_destroy(oracle_sim *sim);
int oracle_ms_sim_access(oracle_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
void oracle_ms_sim_access_range(oracle_sim *sim, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags,
                                uint32_t ctx);
int oracle_ms_sim_count(oracle_sim *sim, uint32_t ctx, uint64_t reads, uint64_t writes);
void oracle_ms_sim_set_window(oracle_sim *sim, int on);
const ms_counters *oracle_ms_sim_counters(const oracle_sim *sim, uint32_t *n);
void oracle_ms_sim_next_region(oracle_sim *sim);
void oracle_ms_sim_finish(oracle_sim *sim);
void oracle_ms_sim_each_eviction(const oracle_sim *sim, void (*fn)(const ms_eviction *e, void *ud), void *ud);
void oracle_ms_sim_each_invalidation(const oracle_sim *sim, void (*fn)(const ms_invalidation *e, void *ud), void *ud);

#endif
