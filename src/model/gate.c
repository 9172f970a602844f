/* The regression gate of memspy diff (gate.h): parse rules, evaluate them on a comparison. */
#include "gate.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const metric_names[MS_GATE_NMETRICS] = {
    "stall", "misses", "refs", "cold", "capacity", "conflict", "coherence", "invalidations",
};

const char *ms_gate_metric_name(ms_gate_metric m) { return m < MS_GATE_NMETRICS ? metric_names[m] : "?"; }

static int fail(char *err, size_t errlen, const char *rule, const char *why)
{
    snprintf(err, errlen, "rule '%s': %s (form: METRIC[@data:NAME|@code:NAME]>+N[%%], e.g. 'stall>+5%%')", rule, why);
    return -1;
}

int ms_gate_parse(const char *text, ms_gate_rule *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (strlen(text) >= sizeof out->text) return fail(err, errlen, text, "too long");
    strcpy(out->text, text);
    /* The operator is the last '>' or '<': bin names may contain either (templates). */
    const char *op = NULL;
    for (const char *p = text; *p; p++)
        if (*p == '>' || *p == '<') op = p;
    if (!op) return fail(err, errlen, text, "no '>' or '<'");
    out->above = *op == '>';
    const char *at = memchr(text, '@', (size_t)(op - text));
    size_t mlen = (size_t)((at ? at : op) - text);
    int found = 0;
    for (int m = 0; m < MS_GATE_NMETRICS; m++)
        if (strlen(metric_names[m]) == mlen && strncmp(text, metric_names[m], mlen) == 0) {
            out->metric = (ms_gate_metric)m;
            found = 1;
        }
    if (!found)
        return fail(err, errlen, text,
                    "unknown metric (stall, misses, refs, cold, capacity, conflict, coherence, invalidations)");
    if (at) {
        const char *scope = at + 1;
        size_t nlen;
        if (strncmp(scope, "data:", 5) == 0)
            out->scope = MS_GATE_DATA;
        else if (strncmp(scope, "code:", 5) == 0)
            out->scope = MS_GATE_CODE;
        else
            return fail(err, errlen, text, "the scope after '@' is data:NAME or code:NAME");
        nlen = (size_t)(op - scope - 5);
        if (nlen == 0) return fail(err, errlen, text, "empty bin name");
        memcpy(out->name, scope + 5, nlen);
        out->name[nlen] = '\0';
    }
    const char *num = op + 1;
    char *end;
    out->limit = strtod(num, &end);
    if (end == num || !isfinite(out->limit)) return fail(err, errlen, text, "the limit is not a number");
    if (*end == '%') {
        out->percent = 1;
        end++;
    }
    if (*end) return fail(err, errlen, text, "unexpected text after the limit");
    return 0;
}

static uint64_t metric_value(ms_gate_metric m, const ms_counters *c)
{
    switch (m) {
    case MS_GATE_STALL: return ms_counters_stall(c);
    case MS_GATE_MISSES: return ms_counters_misses(c, 0);
    case MS_GATE_REFS: return ms_counters_refs(c);
    case MS_GATE_COLD: return c->level[0].cause[MS_CAUSE_COLD];
    case MS_GATE_CAPACITY: return c->level[0].cause[MS_CAUSE_CAPACITY];
    case MS_GATE_CONFLICT: return c->level[0].cause[MS_CAUSE_CONFLICT];
    case MS_GATE_COHERENCE: return c->level[0].cause[MS_CAUSE_INVAL];
    case MS_GATE_INVALIDATIONS: return c->inval.received;
    default: return 0;
    }
}

typedef struct {
    ms_gate_result *v;
    size_t n, cap;
} result_list;

static int add_result(result_list *l, const ms_gate_rule *r, size_t ri, const char *bin, const ms_counters c[2])
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        ms_gate_result *v = realloc(l->v, cap * sizeof *v);
        if (!v) return -1;
        l->v = v;
        l->cap = cap;
    }
    ms_gate_result *g = &l->v[l->n++];
    g->rule = ri;
    g->bin = bin;
    g->before = metric_value(r->metric, &c[0]);
    g->after = metric_value(r->metric, &c[1]);
    double delta = (double)g->after - (double)g->before;
    if (!r->percent)
        g->change = delta;
    else if (g->before)
        g->change = 100.0 * delta / (double)g->before;
    else
        g->change = delta > 0 ? INFINITY : 0.0;
    g->failed = r->above ? g->change > r->limit : g->change < r->limit;
    return 0;
}

long ms_gate_check(const ms_gate_rule *rules, size_t nrules, const ms_diff *d, ms_gate_result **out, size_t *nout,
                   char *err, size_t errlen)
{
    result_list l = { 0 };
    for (size_t ri = 0; ri < nrules; ri++) {
        const ms_gate_rule *r = &rules[ri];
        if (r->scope == MS_GATE_TOTAL) {
            if (add_result(&l, r, ri, NULL, d->totals) < 0) goto oom;
            continue;
        }
        const ms_diff_row *rows = r->scope == MS_GATE_DATA ? d->data : d->code;
        size_t nrows = r->scope == MS_GATE_DATA ? d->ndata : d->ncode, matched = 0;
        for (size_t i = 0; i < nrows; i++) {
            const char *name = r->scope == MS_GATE_DATA ? rows[i].data_name : rows[i].code_name;
            const char *full = r->scope == MS_GATE_DATA ? rows[i].data_full_name : NULL;
            if ((name && strcmp(name, r->name) == 0) || (full && strcmp(full, r->name) == 0)) {
                if (add_result(&l, r, ri, name, rows[i].c) < 0) goto oom;
                matched++;
            }
        }
        if (!matched) {
            snprintf(err, errlen, "rule '%s': no %s named '%s' in either run", r->text,
                     r->scope == MS_GATE_DATA ? "data bin" : "code segment", r->name);
            free(l.v);
            return -1;
        }
    }
    long failed = 0;
    for (size_t i = 0; i < l.n; i++) failed += l.v[i].failed;
    *out = l.v;
    *nout = l.n;
    return failed;
oom:
    free(l.v);
    snprintf(err, errlen, "out of memory");
    return -1;
}
