/* Analysis: turn a raw profile (addresses, pcs, counters) into the model (named code and data
 * bins, cells, per-line statistics). Symbolizes with elfutils libdw; names heap bins from the
 * allocation destinations the compiler plugins recorded, MemSpy-style (never the source text). */
#ifndef MEMSPY_ANALYSIS_ANALYZE_H
#define MEMSPY_ANALYSIS_ANALYZE_H
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"
#include "../model/model.h"

typedef struct {
    int code_granularity; /* ms_code_granularity (codebins.h): function (0), loop, line */
    double loop_share;    /* loop granularity: a loop's least share of its function's stall */
} ms_analyze_opts;

/* Build *out (initialised by the callee) from raw. Run metadata (program, argv, cwd, time,
 * version) is left for the caller to fill. Returns 0, or -1 with err set. Never exits. */
int ms_analyze(const ms_raw *raw, const ms_analyze_opts *opts, ms_model *out, char *err, size_t errlen);

/* The element size a short name implies: "double*.Y" -> 8 (an array of double), "int**.rows"
 * -> 8 (an array of pointers), "long*.counts" -> 8; 0 when the name names no scalar type
 * ("Foo*.f", "grid", a full name). */
uint64_t ms_name_element_size(const char *name);

#endif
