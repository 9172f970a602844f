/* A finding: one sentence of a run's headline (which cell holds how much of the stall, and
 * why), as the model keeps it. The analysis (analysis/findings.c) draws them from the
 * evidence; reports and the JSON show them. */
#ifndef MEMSPY_MODEL_FINDING_H
#define MEMSPY_MODEL_FINDING_H
#include <stdint.h>

/* At most this many findings per run. */
#define MS_FINDINGS_MAX 3

/* What a finding says is the reason for the stall. */
typedef enum {
    MS_FINDING_SELF_INTERFERENCE = 0, /* replacement misses evicted by the same data */
    MS_FINDING_CROSS_INTERFERENCE,    /* replacement misses evicted by other data */
    MS_FINDING_REPLACEMENT,           /* replacement misses, evictors unknown (no detail) */
    MS_FINDING_COLD,                  /* first-reference misses */
    MS_FINDING_FALSE_SHARING,         /* invalidations by writes to other words of the lines */
    MS_FINDING_TRUE_SHARING,          /* invalidations by writes to the same words */
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
    char advice[1024];         /* the fix that fits the evidence (analysis/advice.c) */
    char whatif[512];          /* a layout fix: the `memspy whatif` command that predicts it
                                * ("" when the fix is no change of data layout) */
} ms_finding;

/* Name of a kind in the JSON ("self-interference", "false-sharing", ...). */
const char *ms_finding_kind_name(ms_finding_kind k);

#endif
