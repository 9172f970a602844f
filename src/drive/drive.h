/* The drive layer: running a recording's replay through the simulator and turning the results
 * into the model, for `memspy run`, `memspy resim` and the analyses built on them. A library:
 * it prints nothing and returns its errors; the CLI parses arguments and prints. */
#ifndef MEMSPY_DRIVE_DRIVE_H
#define MEMSPY_DRIVE_DRIVE_H
#include <stddef.h>
#include "../format/raw.h"
#include "../model/model.h"
#include "../replay/remap.h"
#include "../replay/replay.h"
#include "../sim/config.h"

/* What was wrong with some recorded streams ("thread 2: corrupt chunk at byte 1234 ..."). */
typedef struct {
    char **v;
    size_t n;
} ms_drive_problems;

/* Free the problems' strings (p itself is the caller's) and empty it. */
void ms_drive_problems_free(ms_drive_problems *p);

/* The problems joined by "; " (malloc'd; "" when none), or NULL when out of memory. */
char *ms_drive_problems_join(const ms_drive_problems *p);

/* Replay the streams in dir under cfg (nprocs 0: one processor per thread) in `mode`, and add
 * the results to raw: its counters and replacement causes are kept (a prefix simulated in the
 * program before threads started) and the replayed ones appended; invalidations, threads,
 * nprocs, interleave and the configuration are set. Returns 0; 1 when some streams were
 * incomplete (*problems says which, to be freed; results are still added); -1 with err
 * naming the problem (nothing usable). */
int ms_drive_replay(const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                    ms_drive_problems *problems, char *err, size_t errlen);

/* ms_drive_replay for `memspy whatif` (replay/remap.h): with remap not yet planned, every
 * access is also observed into it (ms_remap_observe); once planned, the remapped bins' accesses
 * are simulated at their new addresses (ms_remap_map, split where they cross a moved element).
 * remap NULL: ms_drive_replay. */
int ms_drive_replay_remap(const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_remap *remap, ms_raw *raw,
                          ms_drive_problems *problems, char *err, size_t errlen);

/* One reference of a scan: context ctx on processor cpu touched [addr, addr + size). */
typedef void (*ms_drive_scan_fn)(void *ud, unsigned cpu, uint32_t ctx, uint64_t addr, uint64_t size);
/* Replay the streams in dir (one processor per thread, `mode`; the timed order as interleaved)
 * into fn, without simulating (contexts up to max_ctx): the row strides of the advice
 * (analysis/strides.h), where what-if bins lie. Returns 0 (incomplete streams: what was
 * read), or -1 with err. */
int ms_drive_scan(const char *dir, ms_interleave mode, uint32_t max_ctx, ms_drive_scan_fn fn, void *ud, char *err,
                  size_t errlen);

/* The number of simulator threads the replays of this process use (0: the default, the CPUs
 * the process may use minus one): a process-wide choice of the command line (--sim-threads).
 * The simulation is split into partitions by line number (sim/psim.h); results do not depend on
 * the number except the capacity/conflict split. */
void ms_drive_set_sim_threads(unsigned n);
/* Code bins of the analyses that follow: granularity (ms_code_granularity of
 * analysis/codebins.h: function, loop or line) and, for loops, the least share (0..1) of its
 * function's stall a loop needs to be a bin of its own (default: function, 0.1). */
void ms_drive_set_code_bins(int granularity, double loop_share);

/* Re-simulate a recording (`memspy resim`): read its raw profile at raw_path, drop the
 * counters and replacement causes simulated while it was recorded, and replay its streams in
 * dir under cfg in their place (ms_drive_replay). Returns as ms_drive_replay; raw is to be
 * freed (ms_raw_free) whatever the result. */
int ms_drive_resim(const char *raw_path, const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                   ms_drive_problems *problems, char *err, size_t errlen);

/* ms_drive_resim with ms_drive_replay_remap's remap (NULL: ms_drive_resim). */
int ms_drive_resim_remap(const char *raw_path, const char *dir, const ms_hier_config *cfg, ms_interleave mode,
                         ms_remap *remap, ms_raw *raw, ms_drive_problems *problems, char *err, size_t errlen);

/* Fills the metadata only the command knows (program, argv, time...) into m. 0 or -1. */
typedef int (*ms_drive_metadata_fn)(ms_model *m, void *ud);

/* Analyze raw into m (initialised here) and add the caller's metadata (fill may be NULL).
 * Returns 0, or -1 with err naming the problem (m is then freed). */
int ms_drive_analyze(const ms_raw *raw, ms_drive_metadata_fn fill, void *ud, ms_model *m, char *err, size_t errlen);

#endif
