/* Where MTOOL's timing-run samples go (docs/mtool.md, "Samples to loops and procedures"): by
 * the sample's inline scopes (libdw's inlined subroutines, through the symbolizer), so that a
 * loop written in a function inlined into another is told apart from the code around the
 * call and named by its own function, file and lines. */
#ifndef MEMSPY_ANALYSIS_MTOOL_PLACE_H
#define MEMSPY_ANALYSIS_MTOOL_PLACE_H
#include <stddef.h>
#include <stdint.h>
#include "../format/raw.h"
#include "../model/model.h"
#include "symbolize.h"

typedef struct ms_mtool_places ms_mtool_places;

/* The places of counted's executed blocks and of its loops (m: ms_analyze_blocks of counted;
 * sym: a symbolizer over counted's program modules), and of its labels in timed's addresses
 * (the timing run's raw profile; NULL: samples are placed by their scopes alone). A loop whose
 * blocks all lie in one function inlined into another is renamed in m: "G, inlined into F",
 * G's file and the lines of its blocks there. Returns 0, or -1 when out of memory. */
int ms_mtool_places_new(const ms_raw *counted, const ms_raw *timed, ms_symbolizer *sym, ms_model *m,
                        ms_mtool_places **out);

/* Per block of m: the loop (index into m->loops) a sample at the block's own position goes
 * to, UINT32_MAX none (ms_mtool_input's placed_loop). */
const uint32_t *ms_mtool_places_loops(const ms_mtool_places *p);

/* The block a sample at pc goes to (sym: the timing run's symbolizer): the block whose label
 * precedes pc in code the timing run executes labelled (clang's plain copies, functions without
 * copies), else a block of the deepest loop whose inline scope and lines hold the sample's
 * position at that scope, else a block of the sample's function (one outside loops first), the
 * one executed most; SIZE_MAX when pc is in no function with blocks. Returns SIZE_MAX - 1 when
 * out of memory. */
size_t ms_mtool_place_pc(ms_mtool_places *p, ms_symbolizer *sym, uint64_t pc);

void ms_mtool_places_free(ms_mtool_places *p);

#endif
