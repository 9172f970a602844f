/* The self-interference advice made runnable and checked (advice_check.h). */
#define _GNU_SOURCE
#include "advice_check.h"
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/findings.h"
#include "../analysis/strides.h"
#include "../drive/drive.h"
#include "cli.h"
#include "record_dir.h"
#include "whatif_core.h"

/* Whether f is self-interference with conflicts on a bin of the recording whose rows are
 * known or were not looked for (its advice pads, or says a recording would find its rows). */
static int pads_rows(const ms_model *m, const ms_finding *f)
{
    if (f->kind != MS_FINDING_SELF_INTERFERENCE || f->data >= m->ndata || !m->data[f->data].raw_ref) return 0;
    const ms_data_bin *d = &m->data[f->data];
    return !d->row_none && (f->whatif[0] || strstr(f->advice, "a run with --record finds its rows") != NULL);
}

static void observe(void *ud, unsigned cpu, uint32_t ctx, uint64_t addr, uint64_t size)
{
    ms_strides_observe(ud, cpu, ctx, addr, size);
}

/* The row lengths of the bins whose rows the findings pad and no type gave (heap and stack
 * bins, globals without DWARF), from the recorded references. */
static void measure_rows(const char *cmd, const char *dir, ms_interleave mode, ms_model *m)
{
    char path[PATH_MAX + 16], err[2048];
    ms_raw raw;
    ms_strides st;
    uint32_t data[MS_FINDINGS_MAX], max_ctx = 0;
    size_t n = 0;
    snprintf(path, sizeof path, "%s/%s", dir, MS_RECORD_RAW);
    if (ms_raw_read(path, &raw, err, sizeof err) < 0) {
        ms_raw_free(&raw);
        return;
    }
    for (size_t i = 0; i < raw.ncontexts; i++)
        if (raw.contexts[i].ctx > max_ctx) max_ctx = raw.contexts[i].ctx;
    if (ms_strides_init(&st, max_ctx) == 0) {
        for (size_t i = 0; i < m->nfindings && n < MS_FINDINGS_MAX; i++) {
            const ms_data_bin *d = &m->data[m->findings[i].data];
            if (!pads_rows(m, &m->findings[i]) || d->row_bytes) continue;
            long k = ms_strides_add(&st, d->raw_ref - 1);
            if (k < 0) break;
            data[n++] = m->findings[i].data;
            for (size_t c = 0; c < raw.ncontexts; c++)
                if (raw.contexts[c].bin == d->raw_ref - 1) ms_strides_bind(&st, raw.contexts[c].ctx, (size_t)k);
        }
        if (n && ms_drive_scan(dir, mode, max_ctx, observe, &st, err, sizeof err) < 0)
            fprintf(stderr, "memspy %s: the rows of the advice were not measured: %s\n", cmd, err);
        else
            for (size_t k = 0; k < n; k++) {
                ms_data_bin *d = &m->data[data[k]];
                ms_strides_result(&st, k, &d->row_bytes, &d->row_width);
                d->row_none = !d->row_bytes; /* no dominant stride: no rows */
            }
        ms_strides_free(&st);
    }
    ms_raw_free(&raw);
}

/* Predict the row lengths worth trying for f and keep the best in its data bin. */
static void check_pads(const char *cmd, const char *dir, json_t *meta, const ms_hier_config *cfg, ms_interleave mode,
                       ms_model *m, const ms_finding *f)
{
    uint64_t c[3];
    size_t n = ms_finding_pad_candidates(m, f, c, 3);
    ms_data_bin *d = &m->data[f->data];
    uint64_t best = 0, best_stall = 0;
    uint32_t tried = 0;
    for (size_t i = 0; i < n; i++) {
        ms_whatif_change ch[2] = { { MS_WHATIF_ROW, d->name, (int64_t)d->row_bytes },
                                   { MS_WHATIF_PAD, d->name, (int64_t)c[i] } };
        char *text = NULL;
        if (asprintf(&text, "--row '%s=%llu' --pad '%s=%llu'", d->name, (unsigned long long)d->row_bytes, d->name,
                     (unsigned long long)c[i]) < 0)
            return;
        ms_whatif_request q = { cmd, dir, *cfg, mode, ch, 2, 0, 1, text };
        ms_model after;
        ms_whatif_bins bins;
        int incomplete = 0;
        if (ms_whatif_predict(&q, meta, NULL, &after, &bins, &incomplete) == 0) {
            uint64_t stall = ms_counters_stall(&after.totals);
            if (!tried++ || stall < best_stall) {
                best = c[i];
                best_stall = stall;
            }
            ms_model_free(&after);
            ms_whatif_bins_free(&bins);
        }
        free(text);
    }
    d->row_pad = best;
    d->row_pad_stall = best_stall;
    d->row_pads_tried = tried;
}

/* If some finding could be padded by rows: measure the rows (measure_rows) and return 1; else 0. */
static int rows_measured(const char *cmd, const char *dir, ms_interleave mode, ms_model *m)
{
    int any = 0;
    for (size_t i = 0; i < m->nfindings; i++) any |= pads_rows(m, &m->findings[i]);
    if (any) measure_rows(cmd, dir, mode, m);
    return any;
}

int ms_advice_check(const char *cmd, const char *dir, json_t *meta, const ms_hier_config *cfg, ms_interleave mode,
                    ms_model *m)
{
    if (!rows_measured(cmd, dir, mode, m)) return 0;
    for (size_t i = 0; i < m->nfindings; i++) {
        const ms_finding *f = &m->findings[i];
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= m->findings[j].data == f->data && pads_rows(m, &m->findings[j]);
        if (pads_rows(m, f) && !seen && m->data[f->data].row_bytes) check_pads(cmd, dir, meta, cfg, mode, m, f);
    }
    return ms_model_set_findings(m);
}

/* Whether change c names data bin d (its name or full name, or a glob matching one). */
static int names_bin(const ms_whatif_change *c, const ms_data_bin *d)
{
    return strcmp(c->data, d->name) == 0 || fnmatch(c->data, d->name, 0) == 0 ||
           (d->full_name && (strcmp(c->data, d->full_name) == 0 || fnmatch(c->data, d->full_name, 0) == 0));
}

int ms_advice_rows(const char *cmd, const char *dir, ms_interleave mode, const ms_whatif_change *changes, size_t n,
                   ms_model *m)
{
    if (!rows_measured(cmd, dir, mode, m)) return 0;
    for (size_t i = 0; i < m->nfindings; i++) {
        const ms_finding *f = &m->findings[i];
        if (f->kind != MS_FINDING_SELF_INTERFERENCE || f->data >= m->ndata) continue;
        ms_data_bin *d = &m->data[f->data];
        uint64_t pad = 0, c[3];
        for (size_t k = 0; k < n; k++) {
            if (!names_bin(&changes[k], d)) continue;
            if (changes[k].kind == MS_WHATIF_ROW) d->row_bytes = (uint64_t)changes[k].bytes, d->row_none = 0;
            if (changes[k].kind == MS_WHATIF_PAD) pad = (uint64_t)changes[k].bytes;
        }
        size_t nc = pad ? ms_finding_pad_candidates(m, f, c, 3) : 0;
        for (size_t k = 0; k < nc && !d->row_pad; k++)
            if (c[k] != pad) d->row_pad = c[k]; /* another row length than the one predicted */
    }
    return ms_model_set_findings(m);
}
