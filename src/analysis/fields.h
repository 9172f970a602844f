/* The fields of a structure a cell's code uses (spatial utilisation, docs/simulator.md): from
 * the bytes of L1 lines its references touched (ms_counters.l1_ref_bits), the heap bin's first
 * block address and the structure's DWARF layout. */
#ifndef MEMSPY_ANALYSIS_FIELDS_H
#define MEMSPY_ANALYSIS_FIELDS_H
#include <stddef.h>
#include "../format/raw.h"
#include "../model/model.h"
#include "symbolize.h"

/* cell.fields when the cell touched every member of the structure. */
#define MS_FIELDS_ALL "(every field)"

/* Fill cell.fields of m's cells (a run with utilisation; data bin i built from bins[i], before
 * the bins are reordered) whose data bin is a heap array of structures ("TYPE*.var") whose size
 * divides the L1 line: the names of the members any of whose bytes the cell referenced,
 * "x" or "sum_x and n", or MS_FIELDS_ALL. Cells it cannot tell keep "". */
void ms_analyze_fields(ms_model *m, const ms_raw_bin *bins, size_t nbins, ms_symbolizer *sym);

/* The used-mask bits (one per granule of line/64 bytes, one per byte for lines of 64 bytes or
 * less) and a structure layout -> the members touched, for an array starting at byte `phase`
 * of a line (its first element's address modulo line): names joined as "a, b and c" into
 * out (cap bytes; "" if the element size does not divide the line); returns how many. */
int ms_fields_touched(uint64_t bits, unsigned line, uint64_t phase, const ms_member *mem, int nmem, uint64_t elem,
                      char *out, size_t cap);

#endif
