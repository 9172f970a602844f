/* Analysis: turn a raw profile (addresses, pcs, counters) into the model (named code and data
 * bins, cells, per-line statistics). Symbolizes with elfutils libdw; names heap bins from the
 * allocation statement in the source, MemSpy-style. */
#ifndef MEMSPY_ANALYSIS_ANALYZE_H
#define MEMSPY_ANALYSIS_ANALYZE_H
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"
#include "../model/model.h"

typedef struct {
    const char *source_root; /* prefix for relative source paths, NULL = as recorded */
    int code_granularity;    /* ms_code_granularity (codebins.h): function (0), loop, line */
    double loop_share;       /* loop granularity: a loop's least share of its function's stall */
} ms_analyze_opts;

/* Build *out (initialised by the callee) from raw. Run metadata (program, argv, cwd, time,
 * version) is left for the caller to fill. Returns 0, or -1 with err set. Never exits. */
int ms_analyze(const ms_raw *raw, const ms_analyze_opts *opts, ms_model *out, char *err, size_t errlen);

/* Extract a MemSpy-style short name from the source text of an allocation statement.
 * `text` holds the statement's source (possibly several lines joined by '\n'), and col is the
 * 1-based column of the allocation call within its last line (0 if unknown).
 * Examples: "double *Y = malloc(n)" -> "double*.Y"; "M->nz = calloc(..)" -> "M.nz";
 * "int **rows = (int **)malloc(..)" -> "int**.rows"; "a[i] = malloc(..)" -> "a[]";
 * "Foo *f = new Foo(3);" -> "Foo*.f"; "allocate(A(n,n), B(n))" with col at A -> "A";
 * "return malloc(n);" -> NULL (no name here). Returns a malloc'd string or NULL. */
char *ms_name_from_statement(const char *text, int col);

/* The element size a short name implies: "double*.Y" -> 8 (an array of double), "int**.rows"
 * -> 8 (an array of pointers), "long*.counts" -> 8; 0 when the name names no scalar type
 * ("Foo*.f", "grid", a full name). */
uint64_t ms_name_element_size(const char *name);

#endif
