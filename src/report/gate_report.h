/* The regression gate's verdict (model/gate.h) as text and as JSON, for memspy diff --fail-if. */
#ifndef MEMSPY_REPORT_GATE_REPORT_H
#define MEMSPY_REPORT_GATE_REPORT_H
#include <stdio.h>
#include <jansson.h>
#include "../model/gate.h"

/* "Gate: N rules checked, K failed" and one line per checked row, failures first marked FAIL.
 * Returns 0 or -1 on a write error. */
int ms_report_gate(FILE *out, const ms_gate_rule *rules, const ms_gate_result *res, size_t nres, long failed);

/* The verdict as a JSON object {"passed", "failed", "results": [{"rule", "metric", "scope",
 * "bin", "before", "after", "change", "unit", "failed"}]} (caller decrefs), NULL if out of memory. */
json_t *ms_gate_json(const ms_gate_rule *rules, const ms_gate_result *res, size_t nres, long failed);

#endif
