/* MTOOL from the raw profiles of a counting run and a timing run to its result (`memspy mtool`): the blocks
 * placed in the source, their ideal cycles from llvm-mca, the samples attributed to them, and
 * the mobjects. A library: prints nothing, returns its errors. */
#ifndef MEMSPY_DRIVE_MTOOL_DRIVE_H
#define MEMSPY_DRIVE_MTOOL_DRIVE_H
#include <stddef.h>
#include "../format/raw.h"
#include "../analysis/corecheck.h"
#include "../model/mtool.h"

/* Build *out from the counting run's raw profile (BLOCKS, LOOPS: exact counts) and the timing
 * run's (SAMPLES, taken in the plain copies) for llvm-mca's cpu model, with the core's reading
 * (effective clock; chain latencies, checked here against the model) and the timing run's
 * system time system_s (shown apart). Returns 0, or -1 with err
 * (no blocks: not built by memspy-cc's plugin; no samples; llvm-mca failed). */
int ms_mtool_from_raws(const ms_raw *counted, const ms_raw *timed, const char *cpu, const ms_core_reading *core,
                       double system_s, ms_mtool_result *out, char *err, size_t errlen);

/* Every block's llvm-mca cycles per execution for cpu (cycles[i] for raw->blocks[i]; 0 where
 * the block's module is unknown or the block never executed: count 0). Returns 0, or -1 with err. */
int ms_block_cycles(const ms_raw *raw, const char *cpu, double *cycles, char *err, size_t errlen);

/* The run's ideal-memory cycles: every block's count x its llvm-mca cycles for cpu (0 without
 * blocks). Returns 0, or -1 with err (llvm-mca missing, binary unreadable). */
int ms_ideal_cycles(const ms_raw *raw, const char *cpu, double *out, char *err, size_t errlen);

#endif
