/* Text and JSON forms of the regression gate's verdict (gate_report.h). */
#include "gate_report.h"
#include <math.h>

#include "text_fmt.h"
#include "../util/util.h"

static const char *const scope_names[] = { "total", "data", "code" };

/* The change in the rule's unit: "+8.8%", "+inf% (new)", "-1200", "+1.96M". */
static void fmt_change(char *buf, size_t len, const ms_gate_rule *r, double change)
{
    if (r->percent && isinf(change))
        snprintf(buf, len, "+inf%% (new)");
    else if (r->percent)
        snprintf(buf, len, "%+.1f%%", change);
    else
        snprintf(buf, len, "%c%s", change < 0 ? '-' : '+', ms_fmt_count((uint64_t)fabs(change)).s);
}

int ms_report_gate(FILE *out, const ms_gate_rule *rules, const ms_gate_result *res, size_t nres, long failed)
{
    fprintf(out, "\nGate: %zu check(s), %ld failed\n", nres, failed);
    for (int pass = 1; pass >= 0; pass--) /* failures first */
        for (size_t i = 0; i < nres; i++) {
            if (res[i].failed != pass) continue;
            const ms_gate_rule *r = &rules[res[i].rule];
            char change[48];
            fmt_change(change, sizeof change, r, res[i].change);
            fprintf(out, "  %-4s %s: %s", pass ? "FAIL" : "ok", ms_term(r->text),
                    res[i].bin ? ms_term(res[i].bin) : "total ");
            fprintf(out, "%s %s -> %s (%s)\n", res[i].bin ? "" : ms_gate_metric_name(r->metric),
                    ms_fmt_count(res[i].before).s, ms_fmt_count(res[i].after).s, change);
        }
    return ferror(out) ? -1 : 0;
}

json_t *ms_gate_json(const ms_gate_rule *rules, const ms_gate_result *res, size_t nres, long failed)
{
    json_t *list = json_array();
    if (!list) return NULL;
    for (size_t i = 0; i < nres; i++) {
        const ms_gate_rule *r = &rules[res[i].rule];
        json_t *change = isinf(res[i].change) ? json_null() : json_real(res[i].change);
        json_t *row =
            json_pack("{ss ss ss so sI sI so ss sb}", "rule", r->text, "metric", ms_gate_metric_name(r->metric),
                      "scope", scope_names[r->scope], "bin", res[i].bin ? json_string(res[i].bin) : json_null(),
                      "before", (json_int_t)res[i].before, "after", (json_int_t)res[i].after, "change", change, "unit",
                      r->percent ? "percent" : "count", "failed", res[i].failed);
        if (!row || json_array_append_new(list, row) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return json_pack("{sb sI so}", "passed", failed == 0, "failed", (json_int_t)failed, "results", list);
}
