/* The comparison of two runs as text and JSON (see diff_report.h). */
#include <stdlib.h>
#include <string.h>

#include "diff_report.h"
#include "../modelio/json_names.h"
#include "text_fmt.h"
#include "../util/strbuf.h"
#include "../util/util.h"

#define DEFAULT_TOP 10
#define MAX_NAME_WIDTH 36 /* longer names get lines of their own (ms_fmt_name) */
#define COUNT_WIDTH 9

static const char *const PRESENCE_NAMES[] = { "both", "appeared", "vanished" };

/* "+1.25M", "-300", "0": a change in MemSpy's count format. */
static ms_num fmt_change(int64_t v)
{
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    ms_num n = ms_fmt_count(mag);
    if (v != 0) { /* a count is at most 20 digits: the sign fits */
        memmove(n.s + 1, n.s, strlen(n.s) + 1);
        n.s[0] = v < 0 ? '-' : '+';
    }
    return n;
}

/* The change as a percentage of the first run's value, or "new" when that was 0. */
static ms_num fmt_change_pct(int64_t change, uint64_t before)
{
    ms_num n;
    if (before == 0)
        snprintf(n.s, sizeof n.s, "%s", change ? "new" : "");
    else
        snprintf(n.s, sizeof n.s, "%+.1f%%", 100.0 * (double)change / (double)before);
    return n;
}

static int64_t change_of(uint64_t before, uint64_t after) { return (int64_t)after - (int64_t)before; }

static void print_total_line(FILE *out, const char *label, uint64_t a, uint64_t b)
{
    int64_t ch = change_of(a, b);
    fprintf(out, "%-26s %*s %*s %*s %s\n", label, COUNT_WIDTH, ms_fmt_count(a).s, COUNT_WIDTH, ms_fmt_count(b).s,
            COUNT_WIDTH, fmt_change(ch).s, fmt_change_pct(ch, a).s);
}

static void print_totals(FILE *out, const ms_diff *d, const ms_diff_labels *labels)
{
    const ms_counters *a = &d->totals[0], *b = &d->totals[1];
    fputs("COMPARISON OF TWO RUNS\n", out);
    for (int r = 0; r < 2; r++) {
        fprintf(out, "  %c: %s\n", "AB"[r], ms_term(labels->label[r]));
        if (labels->config[r]) fprintf(out, "     %s", ms_term(labels->config[r]));
        if (labels->origin[r]) fprintf(out, " (memspy %s)", ms_term(labels->origin[r]));
        if (labels->config[r] || labels->origin[r]) fputc('\n', out);
    }
    if (labels->config[0] && labels->config[1] && strcmp(labels->config[0], labels->config[1]) != 0)
        fputs("Warning: the two runs simulated different hierarchies; differences below mix the program's\n"
              "change with the caches'.\n",
              out);
    fputc('\n', out);
    fprintf(out, "%-26s %*s %*s %*s\n", "", COUNT_WIDTH, "A", COUNT_WIDTH, "B", COUNT_WIDTH, "Change");
    print_total_line(out, "Total Memory Stall Time", ms_counters_stall(a), ms_counters_stall(b));
    print_total_line(out, "Total References", ms_counters_refs(a), ms_counters_refs(b));
    print_total_line(out, "Total Misses (L1)", ms_counters_misses(a, 0), ms_counters_misses(b, 0));
    /* Multithreaded runs: coherence misses and invalidations, where either run has them. */
    uint64_t coh_a = ms_counters_l1_coherence(a), coh_b = ms_counters_l1_coherence(b);
    if (coh_a || coh_b || a->inval.received || b->inval.received) {
        print_total_line(out, "Coherence Misses (L1)", coh_a, coh_b);
        print_total_line(out, "Invalidations Received", a->inval.received, b->inval.received);
    }
    double ra = ms_pct(ms_counters_misses(a, 0), ms_counters_refs(a));
    double rb = ms_pct(ms_counters_misses(b, 0), ms_counters_refs(b));
    fprintf(out, "%-26s %*.1f%% %*.1f%% %+*.1f points\n", "Overall Miss Rate (L1)", COUNT_WIDTH - 1, ra,
            COUNT_WIDTH - 1, rb, COUNT_WIDTH, rb - ra);
}

static size_t shown_rows(size_t n, int top) { return n < (size_t)top ? n : (size_t)top; }

static int name_width(const ms_diff_row *rows, size_t n, int code, const char *heading)
{
    size_t w = strlen(heading);
    for (size_t i = 0; i < n; i++) {
        const char *s = code ? rows[i].code_name : rows[i].data_name;
        size_t len = s ? strlen(s) : 1;
        if (len > w) w = len;
    }
    return (int)(w > MAX_NAME_WIDTH ? MAX_NAME_WIDTH : w);
}

static const char *verdict(const ms_diff_row *r)
{
    if (r->presence == MS_DIFF_APPEARED) return r->stall_change ? "worse (new)" : "new";
    if (r->presence == MS_DIFF_VANISHED) return r->stall_change ? "better (gone)" : "gone";
    return r->stall_change < 0 ? "better" : r->stall_change > 0 ? "worse" : "";
}

static void print_causes(FILE *out, const ms_level_counters *l)
{
    for (int k = 0; k < MS_NCAUSES; k++)
        fprintf(out, "%s%s %s", k ? ", " : "", ms_json_cause_names[k], ms_fmt_count(l->cause[k]).s);
}

/* One table of rows: names (code and/or data), refs, L1 misses and stall of both runs, the
 * change, and under each row the L1 miss causes of both runs. */
static void print_rows(FILE *out, const char *title, const ms_diff_row *rows, size_t n, int top, int with_code,
                       int with_data)
{
    size_t shown = shown_rows(n, top);
    int cw = with_code ? name_width(rows, shown, 1, "Code Segment") : 0;
    int dw = with_data ? name_width(rows, shown, 0, "Data Bin") : 0;
    fprintf(out, "\n%s, by change in memory stall time (%zu of %zu):\n", title, shown, n);
    if (with_code) fprintf(out, "  %-*s", cw, "Code Segment");
    if (with_data) fprintf(out, "  %-*s", dw, "Data Bin");
    fprintf(out, " %*s %*s %*s %*s %*s %*s %*s\n", COUNT_WIDTH, "Refs A", COUNT_WIDTH, "Refs B", COUNT_WIDTH,
            "Misses A", COUNT_WIDTH, "Misses B", COUNT_WIDTH, "Stall A", COUNT_WIDTH, "Stall B", COUNT_WIDTH, "Change");
    for (size_t i = 0; i < shown; i++) {
        const ms_diff_row *r = &rows[i];
        const ms_counters *a = &r->c[0], *b = &r->c[1];
        const char *cn = r->code_name ? ms_term(r->code_name) : "?", *dn = r->data_name ? ms_term(r->data_name) : "?";
        if ((with_code && strlen(cn) > (size_t)cw) || (with_data && strlen(dn) > (size_t)dw)) {
            /* long names on lines of their own (wrapped, never cut); the numbers below them */
            char *both =
                ms_strprintf("%s%s%s", with_code ? cn : "", with_code && with_data ? "  " : "", with_data ? dn : "");
            ms_fmt_name(out, "  ", both ? both : cn, ms_fmt_width(out));
            free(both);
            cn = dn = "";
        }
        if (with_code) fprintf(out, "  %-*s", cw, cn);
        if (with_data) fprintf(out, "  %-*s", dw, dn);
        fprintf(out, " %*s %*s %*s %*s %*s %*s %*s %7s  %s\n", COUNT_WIDTH, ms_fmt_count(ms_counters_refs(a)).s,
                COUNT_WIDTH, ms_fmt_count(ms_counters_refs(b)).s, COUNT_WIDTH, ms_fmt_count(ms_counters_misses(a, 0)).s,
                COUNT_WIDTH, ms_fmt_count(ms_counters_misses(b, 0)).s, COUNT_WIDTH,
                ms_fmt_count(ms_counters_stall(a)).s, COUNT_WIDTH, ms_fmt_count(ms_counters_stall(b)).s, COUNT_WIDTH,
                fmt_change(r->stall_change).s, fmt_change_pct(r->stall_change, ms_counters_stall(a)).s, verdict(r));
        fputs("      L1 miss causes A: ", out);
        print_causes(out, &a->level[0]);
        fputs("\n                     B: ", out);
        print_causes(out, &b->level[0]);
        fputc('\n', out);
    }
}

/* "Better: 3 cells (-1.20M cycles); worse: 1 cell (+20 cycles)". */
static void print_balance(FILE *out, const ms_diff_row *rows, size_t n)
{
    size_t nbetter = 0, nworse = 0;
    uint64_t gained = 0, lost = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].stall_change < 0) {
            nbetter++;
            gained += (uint64_t)0 - (uint64_t)rows[i].stall_change;
        } else if (rows[i].stall_change > 0) {
            nworse++;
            lost += (uint64_t)rows[i].stall_change;
        }
    }
    fprintf(out, "\nBetter: %zu cell%s (-%s stall cycles); worse: %zu cell%s (+%s stall cycles)\n", nbetter,
            nbetter == 1 ? "" : "s", ms_fmt_count(gained).s, nworse, nworse == 1 ? "" : "s", ms_fmt_count(lost).s);
}

/* Bins present in only one run, with their stall there. */
static void print_presence(FILE *out, const ms_diff_row *rows, size_t n, int code, ms_diff_presence which)
{
    const char *what = code ? "code segments" : "data bins";
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].presence == which) count++;
    if (count == 0) return;
    fprintf(out, "\n%s %s (only in %s):\n", which == MS_DIFF_APPEARED ? "Appeared" : "Vanished", what,
            which == MS_DIFF_APPEARED ? "B" : "A");
    int run = which == MS_DIFF_APPEARED ? 1 : 0;
    for (size_t i = 0; i < n; i++) {
        const ms_diff_row *r = &rows[i];
        if (r->presence != which) continue;
        const char *name = code ? r->code_name : (r->data_full_name ? r->data_full_name : r->data_name);
        fprintf(out, "  %s: %s stall cycles, %s refs\n", name ? ms_term(name) : "?",
                ms_fmt_count(ms_counters_stall(&r->c[run])).s, ms_fmt_count(ms_counters_refs(&r->c[run])).s);
    }
}

int ms_report_diff(FILE *out, const ms_diff *d, const ms_diff_labels *labels, int top)
{
    if (top <= 0) top = DEFAULT_TOP;
    print_totals(out, d, labels);
    print_balance(out, d->cells, d->ncells);
    print_rows(out, "Cells", d->cells, d->ncells, top, 1, 1);
    print_rows(out, "Data bins", d->data, d->ndata, top, 0, 1);
    print_rows(out, "Code segments", d->code, d->ncode, top, 1, 0);
    for (int which = MS_DIFF_APPEARED; which <= MS_DIFF_VANISHED; which++) {
        print_presence(out, d->data, d->ndata, 0, (ms_diff_presence)which);
        print_presence(out, d->code, d->ncode, 1, (ms_diff_presence)which);
    }
    return ferror(out) ? -1 : 0;
}

/* ---- JSON ---- */

static json_t *side_json(const ms_counters *c)
{
    const ms_level_counters *l1 = &c->level[0];
    json_t *causes = json_object();
    if (!causes) return NULL;
    for (int k = 0; k < MS_NCAUSES; k++)
        if (json_object_set_new(causes, ms_json_cause_names[k], json_integer((json_int_t)l1->cause[k])) < 0) {
            json_decref(causes);
            return NULL;
        }
    return json_pack("{sI sI sI sI sI sI so sI sI sI}", "refs", (json_int_t)ms_counters_refs(c), "reads",
                     (json_int_t)c->reads, "writes", (json_int_t)c->writes, "misses",
                     (json_int_t)ms_counters_misses(c, 0), "read_misses", (json_int_t)l1->read_misses, "write_misses",
                     (json_int_t)l1->write_misses, "causes", causes, "stall_cycles", (json_int_t)ms_counters_stall(c),
                     "stall_read", (json_int_t)c->stall_read, "stall_write", (json_int_t)c->stall_write);
}

/* A side of a row, or null where the row's bin is absent from that run. */
static json_t *row_side_json(const ms_diff_row *r, int run)
{
    int absent = (run == 0 && r->presence == MS_DIFF_APPEARED) || (run == 1 && r->presence == MS_DIFF_VANISHED);
    return absent ? json_null() : side_json(&r->c[run]);
}

static json_t *row_json(const ms_diff_row *r, int with_code, int with_data)
{
    json_t *o = json_pack("{ss so so sI}", "presence", PRESENCE_NAMES[r->presence], "a", row_side_json(r, 0), "b",
                          row_side_json(r, 1), "stall_change", (json_int_t)r->stall_change);
    if (!o) return NULL;
    int failed = 0;
    if (with_code)
        failed |= json_object_set_new(o, "code", json_pack("{ss? ss?}", "name", r->code_name, "file", r->code_file));
    if (with_data)
        failed |= json_object_set_new(o, "data",
                                      json_pack("{ss? ss?}", "name", r->data_name, "full_name", r->data_full_name));
    if (failed) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *rows_json(const ms_diff_row *rows, size_t n, int with_code, int with_data)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < n; i++) {
        if (json_array_append_new(arr, row_json(&rows[i], with_code, with_data)) < 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    return arr;
}

json_t *ms_diff_json(const ms_diff *d, const ms_diff_labels *labels)
{
    bool differ = labels->config[0] && labels->config[1] && strcmp(labels->config[0], labels->config[1]) != 0;
    return json_pack("{ss si s[{ss ss* ss* so} {ss ss* ss* so}] sb so so so}", "format", "memspy-diff", "version", 1,
                     "runs", "label", labels->label[0], "hierarchy", labels->config[0], "origin", labels->origin[0],
                     "totals", side_json(&d->totals[0]), "label", labels->label[1], "hierarchy", labels->config[1],
                     "origin", labels->origin[1], "totals", side_json(&d->totals[1]), "hierarchies_differ", differ,
                     "cells", rows_json(d->cells, d->ncells, 1, 1), "data", rows_json(d->data, d->ndata, 0, 1), "code",
                     rows_json(d->code, d->ncode, 1, 0));
}

int ms_json_write_diff(FILE *out, const ms_diff *d, const ms_diff_labels *labels, json_t *gate)
{
    json_t *root = ms_diff_json(d, labels);
    if (root && gate && json_object_set(root, "gate", gate) < 0) {
        json_decref(root);
        root = NULL;
    }
    if (!root) return -1;
    int rc = json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 && fputc('\n', out) != EOF && !ferror(out)
                 ? 0
                 : -1;
    json_decref(root);
    return rc;
}
