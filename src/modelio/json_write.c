/* The JSON report, which is also the saved result file (`memspy report` reads it back with
 * json_read.c). Derived numbers (refs, misses, rates, shares, per-bin totals) are written for
 * the convenience of other readers; the reader only uses the primary counters. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_names.h"
#include "mtool_json.h"
#include "modelio.h"
#include "strtab.h"

/* Builder state: any failed allocation or insertion sets `failed`, checked once at the end. */
typedef struct {
    ms_strtab tab; /* "names": each block's and loop's function and file (every name when stored), once */
    int stored;    /* the stored form (version 4): every name through tab, no indentation */
    int failed;
    int nlevels;
    int multiproc; /* nprocs > 1: counters objects carry the coherence fields */
    int spatial;   /* the run kept spatial utilisation (config.utilisation): its fields */
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

static json_t *name_json(json_writer *w, const char *s);

/* A name (a function, a file, a bin): inline in the report, an index into "names" when stored. */
static json_t *text_json(json_writer *w, const char *s) { return w->stored ? name_json(w, s) : str_json(s); }

/* A data bin's full name, its call path: when stored, its frames' pieces as indices. */
static json_t *path_json(json_writer *w, const char *s)
{
    if (!w->stored) return str_json(s);
    json_t *v = ms_strtab_path(&w->tab, s);
    if (w->tab.failed) w->failed = 1;
    return v;
}

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
    if (!o) {
        w->failed = 1;
        return NULL;
    }
    for (int k = 0; k < MS_NCAUSES; k++) put(w, o, ms_json_cause_names[k], u64_json(l->cause[k]));
    return o;
}

static json_t *new_object(json_writer *w)
{
    json_t *o = json_object();
    if (!o) w->failed = 1;
    return o;
}

static json_t *new_array(json_writer *w)
{
    json_t *a = json_array();
    if (!a) w->failed = 1;
    return a;
}

/* {received, true_in, true_across, false_in, false_across, with_lock, followed_by_miss, sent}:
 * the primary invalidation counters (json_read.c reads them back). */
static json_t *inval_counters_json(json_writer *w, const ms_inval_counters *v)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    for (size_t i = 0; i < MS_JSON_NELEM(ms_json_inval_fields); i++) {
        const ms_json_field *f = &ms_json_inval_fields[i];
        put(w, o, f->name, u64_json(ms_json_inval_value(v, f)));
    }
    return o;
}

/* {"single-producer/single-consumer": misses, ...}: communication misses per pattern. */
static json_t *pattern_counts_json(json_writer *w, const ms_counters *c)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    for (int p = 0; p < MS_NPATTERNS; p++) put(w, o, ms_pattern_name(p), u64_json(c->pattern[p]));
    return o;
}

/* The coherence fields of a counters object of a multiprocessor run. */
static void put_coherence(json_writer *w, json_t *o, const ms_counters *c)
{
    if (!w->multiproc) return;
    put(w, o, "coherence_misses", u64_json(ms_counters_coherence_misses(c)));
    put(w, o, "inval", inval_counters_json(w, &c->inval));
#define MS_MP_COUNTER(member) put(w, o, #member, u64_json(c->member));
#include "../sim/counters.def"
    put(w, o, "patterns", pattern_counts_json(w, c));
}

/* Spatial utilisation of L1 (counters.def): the bytes fetched and used, and their ratio
 * (only where the run kept them: `--utilisation`). */
static void put_spatial(json_writer *w, json_t *o, const ms_counters *c)
{
    if (!w->spatial) return;
#define MS_SPATIAL_COUNTER(member) put(w, o, #member, u64_json(c->member));
#include "../sim/counters.def"
    put(w, o, "utilisation", json_real(ms_counters_utilisation(c)));
}

/* The summary fields every counter-bearing object has (totals, bins, lines), L1 for misses:
 * the primary counters of counters.def, each after its export column's derived total. */
static void put_counter_summary(json_writer *w, json_t *o, const ms_counters *c)
{
    const ms_level_counters *l1 = &c->level[0];
    put(w, o, "refs", u64_json(ms_counters_refs(c)));
#define MS_COUNTER(member, exp, csv, event, desc) \
    if (MS_EXP_##exp == MS_EXP_HEAD) put(w, o, #member, u64_json(c->member));
#include "../sim/counters.def"
    put(w, o, "misses", u64_json(ms_counters_misses(c, 0)));
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) \
    if (MS_EXP_##exp == MS_EXP_MISSES) put(w, o, #member, u64_json(l1->member));
#include "../sim/counters.def"
    put(w, o, "miss_rate", json_real(rate(ms_counters_misses(c, 0), ms_counters_refs(c))));
    put(w, o, "causes", causes_json(w, l1));
    put(w, o, "stall_cycles", u64_json(ms_counters_stall(c)));
#define MS_COUNTER(member, exp, csv, event, desc) \
    if (MS_EXP_##exp == MS_EXP_TAIL) put(w, o, #member, u64_json(c->member));
#include "../sim/counters.def"
    put_spatial(w, o, c);
    put_coherence(w, o, c);
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
        if (!e) {
            w->failed = 1;
            break;
        }
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
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (int k = 0; k < w->nlevels; k++) {
        const ms_level_counters *l = &c->level[k];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "level", level_name_json(k));
        put(w, o, "misses", u64_json(ms_counters_misses(c, k)));
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) put(w, o, #member, u64_json(l->member));
#define MS_LEVEL_CAUSES put(w, o, "causes", causes_json(w, l));
#include "../sim/counters.def"
        if (cell) put(w, o, "evicted_by", evictors_json(w, cell, k));
        append(w, arr, o);
    }
    return arr;
}

static json_t *strings_json(json_writer *w, char *const *v, size_t n)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
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
    if (m->origin) put(w, run, "origin", json_string(m->origin));
    put(w, run, "pid", json_integer(m->pid));
    put(w, ex, "kind",
        json_string(m->exit_kind < MS_JSON_NELEM(ms_json_exit_names) ? ms_json_exit_names[m->exit_kind] : "normal"));
    put(w, ex, "value", json_integer(m->exit_value));
    put(w, run, "exit", ex);
    put(w, run, "incomplete", json_boolean(m->incomplete));
    put(w, run, "incomplete_reason", str_json(m->incomplete_reason));
    put(w, run, "wall_seconds", json_real(m->wall_seconds));
    put(w, run, "notes", strings_json(w, m->notes, m->nnotes));
    put(w, run, "parent_run", m->parent_run > 0 ? json_integer(m->parent_run) : json_null());
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
        if (!lo) {
            w->failed = 1;
            break;
        }
        put(w, lo, "name", level_name_json(k));
        put(w, lo, "size", u64_json(l->size));
        put(w, lo, "ways", json_integer(l->ways));
        put(w, lo, "line", json_integer(l->line));
        put(w, lo, "latency", json_integer(l->latency));
        put(w, lo, "policy",
            json_string((unsigned)l->policy < MS_JSON_NELEM(ms_json_policy_names) ? ms_json_policy_names[l->policy]
                                                                                  : "lru"));
        append(w, levels, lo);
    }
    put(w, o, "levels", levels);
    if (cfg->utilisation) put(w, o, "utilisation", json_true()); /* --utilisation */
    if (w->multiproc || cfg->nprocs > 1) {
        put(w, o, "nprocs", json_integer(cfg->nprocs));
        put(w, o, "shared_from", json_integer(cfg->shared_from));
        put(w, o, "coherence_unit", json_integer(cfg->coherence_unit));
        put(w, o, "protocol",
            json_string((unsigned)cfg->protocol < MS_JSON_NELEM(ms_json_protocol_names)
                            ? ms_json_protocol_names[cfg->protocol]
                            : "mesi"));
        put(w, o, "nodes", json_integer(cfg->nnodes));
        put(w, o, "remote_latency", json_integer(cfg->remote_latency));
    }
    return o;
}

/* Names of the primary counters (counters.def), Cachegrind-style, so readers know what every
 * object holds. */
static json_t *events_json(json_writer *w)
{
    json_t *arr = json_array();
    char name[64];
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
#define MS_COUNTER(member, exp, csv, event, desc) append(w, arr, json_string(#member));
#include "../sim/counters.def"
    for (int k = 0; k < w->nlevels; k++) {
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) \
    snprintf(name, sizeof name, "L%d.%s", k + 1, #member), append(w, arr, json_string(name));
#define MS_LEVEL_CAUSES                  \
    for (int q = 0; q < MS_NCAUSES; q++) \
        snprintf(name, sizeof name, "L%d.%s", k + 1, ms_json_cause_names[q]), append(w, arr, json_string(name));
#include "../sim/counters.def"
    }
    if (w->multiproc) {
#define MS_INVAL_COUNTER(member) append(w, arr, json_string("inval." #member));
#define MS_MP_COUNTER(member) append(w, arr, json_string(#member));
#include "../sim/counters.def"
        for (int p = 0; p < MS_NPATTERNS; p++) {
            snprintf(name, sizeof name, "patterns.%s", ms_pattern_name(p));
            append(w, arr, json_string(name));
        }
    }
    return arr;
}

static json_t *totals_json(json_writer *w, const ms_model *m)
{
    json_t *o = json_object();
    if (!o) {
        w->failed = 1;
        return NULL;
    }
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
    put_spatial(w, o, c);
}

/* ---- multiprocessor runs: invalidations, processors, references, access patterns ---- */

/* The classes of received invalidations (derived): true/false sharing, in/across region,
 * with lock, followed by a miss; with the four exclusive classes too when `detailed`. */
static json_t *inval_classes_json(json_writer *w, const ms_inval_counters *v, int detailed)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    put(w, o, "true_sharing", u64_json(v->true_in + v->true_across));
    put(w, o, "false_sharing", u64_json(v->false_in + v->false_across));
    put(w, o, "in_region", u64_json(v->true_in + v->false_in));
    put(w, o, "across_region", u64_json(v->true_across + v->false_across));
    put(w, o, "with_lock", u64_json(v->with_lock));
    put(w, o, "followed_by_miss", u64_json(v->followed_by_miss));
    if (detailed) {
        put(w, o, "true_in", u64_json(v->true_in));
        put(w, o, "true_across", u64_json(v->true_across));
        put(w, o, "false_in", u64_json(v->false_in));
        put(w, o, "false_across", u64_json(v->false_across));
    }
    return o;
}

/* Invalidation classes plus "by": [{code, data, cpu, count}], the causes of invalidations. */
static json_t *invalidations_json(json_writer *w, const ms_inval_counters *v, const ms_invalidator *by, size_t n)
{
    json_t *o = inval_classes_json(w, v, 0), *arr = new_array(w);
    for (size_t i = 0; arr && i < n; i++) {
        json_t *e = new_object(w);
        if (!e) break;
        put(w, e, "code", json_integer(by[i].code));
        put(w, e, "data", json_integer(by[i].data));
        put(w, e, "cpu", json_integer(by[i].cpu));
        put(w, e, "count", u64_json(by[i].count));
        append(w, arr, e);
    }
    if (o)
        put(w, o, "by", arr);
    else
        json_decref(arr);
    return o;
}

/* Per data bin, the sum of its cells' invalidations and merged causes. */
static void put_data_invalidations(json_writer *w, json_t *o, const ms_model *m, uint32_t data)
{
    ms_selection_sum sel;
    if (ms_model_sum(m, NULL, 0, &data, 1, &sel) < 0) {
        w->failed = 1;
        return;
    }
    put(w, o, "invalidations", invalidations_json(w, &sel.c.inval, sel.inval_by, sel.ninval_by));
    ms_selection_sum_free(&sel);
}

/* The primary counters of a processor or reference row, as in totals. */
static json_t *counters_json(json_writer *w, const ms_counters *c)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    put_counter_summary(w, o, c);
    put(w, o, "levels", levels_json(w, c, NULL));
    return o;
}

/* {uniprocessor, coherence} misses at L1 and, in "levels", at every level: a coherence miss
 * is one whose cause is an invalidation, every other miss would also happen on one processor. */
static json_t *miss_split_json(json_writer *w, const ms_counters *c)
{
    json_t *o = new_object(w), *levels = new_array(w);
    for (int k = 0; o && levels && k < w->nlevels; k++) {
        json_t *lo = new_object(w);
        if (!lo) break;
        uint64_t coh = c->level[k].cause[MS_CAUSE_INVAL];
        put(w, lo, "level", level_name_json(k));
        put(w, lo, "uniprocessor", u64_json(ms_counters_misses(c, k) - coh));
        put(w, lo, "coherence", u64_json(coh));
        append(w, levels, lo);
    }
    if (!o) {
        json_decref(levels);
        return NULL;
    }
    uint64_t coh = ms_counters_l1_coherence(c);
    put(w, o, "uniprocessor", u64_json(ms_counters_misses(c, 0) - coh));
    put(w, o, "coherence", u64_json(coh));
    put(w, o, "levels", levels);
    return o;
}

static json_t *threads_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nprocs_stat; i++) {
        const ms_proc_stat *p = &m->procs[i];
        json_t *o = new_object(w), *th = new_array(w);
        if (!o || !th) {
            json_decref(o);
            json_decref(th);
            break;
        }
        for (size_t t = 0; t < p->nthreads; t++) append(w, th, json_integer(p->threads[t]));
        put(w, o, "cpu", json_integer(p->cpu));
        put(w, o, "threads", th);
        put(w, o, "wait_turns", u64_json(p->wait_turns));
        put(w, o, "references", u64_json(ms_counters_refs(&p->c)));
        put(w, o, "misses", miss_split_json(w, &p->c));
        put(w, o, "invalidations", inval_classes_json(w, &p->c.inval, 1));
        put(w, o, "counters", counters_json(w, &p->c));
        append(w, arr, o);
    }
    return arr;
}

/* "nbf.c:141": the basename of the file and the line. */
static json_t *location_json(const char *file, int line)
{
    const char *base = file ? strrchr(file, '/') : NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "%s:%d", base ? base + 1 : file ? file : "??", line);
    return json_string(buf);
}

static json_t *references_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nrefs; i++) {
        const ms_reference_stat *r = &m->refs[i];
        const char *file = r->file < m->nfiles ? m->files[r->file] : NULL;
        const ms_inval_counters *v = &r->c.inval;
        uint64_t refs = ms_counters_refs(&r->c), misses = ms_counters_misses(&r->c, 0);
        uint64_t coh = ms_counters_l1_coherence(&r->c); /* at L1, like misses */
        json_t *o = new_object(w), *inv = new_object(w);
        if (!o || !inv) {
            json_decref(o);
            json_decref(inv);
            break;
        }
        put(w, o, "function", text_json(w, r->code < m->ncode ? m->code[r->code].name : NULL));
        put(w, o, "code", json_integer(r->code));
        put(w, o, "file", text_json(w, file));
        put(w, o, "line", json_integer(r->line));
        put(w, o, "location", location_json(file, r->line));
        put(w, o, "kind",
            json_string((unsigned)r->kind < MS_JSON_NELEM(ms_json_ref_kind_names) ? ms_json_ref_kind_names[r->kind]
                                                                                  : "Read"));
        put(w, o, "data", json_integer(r->data));
        put(w, o, "data_name", text_json(w, r->data < m->ndata ? m->data[r->data].name : NULL));
        put(w, o, "cpu", json_integer(r->cpu));
        put(w, o, "references", u64_json(refs));
        put(w, o, "misses", u64_json(misses));
        put(w, o, "miss_ratio", json_real(rate(misses, refs)));
        put(w, o, "coherence_misses", u64_json(coh));
        put(w, o, "coherence_pct", json_real(100.0 * rate(coh, misses)));
        put(w, inv, "total", u64_json(v->received));
        put(w, inv, "true_in", u64_json(v->true_in));
        put(w, inv, "true_across", u64_json(v->true_across));
        put(w, inv, "false_in", u64_json(v->false_in));
        put(w, inv, "false_across", u64_json(v->false_across));
        put(w, o, "invalidations", inv);
        put(w, o, "counters", counters_json(w, &r->c));
        append(w, arr, o);
    }
    return arr;
}

/* Per data bin with communication misses (tot: the data bins' totals): the share of them
 * each access pattern explains. */
static json_t *patterns_json(json_writer *w, const ms_model *m, const ms_counters *tot)
{
    json_t *arr = new_array(w);
    if (!arr) return NULL;
    for (size_t i = 0; i < m->ndata; i++) {
        uint64_t comm = ms_counters_communication(&tot[i]);
        if (comm == 0) continue;
        json_t *o = new_object(w), *pats = new_array(w);
        if (!o || !pats) {
            json_decref(o);
            json_decref(pats);
            break;
        }
        for (int p = 0; p < MS_NPATTERNS; p++) {
            json_t *po = new_object(w);
            if (!po) break;
            put(w, po, "pattern", json_string(ms_pattern_name(p)));
            put(w, po, "misses", u64_json(tot[i].pattern[p]));
            put(w, po, "share", json_real(rate(tot[i].pattern[p], comm)));
            append(w, pats, po);
        }
        put(w, o, "data", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, m->data[i].name));
        put(w, o, "communication_misses", u64_json(comm));
        put(w, o, "patterns", pats);
        append(w, arr, o);
    }
    return arr;
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
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, b->name));
        put(w, o, "file", text_json(w, b->file));
        put(w, o, "line", json_integer(b->line));
        put_bin_totals(w, o, &tot[i]);
        append(w, arr, o);
    }
    free(tot);
    return arr;
}

/* The data bins, with their totals tot. */
static json_t *data_json(json_writer *w, const ms_model *m, const ms_counters *tot)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->ndata; i++) {
        const ms_data_bin *b = &m->data[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, b->name));
        put(w, o, "full_name", path_json(w, b->full_name));
        put(w, o, "kind",
            json_string((unsigned)b->kind < MS_JSON_NELEM(ms_json_kind_names) ? ms_json_kind_names[b->kind] : "other"));
        put(w, o, "site", text_json(w, b->site));
        put(w, o, "objects", u64_json(b->objects));
        put(w, o, "bytes", u64_json(b->bytes));
        put(w, o, "peak_bytes", u64_json(b->peak_bytes));
        if (b->row_bytes || b->row_none) { /* a matrix's rows (the advice's pad), bytes 0: none */
            json_t *row = json_object();
            if (!row) w->failed = 1;
            put(w, row, "bytes", u64_json(b->row_bytes));
            put(w, row, "width", u64_json(b->row_width));
            put(w, row, "pad", u64_json(b->row_pad));
            put(w, row, "pad_stall", u64_json(b->row_pad_stall));
            put(w, row, "pads_tried", u64_json(b->row_pads_tried));
            put(w, o, "row", row);
        }
        put_bin_totals(w, o, &tot[i]);
        if (w->multiproc) put_data_invalidations(w, o, m, (uint32_t)i);
        append(w, arr, o);
    }
    return arr;
}

static json_t *bins_json(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    uint64_t total_stall = ms_counters_stall(&m->totals);
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "code", json_integer(cell->code));
        put(w, o, "data", json_integer(cell->data));
        put_counter_summary(w, o, &cell->c);
        put(w, o, "stall_share", json_real(rate(ms_counters_stall(&cell->c), total_stall)));
        if (cell->fields[0]) put(w, o, "fields", json_string(cell->fields));
        put(w, o, "evicted_by", evictors_json(w, cell, 0));
        put(w, o, "levels", levels_json(w, &cell->c, cell));
        if (w->multiproc)
            put(w, o, "invalidations", invalidations_json(w, &cell->c.inval, cell->inval_by, cell->ninval_by));
        append(w, arr, o);
    }
    return arr;
}

static json_t *lines_json(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *ls = &m->lines[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
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

/* The headline: [{kind, share, code, data, code_name, data_name, cause, evictor, file, line,
 * end_line, evidence, text, advice, whatif}] (evictor, file and lines null where unknown;
 * whatif, the command predicting a layout fix, null for other advice). */
static json_t *findings_json(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->nfindings; i++) {
        const ms_finding *f = &m->findings[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        int lines = f->first_line > 0 && f->file < m->nfiles;
        put(w, o, "kind", json_string(ms_finding_kind_name(f->kind)));
        put(w, o, "share", json_real(f->share));
        put(w, o, "code", json_integer(f->code));
        put(w, o, "data", json_integer(f->data));
        put(w, o, "code_name", text_json(w, f->code < m->ncode ? m->code[f->code].name : NULL));
        put(w, o, "data_name", text_json(w, f->data < m->ndata ? m->data[f->data].name : NULL));
        put(w, o, "cause", json_string(f->cause >= 0 && f->cause < MS_NCAUSES ? ms_json_cause_names[f->cause] : "?"));
        put(w, o, "evictor", f->evictor >= 0 ? json_integer(f->evictor) : json_null());
        put(w, o, "file", lines ? text_json(w, m->files[f->file]) : json_null());
        put(w, o, "line", lines ? json_integer(f->first_line) : json_null());
        put(w, o, "end_line", lines ? json_integer(f->last_line) : json_null());
        put(w, o, "evidence", json_real(f->evidence));
        put(w, o, "text", json_string(f->text));
        put(w, o, "advice", f->advice[0] ? json_string(f->advice) : json_null());
        put(w, o, "whatif", f->whatif[0] ? json_string(f->whatif) : json_null());
        append(w, arr, o);
    }
    return arr;
}

/* An index into another array of the model, null for none (UINT32_MAX). */
static json_t *index_json(uint32_t i) { return i == UINT32_MAX ? json_null() : json_integer(i); }

/* s as its index in the "names" table (added on first use), null for NULL: a C++ function
 * name repeated by every block and loop of the function is written once. */
static json_t *name_json(json_writer *w, const char *s)
{
    json_t *v = ms_strtab_ref(&w->tab, s);
    if (w->tab.failed) w->failed = 1;
    return v;
}

/* "blocks": one object per basic block, in the raw file's id order. */
static json_t *blocks_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nblocks; i++) {
        const ms_block_stat *b = &m->blocks[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, b->function));
        put(w, o, "file", name_json(w, b->file));
        put(w, o, "line", json_integer(b->line));
        put(w, o, "end_line", json_integer(b->end_line));
        put(w, o, "loop", index_json(b->loop));
        put(w, o, "memops", json_integer(b->memops));
        put(w, o, "stmts", json_integer(b->stmts));
        put(w, o, "count", u64_json(b->count));
        append(w, arr, o);
    }
    return arr;
}

/* "calls": the call edges between functions (function and file names from "names"). */
static json_t *calls_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->ncalls; i++) {
        const ms_call_stat *c = &m->calls[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "caller", name_json(w, c->caller));
        put(w, o, "callee", name_json(w, c->callee));
        put(w, o, "caller_file", name_json(w, c->caller_file));
        put(w, o, "callee_file", name_json(w, c->callee_file));
        put(w, o, "line", json_integer(c->line));
        put(w, o, "callee_line", json_integer(c->callee_line));
        put(w, o, "count", u64_json(c->count));
        append(w, arr, o);
    }
    return arr;
}

/* "code_parts": each code bin's share per function compiled, with the counters of a line. */
static json_t *parts_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nparts; i++) {
        const ms_code_part *p = &m->parts[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, p->function));
        put(w, o, "file", name_json(w, p->file));
        put(w, o, "code", json_integer(p->code));
        put_counter_summary(w, o, &p->c);
        put(w, o, "levels", levels_json(w, &p->c, NULL));
        append(w, arr, o);
    }
    return arr;
}

/* "loops": one object per natural loop, in the raw file's id order (parents first within a
 * function). */
static json_t *loops_json(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nloops; i++) {
        const ms_loop_stat *l = &m->loops[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, l->function));
        put(w, o, "file", name_json(w, l->file));
        put(w, o, "line", json_integer(l->line));
        put(w, o, "end_line", json_integer(l->end_line));
        put(w, o, "parent", index_json(l->parent));
        put(w, o, "depth", json_integer(l->depth));
        put(w, o, "header", index_json(l->header));
        put(w, o, "iterations", u64_json(l->iterations));
        append(w, arr, o);
    }
    return arr;
}

/* "waiting": the timed replay's waiting-time analysis (Carnival's WT Map): total waiting,
 * every processor's time by kind, and per synchronisation point its waiting, share, classes
 * and explanation. */
static json_t *waiting_json(json_writer *w, const ms_model *m)
{
    const ms_waiting *wt = &m->waiting;
    json_t *o = new_object(w), *prof = new_array(w), *srcs = new_array(w);
    if (!o || !prof || !srcs) {
        json_decref(o);
        json_decref(prof);
        json_decref(srcs);
        return NULL;
    }
    put(w, o, "total_cycles", u64_json(wt->total_cycles));
    put(w, o, "approximate", json_boolean(wt->approximate));
    put(w, o, "work_cost", str_json(wt->work_cost));
    for (size_t i = 0; i < wt->nprofile; i++) {
        const ms_wait_profile *p = &wt->profile[i];
        json_t *e = new_object(w);
        if (!e) break;
        put(w, e, "cpu", json_integer(p->cpu));
        put(w, e, "compute", u64_json(p->compute));
        put(w, e, "stall", u64_json(p->stall));
        put(w, e, "waiting", u64_json(p->waiting));
        put(w, e, "sync", u64_json(p->sync));
        append(w, prof, e);
    }
    for (size_t i = 0; i < wt->nsources; i++) {
        const ms_wait_source *src = &wt->sources[i];
        json_t *e = new_object(w), *cls = new_object(w), *ex = new_array(w);
        if (!e || !cls || !ex) {
            json_decref(e);
            json_decref(cls);
            json_decref(ex);
            break;
        }
        put(w, e, "kind", str_json(src->kind));
        put(w, e, "function", text_json(w, src->function));
        put(w, e, "file", text_json(w, src->file));
        put(w, e, "line", json_integer(src->line));
        put(w, e, "object", u64_json(src->object));
        put(w, e, "instances", u64_json(src->instances));
        put(w, e, "cycles", u64_json(src->cycles));
        put(w, e, "share", json_real(rate(src->cycles, wt->total_cycles)));
        for (int c = 0; c < MS_WAITCLASSES; c++) put(w, cls, ms_waitclass_name(c), u64_json(src->classes[c]));
        put(w, e, "classes", cls);
        put(w, e, "extra_stall", u64_json(src->extra_stall));
        for (size_t j = 0; j < src->nexplanation; j++) {
            const ms_wait_explanation *x = &src->explanation[j];
            json_t *xe = new_object(w);
            if (!xe) break;
            put(w, xe, "function", text_json(w, x->function));
            put(w, xe, "file", text_json(w, x->file));
            put(w, xe, "line", json_integer(x->line));
            put(w, xe, "loop", text_json(w, x->loop));
            put(w, xe, "extra_count", u64_json(x->extra_count));
            put(w, xe, "extra_cycles", u64_json(x->extra_cycles));
            put(w, xe, "stall_cycles", u64_json(x->stall_cycles));
            append(w, ex, xe);
        }
        put(w, e, "explanation", ex);
        json_t *pa = new_array(w);
        for (size_t j = 0; pa && j < src->npaths; j++) {
            const ms_wait_path *q = &src->paths[j];
            json_t *pe = new_object(w);
            if (!pe) break;
            put(w, pe, "instances", u64_json(q->instances));
            put(w, pe, "cycles", u64_json(q->cycles));
            put(w, pe, "share", json_real(rate(q->cycles, src->cycles)));
            put(w, pe, "function", text_json(w, q->function));
            put(w, pe, "file", text_json(w, q->file));
            put(w, pe, "line", json_integer(q->line));
            put(w, pe, "loop", text_json(w, q->loop));
            append(w, pa, pe);
        }
        put(w, e, "paths", pa);
        append(w, srcs, e);
    }
    put(w, o, "profile", prof);
    put(w, o, "sources", srcs);
    return o;
}

/* The model's "files": inline, or as indices into "names" when stored. */
static json_t *files_json(json_writer *w, const ms_model *m)
{
    if (!w->stored) return strings_json(w, m->files, m->nfiles);
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nfiles; i++) append(w, arr, text_json(w, m->files[i]));
    return arr;
}

/* The result file: the report form (stored 0: version 3, names inline, indented) or the
 * stored form (version 4: every name once in "names", compact). */
static int write_model(FILE *out, const ms_model *m, int stored)
{
    json_writer w = {
        .stored = stored, .nlevels = m->config.nlevels, .multiproc = m->nprocs > 1, .spatial = m->config.utilisation
    };
    if (w.nlevels < 0) w.nlevels = 0;
    if (w.nlevels > MS_MAX_LEVELS) w.nlevels = MS_MAX_LEVELS;

    ms_counters *data_tot = NULL; /* shared by the data bins and the access patterns */
    json_t *root = json_object();
    if (!root || ms_strtab_init(&w.tab) < 0 || ms_model_data_totals(m, &data_tot) < 0) {
        json_decref(root);
        ms_strtab_free(&w.tab);
        return -1;
    }
    put(&w, root, "format", json_string(MS_MODEL_FORMAT));
    put(&w, root, "version", json_integer(stored ? MS_MODEL_VERSION : MS_MODEL_REPORT_VERSION));
    put(&w, root, "run", run_json(&w, m));
    put(&w, root, "config", config_json(&w, &m->config));
    put(&w, root, "events", events_json(&w));
    put(&w, root, "totals", totals_json(&w, m));
    put(&w, root, "findings", findings_json(&w, m));
    put(&w, root, "code", code_json(&w, m));
    put(&w, root, "data", data_json(&w, m, data_tot));
    put(&w, root, "bins", bins_json(&w, m));
    put(&w, root, "files", files_json(&w, m));
    put(&w, root, "lines", lines_json(&w, m));
    if (w.multiproc) {
        put(&w, root, "nprocs", json_integer(m->nprocs));
        put(&w, root, "interleave", str_json(m->interleave));
        put(&w, root, "threads", threads_json(&w, m));
        put(&w, root, "references", references_json(&w, m));
        put(&w, root, "patterns", patterns_json(&w, m, data_tot));
    }
    if (m->nblocks) {
        put(&w, root, "blocks", blocks_json(&w, m));
        put(&w, root, "loops", loops_json(&w, m));
        if (m->ncalls) {
            put(&w, root, "calls", calls_json(&w, m));
            put(&w, root, "code_parts", parts_json(&w, m));
        }
    }
    /* the table is filled as the fields above are built: written here, read first */
    if (m->nblocks || stored) put(&w, root, "names", json_incref(w.tab.names));
    if (m->waiting.present) put(&w, root, "waiting", waiting_json(&w, m));
    if (m->mtool) put(&w, root, "mtool", ms_mtool_json(m->mtool));
    if (m->ideal_cycles > 0) { /* "estimate": the run's ideal-memory cycles (docs/mtool.md) */
        json_t *e = new_object(&w);
        if (e) {
            put(&w, e, "ideal_cycles", json_real(m->ideal_cycles));
            put(&w, e, "cpu_model", str_json(m->ideal_cpu));
            put(&w, e, "stall_cycles", u64_json(ms_counters_stall(&m->totals)));
        }
        put(&w, root, "estimate", e);
    }

    int rc = -1;
    size_t flags = (stored ? JSON_COMPACT : JSON_INDENT(1)) | JSON_PRESERVE_ORDER;
    if (!w.failed && json_dumpf(root, out, flags) == 0 && fputc('\n', out) != EOF && !ferror(out)) rc = 0;
    json_decref(root);
    ms_strtab_free(&w.tab);
    free(data_tot);
    return rc;
}

int ms_json_write(FILE *out, const ms_model *m) { return write_model(out, m, 0); }

int ms_json_write_stored(FILE *out, const ms_model *m) { return write_model(out, m, 1); }
