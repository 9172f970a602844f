/* State and helpers shared by the parts of the JSON result writer (json_write.c and
 * json_write_*.c, one per group of sections). Internal to src/modelio. */
#ifndef MEMSPY_MODELIO_JSON_WRITE_INTERNAL_H
#define MEMSPY_MODELIO_JSON_WRITE_INTERNAL_H
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "../model/model.h"
#include "json_names.h"
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

/* Add value to obj under key (taking its reference); a failure marks w. */
static inline void put(json_writer *w, json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) < 0) w->failed = 1;
}

/* Append value to arr (taking its reference); a failure marks w. */
static inline void append(json_writer *w, json_t *arr, json_t *value)
{
    if (!value || json_array_append_new(arr, value) < 0) w->failed = 1;
}

/* An unsigned counter. */
static inline json_t *u64_json(uint64_t v) { return json_integer((json_int_t)v); }

/* A string or JSON null for a NULL pointer. */
static inline json_t *str_json(const char *s) { return s ? json_string(s) : json_null(); }

/* s as its index in the "names" table (added on first use), null for NULL: a C++ function
 * name repeated by every block and loop of the function is written once. */
static inline json_t *name_json(json_writer *w, const char *s)
{
    json_t *v = ms_strtab_ref(&w->tab, s);
    if (w->tab.failed) w->failed = 1;
    return v;
}

/* A name (a function, a file, a bin): inline in the report, an index into "names" when stored. */
static inline json_t *text_json(json_writer *w, const char *s) { return w->stored ? name_json(w, s) : str_json(s); }

/* A data bin's full name, its call path: when stored, its frames' pieces as indices. */
static inline json_t *path_json(json_writer *w, const char *s)
{
    if (!w->stored) return str_json(s);
    json_t *v = ms_strtab_path(&w->tab, s);
    if (w->tab.failed) w->failed = 1;
    return v;
}

/* "L1", "L2", ... for level index level. */
static inline json_t *level_name_json(int level)
{
    char name[16];
    snprintf(name, sizeof name, "L%d", level + 1);
    return json_string(name);
}

/* part / whole, 0 for an empty whole. */
static inline double rate(uint64_t part, uint64_t whole) { return whole ? (double)part / (double)whole : 0.0; }

/* A new object; NULL (w marked) when out of memory. */
static inline json_t *new_object(json_writer *w)
{
    json_t *o = json_object();
    if (!o) w->failed = 1;
    return o;
}

/* A new array; NULL (w marked) when out of memory. */
static inline json_t *new_array(json_writer *w)
{
    json_t *a = json_array();
    if (!a) w->failed = 1;
    return a;
}

/* An index into another array of the model, null for none (UINT32_MAX). */
static inline json_t *index_json(uint32_t i) { return i == UINT32_MAX ? json_null() : json_integer(i); }

/* ---- json_write_counters.c ---- */

/* The summary fields every counter-bearing object has (totals, bins, lines, parts), L1 for misses. */
void jw_put_counter_summary(json_writer *w, json_t *o, const ms_counters *c);

/* [{data, code, count}]: the cell's evictors at level, most first. */
json_t *jw_evictors(json_writer *w, const ms_cell *cell, int level);

/* [{level:"L1", misses, read_misses, write_misses, causes, writebacks[, evicted_by]}] (evicted_by when cell). */
json_t *jw_levels(json_writer *w, const ms_counters *c, const ms_cell *cell);

/* Per-bin totals shown next to each bin: refs, L1 misses, stall. */
void jw_put_bin_totals(json_writer *w, json_t *o, const ms_counters *c);

/* The primary counters of a processor or reference row, as in totals. */
json_t *jw_counters(json_writer *w, const ms_counters *c);

/* ---- json_write_mp.c ---- */

/* Invalidation classes plus "by": [{code, data, cpu, count}], the causes of invalidations. */
json_t *jw_invalidations(json_writer *w, const ms_inval_counters *v, const ms_invalidator *by, size_t n);

/* Per data bin, the sum of its cells' invalidations and merged causes, into o. */
void jw_put_data_invalidations(json_writer *w, json_t *o, const ms_model *m, uint32_t data);

/* "threads": per processor, its threads, misses split, invalidations and counters. */
json_t *jw_threads(json_writer *w, const ms_model *m);

/* "references": per (code, line, kind, data, cpu) row, its counters and invalidations. */
json_t *jw_references(json_writer *w, const ms_model *m);

/* "patterns": per data bin with communication misses (tot: the data bins' totals), the share
 * of them each access pattern explains. */
json_t *jw_patterns(json_writer *w, const ms_model *m, const ms_counters *tot);

/* ---- json_write_bins.c ---- */

/* "code": the code bins with their totals. */
json_t *jw_code(json_writer *w, const ms_model *m);

/* "data": the data bins, with their totals tot. */
json_t *jw_data(json_writer *w, const ms_model *m, const ms_counters *tot);

/* "bins": the code x data cells. */
json_t *jw_bins(json_writer *w, const ms_model *m);

/* "lines": the source lines. */
json_t *jw_lines(json_writer *w, const ms_model *m);

/* ---- json_write_blocks.c ---- */

/* "blocks": one object per basic block, in the raw file's id order. */
json_t *jw_blocks(json_writer *w, const ms_model *m);

/* "calls": the call edges between functions. */
json_t *jw_calls(json_writer *w, const ms_model *m);

/* "code_parts": each code bin's share per function compiled. */
json_t *jw_parts(json_writer *w, const ms_model *m);

/* "loops": one object per natural loop. */
json_t *jw_loops(json_writer *w, const ms_model *m);

/* "waiting": the timed replay's waiting-time analysis. */
json_t *jw_waiting(json_writer *w, const ms_model *m);

#endif
