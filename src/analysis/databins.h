/* Data bins of the model from the raw bins: MemSpy-style names (internal to the analysis). */
#ifndef MEMSPY_ANALYSIS_DATABINS_H
#define MEMSPY_ANALYSIS_DATABINS_H
#include <stddef.h>
#include "../format/raw.h"
#include "../model/model.h"
#include "source.h"
#include "symbolize.h"
#include "dests.h"

/* Prefix of a variable that holds a heap object of the same name: "&frame" is the pointer
 * variable frame, "frame" the heap object it points to. */
#define MS_POINTER_PREFIX "&"

/* The bin of malloc's bookkeeping that the C library does for the program's allocations
 * (chunk size words, free-list links): a heap bin of its own. */
#define MS_HEAP_HEADERS_NAME "heap:headers"

/* Build one named data bin per raw bin (same order) into *out (nbins entries, caller frees
 * with the model). Short names are unique among them. Returns 0, or -1 if out of memory. */
int ms_build_data_bins(const ms_raw_bin *bins, size_t nbins, ms_symbolizer *sym, const ms_dests *dests,
                       ms_data_bin **out);

/* Make the names of bins[0..n) unique by appending "#2", "#3", ... to the later of equal
 * names, ordered by full name then index. Returns 0, or -1 if out of memory. */
int ms_unique_data_names(ms_data_bin *bins, size_t n);

#endif
