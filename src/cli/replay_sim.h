/* Replaying a recording's per-thread streams into a fresh (multiprocessor) simulator and
 * putting the simulated statistics into a raw profile, for `memspy run` (multithreaded
 * programs) and `memspy resim`. */
#ifndef MEMSPY_CLI_REPLAY_SIM_H
#define MEMSPY_CLI_REPLAY_SIM_H
#include "../format/raw.h"
#include "../replay/replay.h"
#include "../sim/config.h"

/* Replay the streams in dir under cfg (nprocs 0: one processor per thread) in `mode`, and add
 * the results to raw: its counters and replacement causes are kept (a prefix simulated in the
 * program before threads started) and the replayed ones appended; invalidations, threads,
 * nprocs, interleave and the configuration are set. Returns 0; 1 when some streams were
 * incomplete (*problems, malloc'd, says which; results are still added); -1 after printing
 * "memspy CMD: ..." (nothing usable). */
int ms_replay_into_raw(const char *cmd, const char *dir, const ms_hier_config *cfg, ms_interleave mode,
                       ms_raw *raw, char **problems);

#endif
