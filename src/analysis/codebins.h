/* Code bins at three granularities (MemSpy's procedures, MTOOL's loops, source lines): the
 * code bin each context of a raw profile belongs to. */
#ifndef MEMSPY_ANALYSIS_CODEBINS_H
#define MEMSPY_ANALYSIS_CODEBINS_H
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"
#include "../model/model.h"
#include "symbolize.h"

typedef enum {
    MS_CODE_FUNCTION = 0, /* one bin per function (MemSpy's procedures) */
    MS_CODE_LOOP = 1,     /* per function, its loops that hold enough of its stall */
    MS_CODE_LINE = 2      /* one bin per source line of a function */
} ms_code_granularity;

/* The granularity named name ("function", "loop", "line"): 0, or -1 if it names none. */
int ms_code_granularity_parse(const char *name, ms_code_granularity *out);

/* One context to place: its pc and innermost frame (in), its code bin's name and line (out:
 * name malloc'd, the bin's first source line or 0). */
typedef struct {
    uint32_t ctx;
    uint64_t pc;
    const ms_frame *frame;
    char *name;
    int line;
} ms_code_place;

/* Name the code bin of each of the n contexts. Loop granularity (needs m->blocks/m->loops
 * from ms_analyze_blocks; without them it falls back to functions): a context goes to the
 * innermost loop around it whose stall, nested loops included, is at least share (0..1) of its
 * function's stall, named "FUNC:loop@FIRST-LAST" ("FUNC:loop@LINE" on one line); a context
 * in no such loop to its function. Line granularity: "FUNC:LINE". Returns 0, or -1 when out
 * of memory (names made so far stay for the caller to free). */
int ms_code_places(const ms_raw *raw, ms_symbolizer *sym, const ms_model *m, ms_code_granularity g, double share,
                   ms_code_place *places, size_t n);

#endif
