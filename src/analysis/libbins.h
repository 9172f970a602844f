/* Blocks that code of a library without DWARF allocated (heap:LIBRARY:FUNCTION bins): which
 * of them a call of the program gets back, and how the others are grouped (docs/guide.md,
 * "How data bins are named"). */
#ifndef MEMSPY_ANALYSIS_LIBBINS_H
#define MEMSPY_ANALYSIS_LIBBINS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"
#include "symbolize.h"

/* A library's internal allocations that hold less than this share of the run's stall each
 * (percent) are one bin per library entry point; a larger one keeps a bin of its own. */
#define MS_LIBRARY_BIN_SIGNIFICANT_PCT 1

/* Per bins[i] (heap bins of the run, among all[0..nall), every raw bin): whether it was
 * allocated by a library's code and is the only block-allocating site, among all raw bins,
 * behind its call into that library (the same call path from the call outwards): then the
 * block is what the call returns (strdup, a library's constructor function), and the caller's
 * destination names it. The others (a call that allocates several blocks) keep the library's
 * name. Returns a malloc'd array of nbins flags, NULL when out of memory. */
bool *ms_library_exclusive(const ms_raw_bin *all, size_t nall, const ms_raw_bin *bins, size_t nbins,
                           ms_symbolizer *sym);

#endif
