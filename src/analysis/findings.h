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

/* Fill f's advice and, for a change of data layout, its `memspy whatif` command (advice.c),
 * from its kind and the evidence of its cell, explained at cache level `level` (0 = L1). */
void ms_finding_advise(const ms_model *m, const ms_cell *cell, int level, ms_finding *f);

/* Set m's findings (m->findings, m->nfindings) from its evidence: after analysis, and after
 * loading or editing a run (their sentences name the bins). Returns 0 or -1 (out of memory;
 * m then has none). */
int ms_model_set_findings(ms_model *m);

#endif
