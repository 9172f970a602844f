/* Data bins of the model from the raw bins: MemSpy-style names (internal to the analysis). */
#ifndef MEMSPY_ANALYSIS_DATABINS_H
#define MEMSPY_ANALYSIS_DATABINS_H
#include <stddef.h>
#include <stdint.h>
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

/* What naming needs besides the bins themselves: the raw profile (every raw bin, referenced or
 * not: which library calls allocate several blocks; the OpenMP region records: the stack
 * frames of outlined regions), and each bin's stall (the same order as the bins) and the
 * run's (which of a library's internal allocations are significant). */
typedef struct {
    const ms_raw *raw;
    const uint64_t *stall;
    uint64_t total;
} ms_data_inputs;

/* Build the named data bins of bins[0..nbins) into *out (*nout entries, caller frees with
 * the model): one per raw bin, except a library's internal allocations, joined per library
 * entry point (libbins.h; in may be NULL: then none is joined and bins are taken to be all
 * the raw bins). bins is compacted the same way; data_of[i] (nbins entries) receives the data bin
 * of bins[i]. Short names are unique. Returns 0, or -1 if out of memory. */
int ms_build_data_bins(ms_raw_bin *bins, size_t nbins, const ms_data_inputs *in, ms_symbolizer *sym,
                       const ms_dests *dests, ms_data_bin **out, size_t *nout, uint32_t *data_of);

/* Make the names of bins[0..n) unique: each of the bins that share a name gets a suffix that
 * says where its call path parts from the others' ("@FUNCTION", "@FUNCTION:LINE"); none keeps
 * the plain name, whatever the run's counts (memspy diff matches runs by name), but where no
 * frame tells them apart (a global the compiler split): the first keeps it, the others "#2",
 * "#3", ... in the order of their full names. members[0..nmembers) are the names of functions
 * that DWARF shows to be member functions of a class (ms_frame.member; NULL, 0 where none is
 * known): their scopes are classes, whose frames give way to the first caller outside. Returns
 * 0, or -1 if out of memory. */
int ms_unique_data_names(ms_data_bin *bins, size_t n, const char *const *members, size_t nmembers);

/* Rename bin b to name and full (both malloc'd; b takes them, freeing its old ones). Returns 0,
 * or -1 (both freed, b unchanged) if either is NULL (out of memory). */
int ms_data_bin_rename(ms_data_bin *b, char *name, char *full);

#endif
