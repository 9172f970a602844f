/* The waiting-time analysis's collector (Carnival, section 3.2/3.4), fed by the timed replay's
 * sink: each processor's work (block executions) and stall per segment between two of its
 * synchronisation events, and every wait instance. A wait is explained by the difference
 * between the late processor's segment before the event that ended the wait and the waiting
 * processor's segment before the wait (their paths since their previous synchronisation).
 * The late path's extra time is its compute in blocks (per block, the executions beyond the
 * waiter's) and its stall (per code context, the stall beyond the waiter's, apart for
 * references that communicated and those that did not: ms_sim_comm_refs):
 *   load imbalance:           blocks both executed, the late one more often, and the other
 *                             stall of contexts the waiter referenced too in its segment;
 *   insufficient parallelism: blocks the waiting processor did not execute at all, and the
 *                             other stall of contexts it did not reference (code only the
 *                             late processor ran, such as a serial initialisation's cold
 *                             misses);
 *   communication/contention: the stall of references that communicated (coherence misses,
 *                             data from another processor's cache or another node), and
 *                             every lock wait (the holder's critical section is contention by
 *                             definition; its explanation is the holder's whole path since
 *                             its acquisition).
 * The wait's duration is split between the classes in proportion to those amounts (a wait
 * with no difference at all counts as load imbalance). Processors are the replay's cpus,
 * assumed one thread each (the timed replay's default). Instances whose late paths executed
 * extra the same set of blocks form one equivalence class of paths (Carnival 3.4). */
#ifndef MEMSPY_ANALYSIS_WAITING_COLLECT_H
#define MEMSPY_ANALYSIS_WAITING_COLLECT_H
#include "../format/raw.h"
#include "../replay/replay.h"
#include "workcost.h"

typedef struct ms_wait_collector ms_wait_collector;

/* A collector for ncpus processors and contexts 0..max_ctx pricing blocks with cost (kept,
 * not copied). NULL when out of memory. */
ms_wait_collector *ms_wait_collector_new(unsigned ncpus, uint32_t max_ctx, const ms_work_cost *cost);
/* cpu executed block count times (in its current segment). */
void ms_wait_collector_work(ms_wait_collector *c, unsigned cpu, uint32_t block, uint64_t count);
/* cpu made a reference of context ctx (in its current segment) that stalled cycles (0: a
 * hit); comm: the reference communicated (ms_sim_comm_refs). Called for every reference. */
void ms_wait_collector_ref(ms_wait_collector *c, unsigned cpu, uint32_t ctx, uint64_t cycles, int comm);
/* cpu reached its serial-th synchronisation event: its current segment ends. */
void ms_wait_collector_arrive(ms_wait_collector *c, unsigned cpu, uint64_t serial);
/* A wait ended: classify and explain it. */
void ms_wait_collector_wait(ms_wait_collector *c, const ms_replay_wait *w);
/* Move the synchronisation points into raw->wait_points (largest waiting first) and free c.
 * Returns 0, or -1 when out of memory (then or earlier). */
int ms_wait_collector_finish(ms_wait_collector *c, ms_raw *raw);

#endif
