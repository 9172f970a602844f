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

/* What a finding says is the reason for the stall. */
typedef enum {
    MS_FINDING_SELF_INTERFERENCE = 0,  /* replacement misses evicted by the same data */
    MS_FINDING_CROSS_INTERFERENCE,     /* replacement misses evicted by other data */
    MS_FINDING_REPLACEMENT,            /* replacement misses, evictors unknown (no detail) */
    MS_FINDING_COLD,                   /* first-reference misses */
    MS_FINDING_FALSE_SHARING,          /* invalidations by writes to other words of the lines */
    MS_FINDING_TRUE_SHARING,           /* invalidations by writes to the same words */
    MS_FINDING_NKINDS
} ms_finding_kind;

typedef struct {
    ms_finding_kind kind;
    double share;              /* of the run's memory stall, 0..1 */
    uint32_t code, data;       /* the cell's bins */
    int cause;                 /* the dominant L1 miss cause (MS_CAUSE_*) */
    int64_t evictor;           /* interference: the evicting data bin; -1 otherwise */
    int first_line, last_line; /* source lines of the cell that carry its stall, 0 if unknown */
    uint32_t file;             /* their file (index into model->files), if first_line */
    double evidence;           /* the share of the misses (or invalidations) that the finding
                                * explains, 0..1 */
    char text[512];            /* the sentence */
} ms_finding;

/* Name of a kind in the JSON ("self-interference", "false-sharing", ...). */
const char *ms_finding_kind_name(ms_finding_kind k);

/* Cells holding at least this share of the stall are findings (at most MS_FINDINGS_MAX), and
 * always the top cell when it holds at least 1%. */
#define MS_FINDINGS_MIN_SHARE 0.05
#define MS_FINDINGS_MAX 3

/* The findings of m, largest share first, into out (at most MS_FINDINGS_MAX). Returns how
 * many (0 for a run without stall), or -1 (out of memory). */
int ms_findings(const ms_model *m, ms_finding *out);

#endif
