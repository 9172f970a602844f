/* The JSON report, which is also the saved result file (`memspy report` reads it back with
 * json_read.c). Derived numbers (refs, misses, rates, shares, per-bin totals) are written for
 * the convenience of other readers; the reader only uses the primary counters. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_names.h"
#include "report.h"

/* Builder state: any failed allocation or insertion sets `failed`, checked once at the end. */
typedef struct {
    int failed;
    int nlevels;
} json_writer;

static void put(json_writer *w, json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) < 0) w->failed = 1;
}

static void append(json_writer *w, json_t *arr, json_t *value)
{
    if (!value || json_array_append_new(arr, value) < 0) w->failed = 1;
}

static json_t *u64_json(uint64_t v) { return json_integer((json_int_t)v); }

/* A string or JSON null for a NULL pointer. */
static json_t *str_json(const char *s) { return s ? json_string(s) : json_null(); }

static json_t *level_name_json(int level)
{
    char name[16];
    snprintf(name, sizeof name, "L%d", level + 1);
    return json_string(name);
}

static double rate(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0.0; }

static json_t *causes_json(json_writer *w, const ms_level_counters *l)
{
    json_t *o = json_object();
    if (!o) { w->failed = 1; return NULL; }
    for (int k = 0; k < MS_NCAUSES; k++) put(w, o, ms_json_cause_names[k], u64_json(l->cause[k]));
    return o;
}

/* The summary fields every counter-bearing object has (totals, bins, lines), L1 for misses. */
static void put_counter_summary(json_writer *w, json_t *o, const ms_counters *c)
{
    const ms_level_counters *l1 = &c->level[0];
    put(w, o, "refs", u64_json(ms_counters_refs(c)));
    put(w, o, "reads", u64_json(c->reads));
    put(w, o, "writes", u64_json(c->writes));
    put(w, o, "misses", u64_json(ms_counters_misses(c, 0)));
    put(w, o, "read_misses", u64_json(l1->read_misses));
    put(w, o, "write_misses", u64_json(l1->write_misses));
    put(w, o, "miss_rate", json_real(rate(ms_counters_misses(c, 0), ms_counters_refs(c))));
    put(w, o, "causes", causes_json(w, l1));
    put(w, o, "stall_cycles", u64_json(ms_counters_stall(c)));
    put(w, o, "stall_read", u64_json(c->stall_read));
    put(w, o, "stall_write", u64_json(c->stall_write));
}

static json_t *evictors_json(json_writer *w, const ms_cell *cell, int level)
{
    json_t *arr = json_array();
    ms_evictor *sel = malloc((cell->nevicted_by ? cell->nevicted_by : 1) * sizeof *sel);
    if (!arr || !sel) {
        free(sel);
        json_decref(arr);
        w->failed = 1;
        return NULL;
    }
    size_t n = 0;
    for (size_t i = 0; i < cell->nevicted_by; i++)
        if (cell->evicted_by[i].level == (uint32_t)level) sel[n++] = cell->evicted_by[i];
    qsort(sel, n, sizeof *sel, ms_evictor_order);
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_object();
        if (!e) { w->failed = 1; break; }
        put(w, e, "data", json_integer(sel[i].data));
        put(w, e, "code", json_integer(sel[i].code));
        put(w, e, "count", u64_json(sel[i].count));
        append(w, arr, e);
    }
    free(sel);
    return arr;
}

/* [{level:"L1", misses, read_misses, write_misses, causes, writebacks[, evicted_by]}]. */
static json_t *levels_json(json_writer *w, const ms_counters *c, const ms_cell *cell)
{
    json_t *arr = json_array();
    if (!arr) { w->failed = 1; return NULL; }
    for (int k = 0; k < w->nlevels; k++) {
        const ms_level_counters *l = &c->level[k];
        json_t *o = json_object();
        if (!o) { w->failed = 1; break; }
        put(w, o, "level", level_name_json(k));
        put(w, o, "misses", u64_json(ms_counters_misses(c, k)));
        put(w, o, "read_misses", u64_json(l->read_misses));
        put(w, o, "write_misses", u64_json(l->write_misses));
        put(w, o, "causes", causes_json(w, l));
        put(w, o, "writebacks", u64_json(l->writebacks));
        if (cell) put(w, o, "evicted_by", evictors_json(w, cell, k));
        append(w, arr, o);
    }
    return arr;
}

static json_t *strings_json(json_writer *w, char *const *v, size_t n)
{
    json_t *arr = json_array();
    if (!arr) { w->failed = 1; return NULL; }
    for (size_t i = 0; i < n; i++) append(w, arr, str_json(v[i]));
    return arr;
}

static json_t *run_json(json_writer *w, const ms_model *m)
{
    json_t *run = json_object(), *ex = json_object();
    if (!run || !ex) {
        json_decref(run);
        json_decref(ex);
        w->failed = 1;
        return NULL;
    }
    put(w, run, "program", str_json(m->program));
    put(w, run, "argv", strings_json(w, m->argv, m->argc > 0 ? (size_t)m->argc : 0));
    put(w, run, "cwd", str_json(m->cwd));
    put(w, run, "time", json_integer(m->time));
    put(w, run, "memspy_version", str_json(m->memspy_version));
    put(w, run, "git_commit", str_json(m->git_commit));
    put(w, run, "pid", json_integer(m->pid));
    put(w, ex, "kind", json_string(m->exit_kind < MS_JSON_NELEM(ms_json_exit_names)
                                       ? ms_json_exit_names[m->exit_kind] : "normal"));
    put(w, ex, "value", json_integer(m->exit_value));
    put(w, run, "exit", ex);
    put(w, run, "incomplete", json_boolean(m->incomplete));
    put(w, run, "incomplete_reason", str_json(m->incomplete_reason));
    put(w, run, "wall_seconds", json_real(m->wall_seconds));
    put(w, run, "notes", strings_json(w, m->notes, m->nnotes));
    return run;
}

static json_t *config_json(json_writer *w, const ms_hier_config *cfg)
{
    json_t *o = json_object(), *levels = json_array();
    if (!o || !levels) {
        json_decref(o);
        json_decref(levels);
        w->failed = 1;
        return NULL;
    }
    put(w, o, "preset", json_string(cfg->preset));
    put(w, o, "mem_latency", json_integer(cfg->mem_latency));
    for (int k = 0; k < w->nlevels; k++) {
        const ms_level_config *l = &cfg->level[k];
        json_t *lo = json_object();
        if (!lo) { w->failed = 1; break; }
        put(w, lo, "name", level_name_json(k));
        put(w, lo, "size", u64_json(l->size));
        put(w, lo, "ways", json_integer(l->ways));
        put(w, lo, "line", json_integer(l->line));
        put(w, lo, "latency", json_integer(l->latency));
        put(w, lo, "policy", json_string((unsigned)l->policy < MS_JSON_NELEM(ms_json_policy_names)
                                             ? ms_json_policy_names[l->policy] : "lru"));
        append(w, levels, lo);
    }
    put(w, o, "levels", levels);
    return o;
}

/* Names of the primary counters, Cachegrind-style, so readers know what every object holds. */
static json_t *events_json(json_writer *w)
{
    static const char *const base[] = { "reads", "writes", "stall_read", "stall_write" };
    static const char *const per_level[] = { "read_misses", "write_misses", "cold", "capacity",
                                             "conflict", "invalidation", "writebacks" };
    json_t *arr = json_array();
    if (!arr) { w->failed = 1; return NULL; }
    for (size_t i = 0; i < MS_JSON_NELEM(base); i++) append(w, arr, json_string(base[i]));
    for (int k = 0; k < w->nlevels; k++) {
        for (size_t i = 0; i < MS_JSON_NELEM(per_level); i++) {
            char name[32];
            snprintf(name, sizeof name, "L%d.%s", k + 1, per_level[i]);
            append(w, arr, json_string(name));
        }
    }
    return arr;
}

static json_t *totals_json(json_writer *w, const ms_model *m)
{
    json_t *o = json_object();
    if (!o) { w->failed = 1; return NULL; }
    put_counter_summary(w, o, &m->totals);
    put(w, o, "levels", levels_json(w, &m->totals, NULL));
    return o;
}

/* Per-bin totals shown next to each bin: refs, L1 misses, stall. */
static void put_bin_totals(json_writer *w, json_t *o, const ms_counters *c)
{
    put(w, o, "refs", u64_json(ms_counters_refs(c)));
    put(w, o, "misses", u64_json(ms_counters_misses(c, 0)));
    put(w, o, "stall_cycles", u64_json(ms_counters_stall(c)));
}

static json_t *code_json(json_writer *w, const ms_model *m)
{
    ms_counters *tot = NULL;
    json_t *arr = json_array();
    if (!arr || ms_model_code_totals(m, &tot) < 0) {
        json_decref(arr);
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->ncode; i++) {
        const ms_code_bin *b = &m->code[i];
        json_t *o = json_object();
        if (!o) { w->failed = 1; break; }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", str_json(b->name));
        put(w, o, "file", str_json(b->file));
        put(w, o, "line", json_integer(b->line));
        put_bin_totals(w, o, &tot[i]);
        append(w, arr, o);
    }
    free(tot);
    return arr;
}

static json_t *data_json(json_writer *w, const ms_model *m)
{
    ms_counters *tot = NULL;
    json_t *arr = json_array();
    if (!arr || ms_model_data_totals(m, &tot) < 0) {
        json_decref(arr);
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->ndata; i++) {
        const ms_data_bin *b = &m->data[i];
        json_t *o = json_object();
        if (!o) { w->failed = 1; break; }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", str_json(b->name));
        put(w, o, "full_name", str_json(b->full_name));
        put(w, o, "kind", json_string((unsigned)b->kind < MS_JSON_NELEM(ms_json_kind_names)
                                          ? ms_json_kind_names[b->kind] : "other"));
        put(w, o, "site", str_json(b->site));
        put(w, o, "objects", u64_json(b->objects));
        put(w, o, "bytes", u64_json(b->bytes));
        put(w, o, "peak_bytes", u64_json(b->peak_bytes));
        put_bin_totals(w, o, &tot[i]);
        append(w, arr, o);
    }
    free(tot);
    return arr;
}

static json_t *bins_json(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) { w->failed = 1; return NULL; }
    uint64_t total_stall = ms_counters_stall(&m->totals);
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        json_t *o = json_object();
        if (!o) { w->failed = 1; break; }
        put(w, o, "code", json_integer(cell->code));
        put(w, o, "data", json_integer(cell->data));
        put_counter_summary(w, o, &cell->c);
        put(w, o, "stall_share", json_real(rate(ms_counters_stall(&cell->c), total_stall)));
        put(w, o, "evicted_by", evictors_json(w, cell, 0));
        put(w, o, "levels", levels_json(w, &cell->c, cell));
        append(w, arr, o);
    }
    return arr;
}

static json_t *lines_json(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) { w->failed = 1; return NULL; }
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *ls = &m->lines[i];
        json_t *o = json_object();
        if (!o) { w->failed = 1; break; }
        put(w, o, "file", json_integer(ls->file));
        put(w, o, "line", json_integer(ls->line));
        put(w, o, "code", json_integer(ls->code));
        put(w, o, "data", json_integer(ls->data));
        put_counter_summary(w, o, &ls->c);
        put(w, o, "levels", levels_json(w, &ls->c, NULL));
        append(w, arr, o);
    }
    return arr;
}

int ms_json_write(FILE *out, const ms_model *m)
{
    json_writer w = { 0, m->config.nlevels };
    if (w.nlevels < 0) w.nlevels = 0;
    if (w.nlevels > MS_MAX_LEVELS) w.nlevels = MS_MAX_LEVELS;

    json_t *root = json_object();
    if (!root) return -1;
    put(&w, root, "format", json_string(MS_MODEL_FORMAT));
    put(&w, root, "version", json_integer(MS_MODEL_VERSION));
    put(&w, root, "run", run_json(&w, m));
    put(&w, root, "config", config_json(&w, &m->config));
    put(&w, root, "events", events_json(&w));
    put(&w, root, "totals", totals_json(&w, m));
    put(&w, root, "code", code_json(&w, m));
    put(&w, root, "data", data_json(&w, m));
    put(&w, root, "bins", bins_json(&w, m));
    put(&w, root, "files", strings_json(&w, m->files, m->nfiles));
    put(&w, root, "lines", lines_json(&w, m));

    int rc = -1;
    if (!w.failed && json_dumpf(root, out, JSON_INDENT(1) | JSON_PRESERVE_ORDER) == 0 &&
        fputc('\n', out) != EOF && !ferror(out))
        rc = 0;
    json_decref(root);
    return rc;
}
