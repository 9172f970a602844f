/* Basic blocks, loops and call edges of plugin-instrumented code, from the raw profile to the model. */
#ifndef MEMSPY_ANALYSIS_BLOCKS_H
#define MEMSPY_ANALYSIS_BLOCKS_H
#include "../format/raw.h"
#include "../model/model.h"
#include "symbolize.h"

/* Fill m->blocks and m->loops from raw's MS_RAW_BLOCKS/MS_RAW_LOOPS (same ids), placed by
 * sym: function, file and line of each block; each loop's line range over its blocks and
 * nested loops'. Nothing when raw has no blocks. Returns 0, or -1 when out of memory. */
int ms_analyze_blocks(const ms_raw *raw, ms_symbolizer *sym, ms_model *m);

/* Fill m->calls from raw's MS_RAW_CALLS (after ms_analyze_blocks): each edge between the
 * function compiled around the calling block and the function at the callee's address, at
 * the calling block's first line; edges that come to share caller, callee and line are
 * summed, callees without a name dropped. Returns 0, or -1 when out of memory. */
int ms_analyze_calls(const ms_raw *raw, ms_symbolizer *sym, ms_model *m);

#endif
