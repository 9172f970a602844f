/* MemSpy's detailed display (Figure 3 of the paper, the DisplayAll command) for any selection
 * of code segments x data bins: shares of the totals, references, misses and their causes per
 * level, stall time and the data bins whose references evicted the selection's lines. */
#include <stdlib.h>

#include "report.h"
#include "text_fmt.h"
#include "../util/util.h"

#define TOP_EVICTORS 8
#define MAX_NAMES_IN_TITLE 4

/* "a, b, c and 2 more", or `all` when the selection is empty. */
static void print_names(FILE *out, const ms_model *m, const uint32_t *idx, size_t n, int code, const char *all)
{
    if (n == 0) {
        fputs(all, out);
        return;
    }
    for (size_t i = 0; i < n && i < MAX_NAMES_IN_TITLE; i++) {
        const char *name = "?";
        if (code && idx[i] < m->ncode)
            name = m->code[idx[i]].name;
        else if (!code && idx[i] < m->ndata)
            name = m->data[idx[i]].name;
        fprintf(out, "%s%s", i ? ", " : "", name ? ms_term(name) : "?");
    }
    if (n > MAX_NAMES_IN_TITLE) fprintf(out, " and %zu more", n - MAX_NAMES_IN_TITLE);
}

static void print_count_pct(FILE *out, const char *indent, const char *label, uint64_t v, uint64_t whole)
{
    fprintf(out, "%s%s: %s (%.1f%%)\n", indent, label, ms_fmt_count(v).s, ms_pct(v, whole));
}

/* Miss causes of one level, as percentages of that level's misses. */
static void print_causes(FILE *out, const ms_level_counters *l, const char *indent)
{
    uint64_t misses = l->read_misses + l->write_misses;
    uint64_t repl = l->cause[MS_CAUSE_CAPACITY] + l->cause[MS_CAUSE_CONFLICT];
    char sub[32];
    snprintf(sub, sizeof sub, "%s  -", indent);
    print_count_pct(out, indent, "1st Ref Miss", l->cause[MS_CAUSE_COLD], misses);
    print_count_pct(out, indent, "Inval Miss", l->cause[MS_CAUSE_INVAL], misses);
    print_count_pct(out, indent, "Repl Miss", repl, misses);
    print_count_pct(out, sub, "Capacity", l->cause[MS_CAUSE_CAPACITY], misses);
    print_count_pct(out, sub, "Conflict", l->cause[MS_CAUSE_CONFLICT], misses);
}

static void print_references_and_misses(FILE *out, const ms_counters *c)
{
    uint64_t refs = ms_counters_refs(c), misses = ms_counters_misses(c, 0);
    fprintf(out, "REFERENCES: %s --\n", ms_fmt_count(refs).s);
    fprintf(out, "  Reads: %s (%.1f%%)  Writes: %s (%.1f%%)\n", ms_fmt_count(c->reads).s, ms_pct(c->reads, refs),
            ms_fmt_count(c->writes).s, ms_pct(c->writes, refs));
    fprintf(out, "MISSES: %s --\n", ms_fmt_count(misses).s);
    print_count_pct(out, "  ", "Read misses", c->level[0].read_misses, misses);
    print_count_pct(out, "  ", "Write misses", c->level[0].write_misses, misses);
    print_causes(out, &c->level[0], "");
}

static void print_stall(FILE *out, const ms_counters *c)
{
    fputs("Memory Stall Time (Cycles):\n", out);
    fprintf(out, "  Total = %s, Avg per reference = %.1f\n", ms_fmt_count(ms_counters_stall(c)).s,
            ms_ratio(ms_counters_stall(c), ms_counters_refs(c)));
    fprintf(out, "  Memory Read Stall Time = %s, Avg per read = %.1f\n", ms_fmt_count(c->stall_read).s,
            ms_ratio(c->stall_read, c->reads));
    fprintf(out, "  Memory Write Stall Time = %s, Avg per write = %.1f\n", ms_fmt_count(c->stall_write).s,
            ms_ratio(c->stall_write, c->writes));
}

static void print_deeper_levels(FILE *out, const ms_model *m, const ms_counters *c)
{
    for (int k = 1; k < m->config.nlevels && k < MS_MAX_LEVELS; k++) {
        uint64_t lm = ms_counters_misses(c, k);
        fprintf(out, "L%d MISSES: %s (local miss rate %.1f%% of L%d misses) --\n", k + 1, ms_fmt_count(lm).s,
                ms_pct(lm, ms_counters_misses(c, k - 1)), k);
        print_count_pct(out, "  ", "Read misses", c->level[k].read_misses, lm);
        print_count_pct(out, "  ", "Write misses", c->level[k].write_misses, lm);
        print_causes(out, &c->level[k], "  ");
    }
}

/* The data bins whose references evicted the selection's lines from L1, as shares of the
 * replacement misses with a known evictor (the merged list is sorted, largest first). */
static void print_replacement_causes(FILE *out, const ms_model *m, const ms_selection_sum *s)
{
    uint64_t known = 0;
    size_t nl1 = 0;
    for (size_t i = 0; i < s->nevicted_by; i++) {
        if (s->evicted_by[i].level != 0) continue;
        known += s->evicted_by[i].count;
        nl1++;
    }
    fputs("Causes of Replacements:\n", out);
    if (known == 0) {
        fputs("  (no replacement miss with a known evictor)\n", out);
        return;
    }
    uint64_t repl = ms_counters_replacements(&s->c, 0), others = 0;
    size_t shown = 0;
    for (size_t i = 0; i < s->nevicted_by; i++) {
        const ms_evictor *e = &s->evicted_by[i];
        if (e->level != 0) continue;
        if (shown == TOP_EVICTORS) {
            others += e->count;
            continue;
        }
        const char *name = e->data < m->ndata && m->data[e->data].name ? m->data[e->data].name : "?";
        fprintf(out, "  bin %s: %.1f%%\n", ms_term(name), ms_pct(e->count, known));
        shown++;
    }
    if (others) fprintf(out, "  others (%zu bins): %.1f%%\n", nl1 - shown, ms_pct(others, known));
    if (known != repl)
        fprintf(out, "  (%s of %s L1 replacement misses have a known evictor)\n", ms_fmt_count(known).s,
                ms_fmt_count(repl).s);
}

/* Received invalidations by class, then the (code, data, processor) whose writes sent them. */
static void print_invalidations(FILE *out, const ms_model *m, const ms_selection_sum *s)
{
    const ms_inval_counters *v = &s->c.inval;
    fprintf(out, "INVALIDATIONS RECEIVED: %s (sent: %s) --\n", ms_fmt_count(v->received).s, ms_fmt_count(v->sent).s);
    ms_fmt_invalidations(out, v, "  ");
    fputs("Causes of Invalidations:\n", out);
    uint64_t known = 0, others = 0;
    for (size_t i = 0; i < s->ninval_by; i++) known += s->inval_by[i].count;
    if (known == 0) {
        fputs("  (no invalidation with a known writer)\n", out);
        return;
    }
    size_t shown = 0;
    for (size_t i = 0; i < s->ninval_by; i++) {
        const ms_invalidator *e = &s->inval_by[i];
        if (shown == TOP_EVICTORS) {
            others += e->count;
            continue;
        }
        const char *code = e->code < m->ncode && m->code[e->code].name ? m->code[e->code].name : "?";
        const char *data = e->data < m->ndata && m->data[e->data].name ? m->data[e->data].name : "?";
        fprintf(out, "  %s writing bin %s on cpu %u: %s (%.1f%%)\n", ms_term(code), ms_term(data), e->cpu,
                ms_fmt_count(e->count).s, ms_pct(e->count, known));
        shown++;
    }
    if (others)
        fprintf(out, "  others (%zu writers): %s (%.1f%%)\n", s->ninval_by - shown, ms_fmt_count(others).s,
                ms_pct(others, known));
}

/* Carnival's access patterns: the share of the selection's communication misses each explains. */
static void print_patterns(FILE *out, const ms_counters *c)
{
    uint64_t comm = ms_counters_communication(c);
    fprintf(out, "Access Patterns (of %s communication misses):\n", ms_fmt_count(comm).s);
    if (comm == 0) {
        fputs("  (no communication miss)\n", out);
        return;
    }
    for (int p = 0; p < MS_NPATTERNS; p++)
        if (c->pattern[p])
            fprintf(out, "  %s: %s (%.1f%%)\n", ms_pattern_name(p), ms_fmt_count(c->pattern[p]).s,
                    ms_pct(c->pattern[p], comm));
}

/* When the selection is memory of no known object (`--data other`: bins of kind OTHER only),
 * its references, misses and stall by mapping (the bins other:LABEL), most stall
 * first. Returns 0 or -1 (out of memory). */
static int print_by_mapping(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas,
                            size_t ndatas, uint64_t total_stall)
{
    if (ndatas == 0) return 0;
    for (size_t i = 0; i < ndatas; i++)
        if (datas[i] >= m->ndata || m->data[datas[i]].kind != MS_BIN_OTHER) return 0;
    ms_counters *sums = calloc(ndatas, sizeof *sums);
    size_t *order = calloc(ndatas, sizeof *order);
    int rc = sums && order ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < ndatas; i++) {
        ms_selection_sum one;
        rc = ms_model_sum(m, codes, ncodes, &datas[i], 1, &one);
        if (rc == 0) {
            sums[i] = one.c;
            ms_selection_sum_free(&one);
        }
        order[i] = i;
    }
    /* insertion sort by stall, descending (a handful of mappings) */
    for (size_t i = 1; rc == 0 && i < ndatas; i++)
        for (size_t j = i; j > 0 && ms_counters_stall(&sums[order[j]]) > ms_counters_stall(&sums[order[j - 1]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    if (rc == 0) fputs("By Mapping (memory of no known object, from /proc/self/maps):\n", out);
    for (size_t k = 0; rc == 0 && k < ndatas; k++) {
        const ms_data_bin *d = &m->data[datas[order[k]]];
        const ms_counters *c = &sums[order[k]];
        if (ms_counters_refs(c) == 0) continue;
        fprintf(out, "  %s: %s refs, %s misses, stall %s (%.1f%% of total)\n", d->full_name ? d->full_name : d->name,
                ms_fmt_count(ms_counters_refs(c)).s, ms_fmt_count(ms_counters_misses(c, 0)).s,
                ms_fmt_count(ms_counters_stall(c)).s, ms_pct(ms_counters_stall(c), total_stall));
    }
    free(sums);
    free(order);
    return rc;
}

int ms_report_detail(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas,
                     size_t ndatas)
{
    ms_selection_sum s;
    if (ms_model_sum(m, codes, ncodes, datas, ndatas, &s) < 0) return -1;
    const ms_counters *c = &s.c, *t = &m->totals;
    uint64_t refs = ms_counters_refs(c), misses = ms_counters_misses(c, 0), stall = ms_counters_stall(c);

    fputs("DETAILED OUTPUT: ", out);
    print_names(out, m, datas, ndatas, 0, "all data");
    fputs(" in ", out);
    print_names(out, m, codes, ncodes, 1, "all code");
    fputc('\n', out);
    ms_fmt_findings(out, m, codes, ncodes, datas, ndatas);
    if (m->incomplete) fputs("*** INCOMPLETE: the run did not finish normally ***\n", out);
    fprintf(out, "Memory Stall Time in bin: %s cycles\n", ms_fmt_count(stall).s);
    fprintf(out, "Percentage of Total Memory Stall Time: %.1f%%\n", ms_pct(stall, ms_counters_stall(t)));
    fprintf(out, "Percentage of Total Misses: %.1f%%\n", ms_pct(misses, ms_counters_misses(t, 0)));
    fprintf(out, "Miss Rate: %.1f%%\n", ms_pct(misses, refs));
    fprintf(out, "Percentage of Total Refs: %.1f%%\n", ms_pct(refs, ms_counters_refs(t)));
    if (c->l1_fetched_bytes) /* recorded runs (0 in raw profiles of in-process simulation) */
        fprintf(out, "L1 Utilisation: %.1f%% (%s of %s bytes fetched into L1 used before eviction)\n",
                100.0 * ms_counters_utilisation(c), ms_fmt_count(c->l1_used_bytes).s,
                ms_fmt_count(c->l1_fetched_bytes).s);
    print_references_and_misses(out, c);
    print_stall(out, c);
    print_deeper_levels(out, m, c);
    print_replacement_causes(out, m, &s);
    if (m->nprocs > 1) {
        print_invalidations(out, m, &s);
        print_patterns(out, c);
    }
    int rc = print_by_mapping(out, m, codes, ncodes, datas, ndatas, ms_counters_stall(t));
    ms_selection_sum_free(&s);
    return rc < 0 || ferror(out) ? -1 : 0;
}
