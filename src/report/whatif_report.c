/* `memspy whatif`'s report: the recorded run against the prediction for the changed data
 * layout, in total and for each changed data bin, then the predicted findings. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "text_fmt.h"

/* The counters of data bin d summed over its cells (every code bin). */
static ms_counters data_counters(const ms_model *m, size_t d)
{
    ms_counters c;
    memset(&c, 0, sizeof c);
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].data == d) ms_counters_add(&c, &m->cells[i].c);
    return c;
}

static uint64_t l1_misses(const ms_counters *c) { return ms_counters_misses(c, 0); }
static uint64_t invalidations(const ms_counters *c) { return c->inval.received; }
static uint64_t false_sharing(const ms_counters *c) { return c->inval.false_in + c->inval.false_across; }
static uint64_t conflicts(const ms_counters *c) { return c->level[0].cause[MS_CAUSE_CONFLICT]; }

typedef struct {
    const char *label;
    uint64_t (*get)(const ms_counters *c);
    int mp; /* multiprocessor runs only */
} measure;

static const measure MEASURES[] = {
    { "Memory stall (cycles)", ms_counters_stall, 0 },
    { "Misses (L1)", l1_misses, 0 },
    { "  -conflict", conflicts, 0 },
    { "Invalidations received", invalidations, 1 },
    { "  -false sharing", false_sharing, 1 },
};

/* One table row: before, after and the change. */
static void row(FILE *out, const char *label, uint64_t a, uint64_t b)
{
    char change[32] = "=";
    if (a != b) {
        if (a)
            snprintf(change, sizeof change, "%+.1f%%", 100.0 * ((double)b - (double)a) / (double)a);
        else
            snprintf(change, sizeof change, "new");
    }
    fprintf(out, "  %-26s %12s %12s %10s\n", label, ms_fmt_count(a).s, ms_fmt_count(b).s, change);
}

static void table(FILE *out, const ms_counters *a, const ms_counters *b, int mp)
{
    fprintf(out, "  %-26s %12s %12s %10s\n", "", "recorded", "predicted", "change");
    for (size_t i = 0; i < sizeof MEASURES / sizeof *MEASURES; i++)
        if (mp || !MEASURES[i].mp) row(out, MEASURES[i].label, MEASURES[i].get(a), MEASURES[i].get(b));
}

/* The data bin named name in m, or -1. */
static long find_data(const ms_model *m, const char *name)
{
    for (size_t i = 0; i < m->ndata; i++)
        if (m->data[i].name && strcmp(m->data[i].name, name) == 0) return (long)i;
    return -1;
}

int ms_report_whatif(FILE *out, const ms_model *before, const ms_model *after, const char *changes,
                     const char *const *names, const char *const *layouts, size_t n)
{
    int mp = before->nprocs > 1 || after->nprocs > 1;
    fprintf(out, "WHAT IF: %s\n", changes);
    for (size_t i = 0; i < n; i++) ms_fmt_wrapped(out, "  ", layouts[i], 100);
    fputs("\nTOTAL\n", out);
    table(out, &before->totals, &after->totals, mp);
    for (size_t i = 0; i < n; i++) {
        if (!names[i]) continue; /* a line of its own, no bin */
        long a = find_data(before, names[i]), b = find_data(after, names[i]);
        if (a < 0 || b < 0) continue;
        ms_counters ca = data_counters(before, (size_t)a), cb = data_counters(after, (size_t)b);
        fputc('\n', out);
        ms_fmt_name(out, "DATA ", names[i], ms_fmt_width(out));
        table(out, &ca, &cb, mp);
    }
    fputc('\n', out);
    if (after->nfindings) {
        fputs("PREDICTED ", out);
        ms_fmt_findings(out, after, NULL, 0, NULL, 0);
    }
    return ferror(out) ? -1 : 0;
}
