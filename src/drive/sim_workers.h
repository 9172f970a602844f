/* The worker threads of the partitioned simulation (sim/psim.h): the drive owns them, the
 * simulator stays a pure library. The workers route each batch in slices, in parallel, and
 * each runs the references of the partitions p with p % workers == its number, batch by
 * batch in order; the producer (the replay) blocks when too many batches are in flight. */
#ifndef MEMSPY_DRIVE_SIM_WORKERS_H
#define MEMSPY_DRIVE_SIM_WORKERS_H
#include "../sim/psim.h"

typedef struct ms_sim_workers ms_sim_workers;

/* The default worker count: 1 until partitioned simulation keeps the capacity/conflict split
 * exact (docs/simulator.md, "Partitioned simulation"). */
unsigned ms_sim_workers_default(void);

/* Queue state for up to `want` workers (started by ms_sim_workers_start). NULL: no memory. */
ms_sim_workers *ms_sim_workers_new(unsigned want);

/* The psim queue callbacks (ud = the workers). */
ms_psim_batch *ms_sim_workers_submit(void *ud, ms_psim_batch *full);

/* Start the workers for ps (min(want, partitions)); returns how many started (0: the
 * producer applies every batch itself). */
unsigned ms_sim_workers_start(ms_sim_workers *w, ms_psim *ps);

/* Flush ps, let the workers drain every queue, join them, and free the queue state. */
void ms_sim_workers_finish(ms_sim_workers *w);

#endif
