/* A regression gate over the comparison of two runs (memspy diff --fail-if): rules such as
 * "stall>+5%" or "misses@data:double*.Y>+1000" are checked against an ms_diff, so that a CI
 * job fails when a change makes memory behaviour worse. Pure functions over the model.
 *
 * Rule syntax: METRIC[@SCOPE] OP LIMIT[%]
 *   METRIC  stall | misses | refs | cold | capacity | conflict | coherence | invalidations
 *           (misses and the causes are L1's; invalidations are those received)
 *   SCOPE   omitted: the run's totals; data:NAME or code:NAME: every data bin or code segment
 *           whose name or full name is NAME (each checked alone)
 *   OP      '>' fails when the change is above LIMIT (worse), '<' when it is below (e.g. a run
 *           whose references fell by half: refs<-50%)
 *   LIMIT   a signed number of events (cycles for stall), or of percent of the first run's
 *           value with '%'. A bin absent from the first run changes by +inf%. */
#ifndef MEMSPY_MODEL_GATE_H
#define MEMSPY_MODEL_GATE_H
#include <stddef.h>
#include <stdint.h>
#include "model.h"

typedef enum {
    MS_GATE_STALL = 0,
    MS_GATE_MISSES,
    MS_GATE_REFS,
    MS_GATE_COLD,
    MS_GATE_CAPACITY,
    MS_GATE_CONFLICT,
    MS_GATE_COHERENCE,
    MS_GATE_INVALIDATIONS,
    MS_GATE_NMETRICS
} ms_gate_metric;

typedef enum { MS_GATE_TOTAL = 0, MS_GATE_DATA, MS_GATE_CODE } ms_gate_scope;

typedef struct {
    ms_gate_metric metric;
    ms_gate_scope scope;
    char name[256]; /* bin name for data/code scopes */
    int above;      /* 1: '>' (fail above limit), 0: '<' (fail below) */
    int percent;    /* limit in percent of the first run's value */
    double limit;
    char text[320]; /* the rule as written */
} ms_gate_rule;

/* One checked (rule, row): the values of both runs and the change. */
typedef struct {
    size_t rule;     /* index into the rules */
    const char *bin; /* the bin's name, NULL for totals */
    uint64_t before, after;
    double change; /* after - before, or its percent of before (rule's unit) */
    int failed;
} ms_gate_result;

/* The metric's name in rules and reports ("stall", "misses", ...). */
const char *ms_gate_metric_name(ms_gate_metric m);

/* Parse one rule. Returns 0, or -1 with a message naming the problem in err. */
int ms_gate_parse(const char *text, ms_gate_rule *out, char *err, size_t errlen);

/* Check the rules against d: one result per rule and matching row, in rule order (rows in
 * the comparison's order). *out is malloc'ed (caller frees). Returns the number of failed
 * results (>= 0), or -1 with a message in err (a scope that names no bin of either run, out
 * of memory). */
long ms_gate_check(const ms_gate_rule *rules, size_t nrules, const ms_diff *d, ms_gate_result **out, size_t *nout,
                   char *err, size_t errlen);

#endif
