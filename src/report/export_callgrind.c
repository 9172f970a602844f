/* Callgrind export (format version 1, see valgrind's "Callgrind Format Specification"), so
 * that KCachegrind/QCachegrind and callgrind_annotate show memspy's per-line statistics: one
 * fl=/fn= block per (source file, code segment) with a cost line per source line, summed over
 * data bins. References without a source line are charged to line 0 of their code segment,
 * so that every function's cost is its code segment's total and the file's total is the
 * run's. Stall is the first event, so that KCachegrind and callgrind_annotate (which sort by
 * the first event unless told otherwise) open sorted by memory stall time. */
#include <stdlib.h>
#include <string.h>

#include "../sim/config.h"
#include "export_fields.h"
#include "report.h"

#define UNKNOWN_FILE "???"

typedef struct {
    FILE *out;
    const ms_model *m;
    ms_export_field fields[MS_EXPORT_MAX_FIELDS];
    size_t nfields;
} cg_writer;

/* Line statistics in (file, code, line) order; equal keys keep the model's order. */
static int cmp_line_ptr(const void *a, const void *b)
{
    const ms_line_stat *x = *(const ms_line_stat *const *)a, *y = *(const ms_line_stat *const *)b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return (x > y) - (x < y);
}

static void put_header(cg_writer *w)
{
    const ms_model *m = w->m;
    char cfg[512];
    ms_config_format(&m->config, cfg, sizeof cfg);
    fprintf(w->out, "# callgrind format\nversion: 1\ncreator: memspy %s\n",
            m->memspy_version ? m->memspy_version : MEMSPY_VERSION);
    if (m->pid) fprintf(w->out, "pid: %u\n", m->pid);
    fputs("cmd:", w->out);
    if (m->argc == 0 && m->program) fprintf(w->out, " %s", m->program);
    for (int i = 0; i < m->argc; i++) fprintf(w->out, " %s", m->argv[i] ? m->argv[i] : "");
    fprintf(w->out, "\ndesc: Simulated caches: %s\n", cfg);
    if (m->incomplete) fprintf(w->out, "desc: Incomplete run: %s\n", m->incomplete_reason ? m->incomplete_reason : "?");
    fputs("positions: line\n", w->out);
    for (size_t f = 0; f < w->nfields; f++) fprintf(w->out, "event: %s : %s\n", w->fields[f].event, w->fields[f].desc);
    fputs("events:", w->out);
    for (size_t f = 0; f < w->nfields; f++) fprintf(w->out, " %s", w->fields[f].event);
    fputc('\n', w->out);
}

/* "LINE v1 v2 ..." (trailing zeros are implied by the format, but written for clarity). */
static void put_costs(cg_writer *w, const char *prefix, int line, const uint64_t *v)
{
    if (line >= 0)
        fprintf(w->out, "%s%d", prefix, line);
    else
        fputs(prefix, w->out);
    for (size_t f = 0; f < w->nfields; f++) fprintf(w->out, " %llu", (unsigned long long)v[f]);
    fputc('\n', w->out);
}

static void add_values(const cg_writer *w, uint64_t *acc, const ms_counters *c)
{
    for (size_t f = 0; f < w->nfields; f++) acc[f] += ms_export_value(&w->fields[f], c);
}

static const char *code_name(const ms_model *m, uint32_t code)
{
    return code < m->ncode && m->code[code].name ? m->code[code].name : UNKNOWN_FILE;
}

/* Cost lines of every source line, grouped by file and code segment; adds what was charged
 * to each code segment into charged[code * nfields + f]. */
static void put_lines(cg_writer *w, const ms_line_stat *const *order, uint64_t *charged)
{
    const ms_model *m = w->m;
    uint64_t v[MS_EXPORT_MAX_FIELDS];
    for (size_t i = 0; i < m->nlines;) {
        const ms_line_stat *first = order[i];
        if (i == 0 || order[i - 1]->file != first->file)
            fprintf(w->out, "\nfl=%s\n", first->file < m->nfiles ? m->files[first->file] : UNKNOWN_FILE);
        if (i == 0 || order[i - 1]->file != first->file || order[i - 1]->code != first->code)
            fprintf(w->out, "fn=%s\n", code_name(m, first->code));
        memset(v, 0, sizeof v);
        size_t j = i;
        for (; j < m->nlines; j++) {
            const ms_line_stat *ls = order[j];
            if (ls->file != first->file || ls->code != first->code || ls->line != first->line) break;
            add_values(w, v, &ls->c);
        }
        if (first->code < m->ncode)
            for (size_t f = 0; f < w->nfields; f++) charged[first->code * w->nfields + f] += v[f];
        put_costs(w, "", first->line, v);
        i = j;
    }
}

/* Line 0 of each code segment: its references that have no source line. */
static int put_unplaced(cg_writer *w, const uint64_t *charged)
{
    const ms_model *m = w->m;
    ms_counters *tot = NULL;
    if (ms_model_code_totals(m, &tot) < 0) return -1;
    for (size_t c = 0; c < m->ncode; c++) {
        uint64_t v[MS_EXPORT_MAX_FIELDS] = { 0 }, any = 0;
        add_values(w, v, &tot[c]);
        for (size_t f = 0; f < w->nfields; f++) {
            v[f] -= charged[c * w->nfields + f];
            any |= v[f];
        }
        if (!any) continue;
        fprintf(w->out, "\nfl=%s\nfn=%s\n", m->code[c].file ? m->code[c].file : UNKNOWN_FILE,
                code_name(m, (uint32_t)c));
        put_costs(w, "", 0, v);
    }
    free(tot);
    return 0;
}

/* Moves the stall field to the front, the others keeping their order. */
static void stall_first(cg_writer *w)
{
    for (size_t f = 1; f < w->nfields; f++) {
        if (w->fields[f].kind != MS_FIELD_stall) continue;
        ms_export_field stall = w->fields[f];
        memmove(&w->fields[1], &w->fields[0], f * sizeof w->fields[0]);
        w->fields[0] = stall;
        return;
    }
}

int ms_export_callgrind(FILE *out, const ms_model *m)
{
    cg_writer w = { .out = out, .m = m };
    w.nfields = ms_export_fields(m->config.nlevels, m->nprocs > 1, w.fields);
    stall_first(&w);
    const ms_line_stat **order = malloc((m->nlines ? m->nlines : 1) * sizeof *order);
    uint64_t *charged = calloc((m->ncode ? m->ncode : 1) * w.nfields, sizeof *charged);
    int rc = -1;
    if (order && charged) {
        for (size_t i = 0; i < m->nlines; i++) order[i] = &m->lines[i];
        qsort(order, m->nlines, sizeof *order, cmp_line_ptr);
        put_header(&w);
        put_lines(&w, order, charged);
        rc = put_unplaced(&w, charged);
        uint64_t v[MS_EXPORT_MAX_FIELDS] = { 0 };
        add_values(&w, v, &m->totals);
        fputc('\n', out);
        put_costs(&w, "summary:", -1, v);
        put_costs(&w, "totals:", -1, v);
    }
    free((void *)order);
    free(charged);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
