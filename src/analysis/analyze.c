/* The analysis: raw profile -> model. Contexts (pc, data bin) become cells of the
 * (code bin x data bin) matrix; counters, per-line statistics and replacement causes are
 * summed into them; everything is sorted deterministically (stall descending, then names). */
#define _GNU_SOURCE /* qsort_r, sigdescr_np */
#include "analyze.h"
#include "blocks.h"
#include "waiting.h"
#include "codebins.h"
#include "coverage.h"
#include "ompnames.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "databins.h"
#include "fields.h"
#include "source.h"
#include "symbolize.h"
#include "../util/util.h"

#define NO_INDEX UINT32_MAX

/* One raw context, resolved. */
typedef struct {
    uint32_t ctx;
    uint64_t pc;
    uint32_t bin_id;
    const ms_frame *frame; /* innermost frame of its pc */
    const ms_frame *outer; /* outermost: the function compiled around it */
    char *code_name;       /* its code bin (function, loop or line: codebins.h) */
    int code_line;         /* the code bin's first line */
    uint32_t code, data, cell, line, part;
    uint32_t file;          /* index into model->files when line != NO_INDEX */
    uint64_t reads, writes; /* summed over processors: the access kind of its references */
} ctx_info;

typedef struct {
    const ms_raw *raw;
    const ms_raw_bin *bins; /* the raw bins some context refers to: the model's data bins */
    size_t nbins;
    ms_model *m;
    ms_symbolizer *sym;
    ctx_info *ctx; /* sorted by ctx; an extra "unknown" entry at nctx if needed */
    size_t nctx;
    bool has_unknown;
    bool *cell_used;
    size_t *ncap; /* evicted_by capacity per cell */
    size_t *icap; /* inval_by capacity per cell */
} analysis;

static int oom(char *err, size_t errlen)
{
    snprintf(err, errlen, "out of memory during analysis");
    return -1;
}

static int add_note(ms_model *m, const char *fmt, ...)
{
    char **p = realloc(m->notes, (m->nnotes + 1) * sizeof *p);
    if (!p) return -1;
    m->notes = p;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = malloc((size_t)n + 1);
    if (!s) return -1;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    m->notes[m->nnotes++] = s;
    return 0;
}

static int strcmp_null(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* ---- run metadata ---- */

static int fill_metadata(const ms_raw *raw, ms_model *m, char *err, size_t errlen)
{
    m->pid = raw->pid;
    m->exit_kind = raw->exit_kind;
    m->exit_value = raw->exit_value;
    m->wall_seconds = raw->end_ns > raw->start_ns ? (double)(raw->end_ns - raw->start_ns) / 1e9 : 0;
    char cfg_err[256];
    if (!raw->config_text || ms_config_parse_full(raw->config_text, &m->config, cfg_err, sizeof cfg_err) != 0) {
        snprintf(err, errlen, "raw profile has no valid cache configuration%s%s", raw->config_text ? ": " : "",
                 raw->config_text ? cfg_err : "");
        return -1;
    }
    char reason[160] = "";
    if (raw->exit_kind == MS_EXIT_SIGNAL) {
        const char *what = sigdescr_np(raw->exit_value);
        snprintf(reason, sizeof reason, "program killed by signal %d (%s)", raw->exit_value,
                 what ? what : "unknown signal");
    } else if (raw->exit_kind == MS_EXIT_UNDERSCORE) {
        snprintf(reason, sizeof reason, "program called _exit");
    } else if (raw->flags & MS_RAW_F_INCOMPLETE) {
        snprintf(reason, sizeof reason, "program did not finish normally");
    }
    if (raw->truncated)
        snprintf(reason + strlen(reason), sizeof reason - strlen(reason), "%sraw profile truncated",
                 reason[0] ? "; " : "");
    m->incomplete = reason[0] != '\0';
    if (m->incomplete && !(m->incomplete_reason = strdup(reason))) return oom(err, errlen);
    for (size_t i = 0; i < raw->nnotes; i++)
        if (add_note(m, "%s", raw->notes[i]) != 0) return oom(err, errlen);
    if (raw->nlevels && raw->nlevels != m->config.nlevels &&
        add_note(m, "counters have %d levels but the configuration %d", raw->nlevels, m->config.nlevels) != 0)
        return oom(err, errlen);
    return 0;
}

/* ---- contexts ---- */

static int cmp_ctx(const void *a, const void *b)
{
    const ctx_info *x = a, *y = b;
    return (x->ctx > y->ctx) - (x->ctx < y->ctx);
}

static ctx_info *find_ctx(analysis *an, uint32_t ctx)
{
    ctx_info key = { .ctx = ctx };
    ctx_info *c = bsearch(&key, an->ctx, an->nctx, sizeof key, cmp_ctx);
    if (c) return c;
    an->has_unknown = true;
    return &an->ctx[an->nctx];
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_u32_pair(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Resolve each context's pc and data bin; the unknown entry collects whatever has no context. */
static int resolve_contexts(analysis *an, size_t nbins, uint32_t unknown_data)
{
    const ms_raw *raw = an->raw;
    an->ctx = calloc(raw->ncontexts + 1, sizeof *an->ctx);
    uint32_t *ids = malloc((nbins ? nbins : 1) * 2 * sizeof *ids); /* (bin id, index) pairs */
    if (!an->ctx || !ids) {
        free(ids);
        return -1;
    }
    for (size_t i = 0; i < nbins; i++) {
        ids[2 * i] = an->bins[i].id;
        ids[2 * i + 1] = (uint32_t)i;
    }
    qsort(ids, nbins, 2 * sizeof *ids, cmp_u32_pair);
    for (size_t i = 0; i < raw->ncontexts; i++)
        an->ctx[i] =
            (ctx_info){ .ctx = raw->contexts[i].ctx, .pc = raw->contexts[i].pc, .bin_id = raw->contexts[i].bin };
    qsort(an->ctx, raw->ncontexts, sizeof *an->ctx, cmp_ctx);
    size_t n = 0; /* drop duplicate ctx ids, keeping the first */
    for (size_t i = 0; i < raw->ncontexts; i++)
        if (n == 0 || an->ctx[n - 1].ctx != an->ctx[i].ctx) an->ctx[n++] = an->ctx[i];
    an->nctx = n;
    static const ms_frame unknown_frame = { "??", NULL, 0, NULL, 0, 0, NULL, NULL, false, false };
    int rc = 0;
    for (size_t i = 0; i <= n && rc == 0; i++) {
        ctx_info *c = &an->ctx[i];
        c->frame = c->outer = &unknown_frame;
        c->data = unknown_data;
        c->part = NO_INDEX;
        if (i == n) break;
        const ms_sym *s = ms_symbolize(an->sym, c->pc, true);
        if (!s) {
            rc = -1;
        } else {
            c->frame = &s->frames[0];
            c->outer = &s->frames[s->nframes - 1];
        }
        uint32_t key[2] = { c->bin_id, 0 };
        const uint32_t *hit = bsearch(key, ids, nbins, 2 * sizeof *ids, cmp_u32_pair);
        if (hit)
            c->data = hit[1];
        else
            an->has_unknown = true;
    }
    free(ids);
    return rc;
}

/* ---- code bins, cells, line statistics: each is the set of distinct keys over contexts ---- */

static int cmp_code_key(const void *a, const void *b, void *ctxs)
{
    const ctx_info *x = &((const ctx_info *)ctxs)[*(const size_t *)a];
    const ctx_info *y = &((const ctx_info *)ctxs)[*(const size_t *)b];
    int c = strcmp(x->code_name, y->code_name);
    return c ? c : strcmp_null(x->frame->decl_file, y->frame->decl_file);
}

static int cmp_cell_key(const void *a, const void *b, void *ctxs)
{
    const ctx_info *x = &((const ctx_info *)ctxs)[*(const size_t *)a];
    const ctx_info *y = &((const ctx_info *)ctxs)[*(const size_t *)b];
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return (x->data > y->data) - (x->data < y->data);
}

static int cmp_line_key(const void *a, const void *b, void *ctxs)
{
    const ctx_info *x = &((const ctx_info *)ctxs)[*(const size_t *)a];
    const ctx_info *y = &((const ctx_info *)ctxs)[*(const size_t *)b];
    int c = strcmp_null(x->frame->file, y->frame->file);
    if (c) return c;
    if (x->frame->line != y->frame->line) return x->frame->line < y->frame->line ? -1 : 1;
    return cmp_cell_key(a, b, ctxs);
}

static int cmp_part_key(const void *a, const void *b, void *ctxs)
{
    const ctx_info *x = &((const ctx_info *)ctxs)[*(const size_t *)a];
    const ctx_info *y = &((const ctx_info *)ctxs)[*(const size_t *)b];
    int c = strcmp(x->outer->func, y->outer->func);
    if (!c) c = strcmp_null(x->outer->decl_file, y->outer->decl_file);
    return c ? c : (x->code > y->code) - (x->code < y->code);
}

static int cmp_file_key(const void *a, const void *b, void *ctxs)
{
    const ctx_info *x = &((const ctx_info *)ctxs)[*(const size_t *)a];
    const ctx_info *y = &((const ctx_info *)ctxs)[*(const size_t *)b];
    return strcmp_null(x->frame->file, y->frame->file);
}

/* Number the distinct keys of contexts order[0..n) (sorted with cmp): calls assign(ctx, id,
 * first) for each, first telling whether this context starts a new key. Returns the count. */
static uint32_t number_keys(analysis *an, size_t *order, size_t n, int (*cmp)(const void *, const void *, void *),
                            int (*assign)(analysis *, ctx_info *, uint32_t, bool))
{
    qsort_r(order, n, sizeof *order, cmp, an->ctx);
    uint32_t id = 0;
    for (size_t i = 0; i < n; i++) {
        bool first = i == 0 || cmp(&order[i - 1], &order[i], an->ctx) != 0;
        if (first && i > 0) id++;
        if (assign(an, &an->ctx[order[i]], id, first) != 0) return NO_INDEX;
    }
    return n ? id + 1 : 0;
}

static int assign_code(analysis *an, ctx_info *c, uint32_t id, bool first)
{
    c->code = id;
    if (!first) return 0;
    ms_code_bin *b = &an->m->code[id];
    b->name = strdup(c->code_name);
    b->file = c->frame->decl_file ? strdup(c->frame->decl_file) : NULL;
    b->line = c->code_line;
    return b->name && (b->file || !c->frame->decl_file) ? 0 : -1;
}

static int assign_cell(analysis *an, ctx_info *c, uint32_t id, bool first)
{
    c->cell = id;
    if (first) {
        an->m->cells[id].code = c->code;
        an->m->cells[id].data = c->data;
    }
    return 0;
}

static int assign_file(analysis *an, ctx_info *c, uint32_t id, bool first)
{
    if (first && !(an->m->files[id] = strdup(c->frame->file))) return -1;
    return 0;
}

static int assign_part(analysis *an, ctx_info *c, uint32_t id, bool first)
{
    c->part = id;
    if (!first) return 0;
    ms_code_part *p = &an->m->parts[id];
    p->code = c->code;
    p->function = strdup(c->outer->func);
    p->file = c->outer->decl_file ? strdup(c->outer->decl_file) : NULL;
    return p->function && (p->file || !c->outer->decl_file) ? 0 : -1;
}

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int assign_line(analysis *an, ctx_info *c, uint32_t id, bool first)
{
    c->line = id;
    if (first) {
        ms_line_stat *l = &an->m->lines[id];
        l->line = c->frame->line;
        l->code = c->code;
        l->data = c->data;
        char *const *f = bsearch(&c->frame->file, an->m->files, an->m->nfiles, sizeof *f, cmp_str_ptr);
        l->file = f ? (uint32_t)(f - an->m->files) : 0;
    }
    c->file = an->m->lines[id].file;
    return 0;
}

/* Function-level code bins of outlined OpenMP regions get the region's name (ompnames.h):
 * from the plugins' region records; without one, from the function's name and the region's
 * first line: its entry block's, else the least line of its contexts in its file (the TSan
 * path: no blocks). */
static int name_omp_regions(const ms_raw *raw, ms_symbolizer *sym, const ms_model *m, ms_code_place *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *func = p[i].frame->func;
        if (strcmp(p[i].name, func) != 0) continue;
        const char *file = p[i].frame->file ? p[i].frame->file : p[i].frame->decl_file;
        const ms_sym *code = p[i].pc ? ms_symbolize(sym, p[i].pc, true) : NULL;
        ms_omp_region r;
        bool recorded = ms_omp_region_find(raw, sym, code, func, file, &r);
        if (!recorded && !ms_omp_outlined(func)) continue;
        int first = recorded ? r.line : 0;
        for (size_t b = 0; b < m->nblocks && !first; b++) { /* its entry block: the construct's line */
            const ms_block_stat *bk = &m->blocks[b];
            if (strcmp(bk->function, func) != 0 || !bk->file || bk->line <= 0) continue;
            file = bk->file;
            first = bk->line;
        }
        for (size_t j = 0; !first && j < n; j++) {
            const ms_frame *f = p[j].frame;
            if (strcmp(f->func, func) != 0 || !f->file || f->line <= 0) continue;
            if (!file) file = f->file;
            if (strcmp(f->file, file) == 0 && (!first || f->line < first)) first = f->line;
        }
        char *name = ms_omp_region_name(raw, sym, code, func, file, first);
        if (!name) return -1;
        free(p[i].name);
        p[i].name = name;
        p[i].line = first;
    }
    return 0;
}

/* Each context's code bin name at the granularity opts ask for (function by default). */
static int name_code(analysis *an, const ms_analyze_opts *opts)
{
    size_t n = an->nctx + (an->has_unknown ? 1 : 0);
    ms_code_place *p = calloc(n ? n : 1, sizeof *p);
    if (!p) return -1;
    for (size_t i = 0; i < n; i++) p[i] = (ms_code_place){ an->ctx[i].ctx, an->ctx[i].pc, an->ctx[i].frame, NULL, 0 };
    ms_code_granularity g = opts ? (ms_code_granularity)opts->code_granularity : MS_CODE_FUNCTION;
    int rc = ms_code_places(an->raw, an->sym, an->m, g, opts ? opts->loop_share : 0.0, p, n);
    if (rc == 0) rc = name_omp_regions(an->raw, an->sym, an->m, p, n);
    for (size_t i = 0; i < n; i++) {
        an->ctx[i].code_name = p[i].name;
        an->ctx[i].code_line = p[i].line;
    }
    free(p);
    return rc;
}

/* Code bins, cells, files and line statistics from the resolved contexts (including the
 * unknown entry when used). */
static int build_axes(analysis *an)
{
    ms_model *m = an->m;
    size_t n = an->nctx + (an->has_unknown ? 1 : 0);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    m->code = calloc(n ? n : 1, sizeof *m->code);
    m->cells = calloc(n ? n : 1, sizeof *m->cells);
    m->files = calloc(n ? n : 1, sizeof *m->files);
    m->lines = calloc(n ? n : 1, sizeof *m->lines);
    if (!order || !m->code || !m->cells || !m->files || !m->lines) {
        free(order);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < n; i++) order[i] = i;
    if ((m->ncode = number_keys(an, order, n, cmp_code_key, assign_code)) == NO_INDEX) rc = -1;
    if (rc == 0 && (m->ncells = number_keys(an, order, n, cmp_cell_key, assign_cell)) == NO_INDEX) rc = -1;
    /* the code bins' shares per function, for the call graph of runs with call edges */
    if (rc == 0 && m->ncalls && !(m->parts = calloc(n ? n : 1, sizeof *m->parts))) rc = -1;
    if (rc == 0 && m->ncalls && (m->nparts = number_keys(an, order, n, cmp_part_key, assign_part)) == NO_INDEX) rc = -1;
    size_t nsrc = 0; /* contexts with a source position */
    for (size_t i = 0; i < n; i++) {
        an->ctx[i].line = NO_INDEX;
        if (an->ctx[i].frame->file) order[nsrc++] = i;
    }
    if (rc == 0 && (m->nfiles = number_keys(an, order, nsrc, cmp_file_key, assign_file)) == NO_INDEX) rc = -1;
    if (rc == 0 && (m->nlines = number_keys(an, order, nsrc, cmp_line_key, assign_line)) == NO_INDEX) rc = -1;
    free(order);
    return rc;
}

/* ---- counters and replacement causes ---- */

static int add_evictor(analysis *an, uint32_t cell, const ms_evictor *e)
{
    ms_cell *c = &an->m->cells[cell];
    if (ms_grow((void **)&c->evicted_by, &an->ncap[cell], c->nevicted_by + 1, sizeof *e) < 0) return -1;
    c->evicted_by[c->nevicted_by++] = *e;
    return 0;
}

static int add_invalidator(analysis *an, uint32_t cell, const ms_invalidator *e)
{
    ms_cell *c = &an->m->cells[cell];
    if (ms_grow((void **)&c->inval_by, &an->icap[cell], c->ninval_by + 1, sizeof *e) < 0) return -1;
    c->inval_by[c->ninval_by++] = *e;
    return 0;
}

/* One processor's statistics per simulated processor: counters summed over its (ctx, cpu)
 * entries, the replayed threads it ran and their blocked steps. */
static int build_procs(analysis *an)
{
    const ms_raw *raw = an->raw;
    ms_model *m = an->m;
    m->procs = calloc(raw->nprocs, sizeof *m->procs);
    if (!m->procs) return -1;
    m->nprocs_stat = raw->nprocs;
    for (uint32_t p = 0; p < raw->nprocs; p++) m->procs[p].cpu = p;
    for (size_t i = 0; i < raw->ncounters; i++)
        if (raw->counters[i].cpu < raw->nprocs) ms_counters_add(&m->procs[raw->counters[i].cpu].c, &raw->counters[i].c);
    for (size_t i = 0; i < raw->nthreads_replayed; i++) {
        const ms_raw_thread *t = &raw->threads[i];
        if (t->cpu >= raw->nprocs) continue;
        ms_proc_stat *p = &m->procs[t->cpu];
        uint32_t *th = realloc(p->threads, (p->nthreads + 1) * sizeof *th);
        if (!th) return -1;
        p->threads = th;
        p->threads[p->nthreads++] = t->index;
        p->wait_turns += t->wait_turns;
    }
    for (uint32_t p = 0; p < raw->nprocs; p++)
        if (m->procs[p].nthreads)
            qsort(m->procs[p].threads, m->procs[p].nthreads, sizeof *m->procs[p].threads, cmp_u32);
    return 0;
}

static ms_ref_kind ref_kind(const ctx_info *c)
{
    if (c->reads && c->writes) return MS_REF_READWRITE;
    return c->writes ? MS_REF_WRITE : MS_REF_READ;
}

/* ccSIM's per-reference rows: one per (source line, code, data, access kind, cpu), in key
 * order with equal keys merged (bin indices are renumbered in finish_order). */
static int build_refs(analysis *an)
{
    const ms_raw *raw = an->raw;
    ms_model *m = an->m;
    m->refs = calloc(raw->ncounters ? raw->ncounters : 1, sizeof *m->refs);
    if (!m->refs) return -1;
    size_t n = 0;
    for (size_t i = 0; i < raw->ncounters; i++) {
        const ctx_info *c = find_ctx(an, raw->counters[i].ctx);
        if (c->line == NO_INDEX) continue;
        m->refs[n++] = (ms_reference_stat){ c->file,     c->frame->line,    c->code, c->data, raw->counters[i].cpu,
                                            ref_kind(c), raw->counters[i].c };
    }
    m->nrefs = ms_references_fold(m->refs, n);
    return 0;
}

/* Threads, processors, references and invalidation causes of a multiprocessor replay. */
static int accumulate_multiprocessor(analysis *an)
{
    const ms_raw *raw = an->raw;
    ms_model *m = an->m;
    m->nprocs = raw->nprocs;
    if (raw->interleave && !(m->interleave = strdup(raw->interleave))) return -1;
    for (size_t i = 0; i < raw->ncounters; i++) {
        ctx_info *c = find_ctx(an, raw->counters[i].ctx);
        c->reads += raw->counters[i].c.reads;
        c->writes += raw->counters[i].c.writes;
    }
    for (size_t i = 0; i < raw->ninvalidations; i++) {
        const ms_invalidation *e = &raw->invalidations[i];
        const ctx_info *victim = find_ctx(an, e->victim_ctx);
        const ctx_info *writer = find_ctx(an, e->inval_ctx);
        ms_invalidator inv = { writer->code, writer->data, e->inval_cpu, e->count };
        an->cell_used[victim->cell] = true;
        if (add_invalidator(an, victim->cell, &inv) != 0) return -1;
    }
    return build_procs(an) == 0 && build_refs(an) == 0 ? 0 : -1;
}

static int accumulate(analysis *an)
{
    const ms_raw *raw = an->raw;
    ms_model *m = an->m;
    for (size_t i = 0; i < raw->ncounters; i++) {
        const ctx_info *c = find_ctx(an, raw->counters[i].ctx);
        const ms_counters *k = &raw->counters[i].c;
        ms_counters_add(&m->totals, k);
        ms_counters_add(&m->cells[c->cell].c, k);
        an->cell_used[c->cell] = true;
        if (c->line != NO_INDEX) ms_counters_add(&m->lines[c->line].c, k);
        if (c->part != NO_INDEX) ms_counters_add(&m->parts[c->part].c, k);
    }
    for (size_t i = 0; i < raw->nevictions; i++) {
        const ms_eviction *e = &raw->evictions[i];
        const ctx_info *victim = find_ctx(an, e->victim_ctx);
        const ctx_info *evictor = find_ctx(an, e->evictor_ctx);
        ms_evictor ev = { evictor->code, evictor->data, e->level, e->count };
        an->cell_used[victim->cell] = true;
        if (add_evictor(an, victim->cell, &ev) != 0) return -1;
    }
    return raw->nprocs > 1 ? accumulate_multiprocessor(an) : 0;
}

/* ---- deterministic order ---- */

typedef struct {
    uint64_t stall;
    const char *name, *file;
    uint32_t index;
} rank;

static int cmp_rank(const void *a, const void *b)
{
    const rank *x = a, *y = b;
    if (x->stall != y->stall) return x->stall > y->stall ? -1 : 1;
    int c = strcmp(x->name, y->name);
    if (!c) c = strcmp_null(x->file, y->file);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Order n bins by stall (descending) then name; *remap[old] receives the new index and
 * *perm[new] the old one. */
static int rank_bins(rank *r, size_t n, uint32_t **remap, uint32_t **perm)
{
    qsort(r, n, sizeof *r, cmp_rank);
    *remap = malloc((n ? n : 1) * sizeof **remap);
    *perm = malloc((n ? n : 1) * sizeof **perm);
    if (!*remap || !*perm) return -1;
    for (size_t i = 0; i < n; i++) {
        (*remap)[r[i].index] = (uint32_t)i;
        (*perm)[i] = r[i].index;
    }
    return 0;
}

static int cmp_cell(const void *a, const void *b)
{
    const ms_cell *x = a, *y = b;
    uint64_t sx = ms_counters_stall(&x->c), sy = ms_counters_stall(&y->c);
    if (sx != sy) return sx > sy ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return (x->data > y->data) - (x->data < y->data);
}

static int cmp_line(const void *a, const void *b)
{
    const ms_line_stat *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return (x->data > y->data) - (x->data < y->data);
}

/* Drop cells nothing was counted in, rank code and data bins, renumber, sort. */
static int finish_order(analysis *an)
{
    ms_model *m = an->m;
    size_t kept = 0;
    for (size_t i = 0; i < m->ncells; i++) {
        if (an->cell_used[i])
            m->cells[kept++] = m->cells[i];
        else {
            free(m->cells[i].evicted_by);
            free(m->cells[i].inval_by);
        }
    }
    m->ncells = kept;
    kept = 0; /* lines of contexts that never counted a reference say nothing */
    for (size_t i = 0; i < m->nlines; i++)
        if (ms_counters_refs(&m->lines[i].c) != 0) m->lines[kept++] = m->lines[i];
    m->nlines = kept;
    kept = 0;
    for (size_t i = 0; i < m->nparts; i++) {
        if (ms_counters_refs(&m->parts[i].c) != 0) {
            m->parts[kept++] = m->parts[i];
        } else {
            free(m->parts[i].function);
            free(m->parts[i].file);
        }
    }
    m->nparts = kept;
    rank *codes = calloc(m->ncode ? m->ncode : 1, sizeof *codes);
    rank *datas = calloc(m->ndata ? m->ndata : 1, sizeof *datas);
    uint32_t *code_new = NULL, *code_old = NULL, *data_new = NULL, *data_old = NULL;
    int rc = codes && datas ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < m->ncode; i++)
        codes[i] = (rank){ 0, m->code[i].name, m->code[i].file, (uint32_t)i };
    for (size_t i = 0; rc == 0 && i < m->ndata; i++) datas[i] = (rank){ 0, m->data[i].name, NULL, (uint32_t)i };
    for (size_t i = 0; rc == 0 && i < m->ncells; i++) {
        codes[m->cells[i].code].stall += ms_counters_stall(&m->cells[i].c);
        datas[m->cells[i].data].stall += ms_counters_stall(&m->cells[i].c);
    }
    if (rc == 0) rc = rank_bins(codes, m->ncode, &code_new, &code_old);
    if (rc == 0) rc = rank_bins(datas, m->ndata, &data_new, &data_old);
    ms_code_bin *code = rc == 0 ? malloc((m->ncode ? m->ncode : 1) * sizeof *code) : NULL;
    ms_data_bin *data = rc == 0 ? malloc((m->ndata ? m->ndata : 1) * sizeof *data) : NULL;
    if (code && data) {
        for (size_t i = 0; i < m->ncode; i++) code[i] = m->code[code_old[i]];
        for (size_t i = 0; i < m->ndata; i++) data[i] = m->data[data_old[i]];
        free(m->code);
        free(m->data);
        m->code = code;
        m->data = data;
        ms_model_remap_bins(m, code_new, data_new);
        for (size_t i = 0; i < m->ncells; i++) ms_cell_merge_causes(&m->cells[i]);
        if (m->nrefs) qsort(m->refs, m->nrefs, sizeof *m->refs, ms_reference_order);
        qsort(m->cells, m->ncells, sizeof *m->cells, cmp_cell);
        qsort(m->lines, m->nlines, sizeof *m->lines, cmp_line);
    } else {
        free(code);
        free(data);
        rc = -1;
    }
    free(codes);
    free(datas);
    free(code_new);
    free(code_old);
    free(data_new);
    free(data_old);
    return rc;
}

/* Stall per bin (an->bins order) and of the run, from the raw counters. */
static uint64_t *bin_stall(analysis *an, uint64_t *total)
{
    uint64_t *stall = calloc(an->nbins + 1, sizeof *stall);
    *total = 0;
    for (size_t i = 0; stall && i < an->raw->ncounters; i++) {
        const ctx_info *c = find_ctx(an, an->raw->counters[i].ctx);
        uint64_t s = an->raw->counters[i].c.stall_read + an->raw->counters[i].c.stall_write;
        *total += s;
        if (c->data < an->nbins) stall[c->data] += s;
    }
    return stall;
}

/* The data bins, plus an "unknown" bin (kind OTHER) for contexts without a known bin. The
 * contexts' data indices move with the bins a library's internal allocations join. */
static int build_data(analysis *an, bool with_unknown)
{
    ms_model *m = an->m;
    ms_data_bin *d;
    ms_dests *dests;
    if (ms_dests_new(an->raw->dests, an->raw->dest_pcs, an->raw->ndests, &dests) != 0) return -1;
    ms_data_inputs in = { an->raw, NULL, 0 };
    uint64_t *stall = bin_stall(an, &in.total);
    uint32_t *data_of = malloc((an->nbins ? an->nbins : 1) * sizeof *data_of);
    in.stall = stall;
    size_t nd = 0;
    int rc = stall && data_of
                 ? ms_build_data_bins((ms_raw_bin *)an->bins, an->nbins, &in, an->sym, dests, &d, &nd, data_of)
                 : -1;
    bool recorded = dests != NULL;
    ms_dests_free(dests);
    free(stall);
    if (rc != 0) {
        free(data_of);
        return -1;
    }
    for (size_t i = 0; i <= an->nctx; i++) /* the unknown context too */
        an->ctx[i].data = an->ctx[i].data < an->nbins ? data_of[an->ctx[i].data] : (uint32_t)nd;
    free(data_of);
    an->nbins = nd;
    m->data = d;
    m->ndata = nd;
    size_t by_site = 0, unknown = 0; /* heap bins named by site: with line information, without */
    for (size_t i = 0; i < m->ndata; i++)
        if (d[i].kind == MS_BIN_HEAP && strncmp(d[i].name, "heap@", 5) == 0) {
            by_site += d[i].site != NULL;
            unknown += d[i].site == NULL;
        }
    if (by_site &&
        add_note(m, "%zu heap bin%s named by allocation site (heap@FILE:LINE): %s", by_site, by_site > 1 ? "s" : "",
                 recorded ? "no destination recorded for the call (a pointer never stored anywhere named, or code "
                            "built without memspy's compiler plugins)"
                          : "no allocation destinations recorded (built without memspy's compiler plugins: the "
                            "ThreadSanitizer fallback or another compiler)") != 0)
        return -1;
    if (unknown && add_note(m,
                            "%zu heap bin%s allocated by code without line information (heap@?\?): a library's own "
                            "allocations, or code built without -g",
                            unknown, unknown > 1 ? "s" : "") != 0)
        return -1;
    if (!with_unknown) return 0;
    d = realloc(m->data, (m->ndata + 1) * sizeof *d);
    if (!d) return -1;
    m->data = d;
    ms_data_bin *u = &d[m->ndata++];
    memset(u, 0, sizeof *u);
    u->kind = MS_BIN_OTHER;
    u->name = strdup("unknown");
    u->full_name = strdup("unknown");
    if (!u->name || !u->full_name) return -1;
    return ms_unique_data_names(m->data, m->ndata, NULL, 0);
}

/* Keep only the raw bins that some context refers to: the runtime registers every global
 * of every module (all of libc's), but a report lists the data the program touched. */
static int referenced_bins(analysis *an)
{
    const ms_raw *raw = an->raw;
    uint32_t *used = malloc((raw->ncontexts ? raw->ncontexts : 1) * sizeof *used);
    ms_raw_bin *keep = malloc((raw->nbins ? raw->nbins : 1) * sizeof *keep);
    if (!used || !keep) {
        free(used);
        free(keep);
        return -1;
    }
    for (size_t i = 0; i < raw->ncontexts; i++) used[i] = raw->contexts[i].bin;
    qsort(used, raw->ncontexts, sizeof *used, cmp_u32);
    size_t n = 0;
    for (size_t i = 0; i < raw->nbins; i++)
        if (bsearch(&raw->bins[i].id, used, raw->ncontexts, sizeof *used, cmp_u32))
            keep[n++] = raw->bins[i]; /* shallow: the raw file keeps owning the strings */
    free(used);
    an->bins = keep;
    an->nbins = n;
    return 0;
}

/* ms_wait_object_fn over the analysis (ud): the data bin of a site context's bin, NULL when
 * the context has none (bin 0: an object of no bin, or a recording before sites had them). */
static const char *site_object(void *ud, uint32_t ctx)
{
    const analysis *an = ud;
    ctx_info key = { .ctx = ctx };
    const ctx_info *c = bsearch(&key, an->ctx, an->nctx, sizeof key, cmp_ctx);
    return c && c->bin_id && c->data < an->m->ndata ? an->m->data[c->data].name : NULL;
}

/* Does any counter or eviction refer to a context the raw file does not describe, or a
 * context to a bin it does not describe? */
static bool needs_unknown(analysis *an)
{
    const ms_raw *raw = an->raw;
    bool miss = false;
    for (size_t i = 0; i < raw->ncounters && !miss; i++)
        miss = find_ctx(an, raw->counters[i].ctx) == &an->ctx[an->nctx];
    for (size_t i = 0; i < raw->nevictions && !miss; i++)
        miss = find_ctx(an, raw->evictions[i].victim_ctx) == &an->ctx[an->nctx] ||
               find_ctx(an, raw->evictions[i].evictor_ctx) == &an->ctx[an->nctx];
    for (size_t i = 0; i < raw->ninvalidations && !miss; i++)
        miss = find_ctx(an, raw->invalidations[i].victim_ctx) == &an->ctx[an->nctx] ||
               find_ctx(an, raw->invalidations[i].inval_ctx) == &an->ctx[an->nctx];
    return miss || an->has_unknown;
}

int ms_analyze(const ms_raw *raw, const ms_analyze_opts *opts, ms_model *out, char *err, size_t errlen)
{
    ms_model_init(out);
    analysis an = { .raw = raw, .m = out };
    char *sym_note = NULL;
    if (fill_metadata(raw, out, err, errlen) != 0 || ms_symbolizer_new(raw, &an.sym, &sym_note, err, errlen) != 0) {
        ms_model_free(out);
        return -1;
    }
    int rc = (!sym_note || add_note(out, "%s", sym_note) == 0) ? 0 : -1;
    free(sym_note);
    /* The data bins' indices are the raw bins' (plus "unknown" last) until finish_order. */
    if (rc == 0) rc = referenced_bins(&an);
    if (rc == 0) rc = resolve_contexts(&an, an.nbins, (uint32_t)an.nbins);
    bool with_unknown = rc == 0 && needs_unknown(&an);
    an.has_unknown = with_unknown;
    if (rc == 0) rc = build_data(&an, with_unknown);
    if (rc == 0) rc = ms_analyze_blocks(raw, an.sym, out);
    if (rc == 0) rc = ms_analyze_calls(raw, an.sym, out);
    if (rc == 0) rc = ms_analyze_waiting(raw, an.sym, out, site_object, &an);
    if (rc == 0) rc = name_code(&an, opts);
    if (rc == 0) rc = build_axes(&an);
    if (rc == 0) {
        an.cell_used = calloc(out->ncells ? out->ncells : 1, sizeof *an.cell_used);
        an.ncap = calloc(out->ncells ? out->ncells : 1, sizeof *an.ncap);
        an.icap = calloc(out->ncells ? out->ncells : 1, sizeof *an.icap);
        rc = an.cell_used && an.ncap && an.icap ? accumulate(&an) : -1;
    }
    if (rc == 0) ms_analyze_fields(out, an.bins, an.nbins, an.sym); /* before the bins move */
    if (rc == 0) rc = finish_order(&an);
    char *lib_note = rc == 0 ? ms_symbolizer_library_note(an.sym) : NULL;
    if (lib_note && add_note(out, "%s", lib_note) != 0) rc = -1;
    free(lib_note);
    char *cover_note = rc == 0 ? ms_uninstrumented_note(raw) : NULL;
    if (cover_note && add_note(out, "%s", cover_note) != 0) rc = -1;
    free(cover_note);
    if (rc == 0 && with_unknown &&
        add_note(out, "some statistics belong to contexts or bins missing from the raw profile: "
                      "counted under \"unknown\"") != 0)
        rc = -1;
    free(an.cell_used);
    free(an.ncap);
    free(an.icap);
    for (size_t i = 0; an.ctx && i <= an.nctx; i++) free(an.ctx[i].code_name);
    free(an.ctx);
    free((void *)an.bins);
    ms_symbolizer_free(an.sym);
    if (rc != 0) {
        ms_model_free(out);
        return oom(err, errlen);
    }
    return 0;
}
