/* Callgrind export (format version 1, see valgrind's "Callgrind Format Specification"), so
 * that KCachegrind/QCachegrind and callgrind_annotate show memspy's per-line statistics: one
 * fl=/fn= block per (source file, code segment) with a cost line per source line, summed over
 * data bins. References without a source line are charged to line 0 of their code segment,
 * so that every function's cost is its code segment's total and the file's total is the
 * run's. Stall is the first event, so that KCachegrind and callgrind_annotate (which sort by
 * the first event unless told otherwise) open sorted by memory stall time. Runs with call
 * edges also get their call graph (cfn=/cfl=/calls=, below). */
#include <stdlib.h>
#include <string.h>

#include "../model/callgraph.h"
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

/* ---- the call graph (runs with call edges) ----
 * Nodes are functions as compiled (a function's code with what was inlined into it). A node's
 * self cost is the sum of its code parts; its calls carry the callees' inclusive costs by
 * gprof's rule (model/callgraph.h), calls inside a recursive cycle none. A node's code parts
 * of code bins other than its own (functions inlined into it, its loop or line bins) are
 * written as calls made once, at the bin's first line, with the part's cost, so that in
 * callgrind_annotate and KCachegrind every inclusive cost is its self cost plus its calls'. */

typedef struct {
    const char *name, *file; /* file: its declaration file, NULL unknown */
    long own;                /* its own code bin (the one named after it), -1 none */
    int line;                /* its first line, 0 unknown */
} cg_node;

static int cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static size_t node_of(const char *const *names, size_t n, const char *name)
{
    const char *const *at = bsearch(&name, names, n, sizeof *names, cmp_str);
    return at ? (size_t)(at - names) : SIZE_MAX;
}

static const char *node_file(const ms_model *m, const cg_node *v)
{
    const char *f = v->own >= 0 ? m->code[v->own].file : v->file;
    return f ? f : UNKNOWN_FILE;
}

/* The functions of the call edges and code parts, sorted by name, with their files, own code
 * bins and first lines. */
static cg_node *call_nodes(const ms_model *m, const char ***names_out, size_t *n_out)
{
    size_t cap = 2 * m->ncalls + m->nparts, n = 0;
    const char **names = malloc((cap ? cap : 1) * sizeof *names);
    cg_node *v = calloc(cap ? cap : 1, sizeof *v);
    if (!names || !v) {
        free((void *)names);
        free(v);
        return NULL;
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        names[n++] = m->calls[i].caller;
        names[n++] = m->calls[i].callee;
    }
    for (size_t i = 0; i < m->nparts; i++) names[n++] = m->parts[i].function;
    qsort(names, n, sizeof *names, cmp_str);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || strcmp(names[k - 1], names[i]) != 0) names[k++] = names[i];
    for (size_t i = 0; i < k; i++) v[i] = (cg_node){ names[i], NULL, -1, 0 };
    for (size_t i = 0; i < m->nparts; i++) {
        cg_node *x = &v[node_of(names, k, m->parts[i].function)];
        if (!x->file) x->file = m->parts[i].file;
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        const ms_call_stat *c = &m->calls[i];
        cg_node *from = &v[node_of(names, k, c->caller)], *to = &v[node_of(names, k, c->callee)];
        if (!from->file) from->file = c->caller_file;
        if (!to->file) to->file = c->callee_file;
        if (!to->line) to->line = c->callee_line;
    }
    for (size_t c = 0; c < m->ncode; c++) { /* the first code bin named after it, in its file */
        const ms_code_bin *b = &m->code[c];
        size_t i = b->name ? node_of(names, k, b->name) : SIZE_MAX;
        if (i == SIZE_MAX || v[i].own >= 0 || (v[i].file && b->file && strcmp(v[i].file, b->file) != 0)) continue;
        v[i].own = (long)c;
        if (b->line > 0) v[i].line = b->line;
    }
    *names_out = names;
    *n_out = k;
    return v;
}

/* "[cfl=FILE\n]cfn=NAME\ncalls=COUNT TARGET\nSITE costs...": cfl= only for a callee in
 * another file than the caller's fl= (callgrind_annotate strips the current directory from
 * fl= names but not from cfl= ones, so a repeated cfl= would name another function there). */
static void put_call(cg_writer *w, const char *from_file, const char *file, const char *name, uint64_t count,
                     int target, int site, const uint64_t *v)
{
    if (strcmp(file, from_file) != 0) fprintf(w->out, "cfl=%s\n", file);
    fprintf(w->out, "cfn=%s\ncalls=%llu %d\n", name, (unsigned long long)count, target);
    put_costs(w, "", site, v);
}

/* Every node's calls: the code parts of other code bins, then the call edges. */
static void put_node_calls(cg_writer *w, const cg_node *nodes, size_t n, const size_t *part_node, const ms_callgraph *g,
                           const uint64_t *edge_cost)
{
    const ms_model *m = w->m;
    uint64_t v[MS_EXPORT_MAX_FIELDS];
    for (size_t i = 0; i < n; i++) {
        const cg_node *x = &nodes[i];
        const char *file = node_file(m, x);
        int head = 0; /* fl= and fn= written */
        for (size_t p = 0; p < m->nparts; p++) {
            const ms_code_part *part = &m->parts[p];
            if ((long)part->code == x->own || part_node[p] != i) continue;
            if (!head++) fprintf(w->out, "\nfl=%s\nfn=%s\n", file, x->name);
            const ms_code_bin *b = &m->code[part->code];
            memset(v, 0, sizeof v);
            add_values(w, v, &part->c);
            int site = b->file && strcmp(b->file, file) == 0 ? b->line : x->line;
            put_call(w, file, b->file ? b->file : UNKNOWN_FILE, code_name(m, part->code), 1, b->line, site, v);
        }
        for (size_t e = g->first[i]; e < g->first[i + 1]; e++) {
            const ms_call_stat *c = &m->calls[g->edges[e].id];
            const cg_node *to = &nodes[g->edges[e].to];
            if (!head++) fprintf(w->out, "\nfl=%s\nfn=%s\n", file, x->name);
            put_call(w, file, node_file(m, to), to->name, c->count, to->line, c->line, edge_cost + e * w->nfields);
        }
    }
}

/* The call graph of a run with call edges (nothing otherwise). Returns 0 or -1. */
static int put_calls(cg_writer *w)
{
    const ms_model *m = w->m;
    if (!m->ncalls) return 0;
    const char **names = NULL;
    size_t n = 0, nf = w->nfields;
    cg_node *nodes = call_nodes(m, &names, &n);
    ms_cg_edge *edges = malloc((m->ncalls ? m->ncalls : 1) * sizeof *edges);
    uint64_t *self = calloc((n ? n : 1) * nf, sizeof *self), *incl = calloc((n ? n : 1) * nf, sizeof *incl);
    uint64_t *edge_cost = calloc(m->ncalls * nf, sizeof *edge_cost);
    size_t *part_node = malloc((m->nparts ? m->nparts : 1) * sizeof *part_node);
    ms_callgraph g = { 0 };
    int rc = -1;
    if (!nodes || !edges || !self || !incl || !edge_cost || !part_node) goto out;
    for (size_t i = 0; i < m->ncalls; i++)
        edges[i] = (ms_cg_edge){ node_of(names, n, m->calls[i].caller), node_of(names, n, m->calls[i].callee),
                                 m->calls[i].count, i };
    for (size_t p = 0; p < m->nparts; p++) {
        part_node[p] = node_of(names, n, m->parts[p].function);
        add_values(w, self + part_node[p] * nf, &m->parts[p].c);
    }
    if (ms_callgraph_build(&g, n, edges, m->ncalls) < 0 || ms_callgraph_inclusive(&g, nf, self, incl, edge_cost) < 0)
        goto out;
    put_node_calls(w, nodes, n, part_node, &g, edge_cost);
    rc = 0;
out:
    ms_callgraph_free(&g);
    free((void *)names);
    free(nodes);
    free(edges);
    free(self);
    free(incl);
    free(edge_cost);
    free(part_node);
    return rc;
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
        if (rc == 0) rc = put_calls(&w);
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
