/* MTOOL's result (issue 13): the program's ideal-memory estimate against its measured time,
 * and the measurable objects (mobjects: loops, innermost first, and procedures) with their
 * memory overhead. Format-neutral: analysis/mtool.c fills it, modelio writes it as JSON,
 * report prints it. */
#ifndef MEMSPY_MODEL_MTOOL_H
#define MEMSPY_MODEL_MTOOL_H
#include <stddef.h>
#include <stdint.h>

typedef enum { MS_MOBJ_LOOP = 0, MS_MOBJ_PROCEDURE = 1 } ms_mobject_kind;

#define MS_MOBJ_MAX_WARNINGS 4

/* The warnings a mobject can carry (its `warnings` point at these strings), so that a stored
 * result read back points at them too. */
#define MS_MOBJ_WARN_TOO_SHORT "too short to time"
#define MS_MOBJ_WARN_NO_ESTIMATE "no estimate (its code was not found in the binary)"
#define MS_MOBJ_WARN_RECURSIVE "recursive: its inclusive times are those of its whole call cycle"
#define MS_MOBJ_WARN_HEURISTIC                                                                       \
    "inclusive times assume that callees shared with other callers cost the same per call (MTOOL's " \
    "heuristics: 98% of their calls, or a negligible share)"
#define MS_MOBJ_WARN_LINES                                                                          \
    "not separable by line: its lines hold code outside it (inlined into one call), whose samples " \
    "cannot be told apart from its own"
#define MS_MOBJ_WARN_SHARED \
    "inclusive times approximate: callees shared with other callers (Tot < TDES), their cost split by calls"

/* The static string equal to text among the MS_MOBJ_WARN_* ones, NULL if none is. */
const char *ms_mobject_warning(const char *text);

typedef struct {
    ms_mobject_kind kind;
    char *function, *file; /* file NULL if unknown */
    int line, end_line;
    double estimated_s, measured_s;             /* ideal-memory estimate; CPU time from samples */
    int timable;                                /* enough samples: overhead is meaningful; else it is 0 */
    double overhead;                            /* (measured - estimated) / estimated */
    double extra_cycles_per_memop;              /* (measured - estimated) in cycles per memory operation */
    uint64_t memops, samples;                   /* executed memory operations; samples that fell in it */
    const char *warnings[MS_MOBJ_MAX_WARNINGS]; /* MS_MOBJ_WARN_* strings */
    /* Procedures, when the call edges are known: the times of the procedure and its callees */
    int has_inclusive;
    double inclusive_estimated_s, inclusive_measured_s;
    size_t nwarnings;
} ms_mobject;

/* A chain of one dependent instruction: its latency measured on this core and in the CPU
 * model's scheduling model (whether the model fits the core: analysis/corecheck.c). */
typedef struct {
    char insn[16];
    double core_cycles, model_cycles; /* 0: not measured */
    int corrected;                    /* off, and loop recurrences use the core's latency instead */
} ms_mtool_chain;

#define MS_MTOOL_CHAINS 9
#define MS_MTOOL_CHAIN_TOLERANCE 0.15 /* model and core further apart than this: the report warns */

typedef struct {
    char *cpu_model;
    double clock_hz;                        /* effective clock measured at run time */
    uint64_t period_ns, samples;            /* sampling period; samples taken */
    double predicted_s, measured_s;         /* whole program: ideal estimate; sampled CPU time */
    double system_s;                        /* the timing run's system time (shown apart) */
    double runtime_s;                       /* CPU time inside memspy's counting runtime (shown apart, not measured) */
    double memory_overhead_s;               /* measured - predicted */
    uint64_t total_memops;                  /* executed memory operations */
    double covered_memops;                  /* share of them inside timable mobjects */
    double unexplained;                     /* share of the overhead outside every timable mobject */
    int incomplete;                         /* a run failed: what was gathered is still shown */
    ms_mtool_chain chains[MS_MTOOL_CHAINS]; /* the model checked against the core */
    size_t nchains;
    ms_mobject *mobjects; /* sorted by overhead, largest first; untimable last */
    size_t nmobjects;
} ms_mtool_result;

/* Whether the model is further than MS_MTOOL_CHAIN_TOLERANCE from the core on chain c (both
 * measured); *off: model / core - 1. The one rule of the report and the HTML page. */
int ms_mtool_chain_misfit(const ms_mtool_chain *c, double *off);

/* Free what r owns (mobjects, their strings, cpu_model) and zero it. */
void ms_mtool_result_free(ms_mtool_result *r);

#endif
