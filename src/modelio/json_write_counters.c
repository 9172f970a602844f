/* The JSON result's counter objects: the summary fields of every counter-bearing object, the
 * per-level counters with their evictors, invalidation and access-pattern counters. */
#include "json_write_internal.h"

#include <stdlib.h>

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
void jw_put_counter_summary(json_writer *w, json_t *o, const ms_counters *c)
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

json_t *jw_evictors(json_writer *w, const ms_cell *cell, int level)
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
json_t *jw_levels(json_writer *w, const ms_counters *c, const ms_cell *cell)
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
        if (cell) put(w, o, "evicted_by", jw_evictors(w, cell, k));
        append(w, arr, o);
    }
    return arr;
}

/* Per-bin totals shown next to each bin: refs, L1 misses, stall. */
void jw_put_bin_totals(json_writer *w, json_t *o, const ms_counters *c)
{
    put(w, o, "refs", u64_json(ms_counters_refs(c)));
    put(w, o, "misses", u64_json(ms_counters_misses(c, 0)));
    put(w, o, "stall_cycles", u64_json(ms_counters_stall(c)));
    put_spatial(w, o, c);
}

/* The primary counters of a processor or reference row, as in totals. */
json_t *jw_counters(json_writer *w, const ms_counters *c)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    jw_put_counter_summary(w, o, c);
    put(w, o, "levels", jw_levels(w, c, NULL));
    return o;
}
