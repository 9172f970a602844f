/* Findings: the headline of a run in plain sentences, drawn from the model's evidence (miss
 * causes, replacement and invalidation causes, access patterns, per-line statistics), e.g.
 * "62% of memory stall: Y in BlkMultiply (blkmatmul.c:50-52), replacement misses caused by Y
 * itself (self-interference)". Every report starts with them; the JSON keeps them. Pure: a
 * function of the model. */
#ifndef MEMSPY_ANALYSIS_FINDINGS_H
#define MEMSPY_ANALYSIS_FINDINGS_H
#include <stddef.h>
#include <stdint.h>
#include "../model/model.h"

/* Cells holding at least this share of the stall are findings (at most MS_FINDINGS_MAX), and
 * always the top cell when it holds at least 1%. */
#define MS_FINDINGS_MIN_SHARE 0.05

/* The findings of m, largest share first, into out (at most MS_FINDINGS_MAX). Returns how
 * many (0 for a run without stall), or -1 (out of memory). */
int ms_findings(const ms_model *m, ms_finding *out);

/* The cache level that explains a cell's stall (0 = L1): the last level when its misses
 * to memory make at least half the stall, else L1. */
int ms_finding_level(const ms_model *m, const ms_counters *c);

/* The row lengths worth trying for finding f (a self-interference finding on a matrix whose
 * row length is known, ms_pad_candidates at the level that explains it), into out; how many. */
size_t ms_finding_pad_candidates(const ms_model *m, const ms_finding *f, uint64_t *out, size_t max);

/* Fill f's advice and, for a change of data layout, its `memspy whatif` command (advice.c),
 * from its kind and the evidence of its cell, explained at cache level `level` (0 = L1). */
void ms_finding_advise(const ms_model *m, const ms_cell *cell, int level, ms_finding *f);

/* Row lengths worth trying for a matrix whose rows, row bytes apart and walked width bytes at
 * a time (0: unknown, taken as a line), map onto the same sets of a cache with line-byte
 * lines and way bytes a way: first the smallest multiple of the piece (width rounded up to a
 * power of two, at least a line) that is an odd number of pieces and more than row (the rows'
 * pieces then fall on different sets, up to way / piece rows), then the next such, then one
 * line more than row. Distinct, into out; returns how many (at most max). */
size_t ms_pad_candidates(uint64_t row, uint64_t width, unsigned line, uint64_t way, uint64_t *out, size_t max);

/* Set m's findings (m->findings, m->nfindings) from its evidence: after analysis, and after
 * loading or editing a run (their sentences name the bins). Returns 0 or -1 (out of memory;
 * m then has none). */
int ms_model_set_findings(ms_model *m);

#endif
