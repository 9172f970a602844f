/* Read a result file written by json_write.c back into the model. Only primary counters are
 * read (derived numbers are recomputed), every field is type- and range-checked, and errors
 * name the file and the field: no input may crash the reader. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "json_names.h"
#include "mtool_json.h"
#include "strtab.h"
#include "../sim/config.h"
#include "../util/util.h"
#include "modelio.h"

/* The largest result file read: far above any real run, it stops `memspy report /dev/zero`. */
#define MS_RESULT_MAX_BYTES (256u << 20)

typedef struct {
    const char *file;
    char *err;
    size_t errlen;
    int failed;
    json_t *names;   /* the string table (version 3: blocks' and loops' names; 4: every name), or NULL */
    size_t expanded; /* bytes the table may still expand to: at most what an inline file could hold */
} json_reader;

/* Record the first error only: "FILE: corrupt result file: <what>". */
static int fail(json_reader *r, const char *fmt, ...)
{
    if (r->failed) return -1;
    r->failed = 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(r->err, r->errlen, "%s: corrupt result file: %s", r->file, what);
    return -1;
}

/* Names of nested fields for messages ("bins[3].levels[0]"); long paths are cut short. */
#define FIELD_PATH_LEN 128

static void field_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void field_path(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* "where.key", or "where[i]" when key is an index. */
static const char *joiner(const char *where, const char *key) { return *where && key[0] != '[' ? "." : ""; }

/* The member `key` of obj, or NULL after reporting it missing as where.key. */
static json_t *member(json_reader *r, json_t *obj, const char *where, const char *key)
{
    if (r->failed) return NULL;
    json_t *v = json_is_object(obj) ? json_object_get(obj, key) : NULL;
    if (!v) fail(r, "missing field %s%s%s", where, joiner(where, key), key);
    return v;
}

static int bad_type(json_reader *r, const char *where, const char *key, const char *expected)
{
    return fail(r, "field %s%s%s: expected %s", where, joiner(where, key), key, expected);
}

/* An integer in [lo, hi]. */
static int get_int(json_reader *r, json_t *obj, const char *where, const char *key, json_int_t lo, json_int_t hi,
                   json_int_t *out)
{
    json_t *v = member(r, obj, where, key);
    if (!v) return -1;
    if (!json_is_integer(v)) return bad_type(r, where, key, "an integer");
    json_int_t x = json_integer_value(v);
    if (x < lo || x > hi) return bad_type(r, where, key, "an integer in range");
    *out = x;
    return 0;
}

static int get_u64(json_reader *r, json_t *obj, const char *where, const char *key, uint64_t *out)
{
    json_int_t x = 0;
    if (get_int(r, obj, where, key, 0, LLONG_MAX, &x) < 0) return -1;
    *out = (uint64_t)x;
    return 0;
}

static int get_u32(json_reader *r, json_t *obj, const char *where, const char *key, uint32_t *out)
{
    json_int_t x = 0;
    if (get_int(r, obj, where, key, 0, UINT32_MAX, &x) < 0) return -1;
    *out = (uint32_t)x;
    return 0;
}

static int get_line(json_reader *r, json_t *obj, const char *where, const char *key, int *out)
{
    json_int_t x = 0;
    if (get_int(r, obj, where, key, 0, INT_MAX, &x) < 0) return -1;
    *out = (int)x;
    return 0;
}

/* A copy of a string value (or NULL for JSON null); where the file has a string table, also
 * an index into it, or an array of indices (a call path's pieces), checked and bounded. */
static int string_value(json_reader *r, json_t *v, const char *where, const char *key, char **out)
{
    *out = NULL;
    if (json_is_null(v)) return 0;
    if (r->names && (json_is_integer(v) || json_is_array(v))) {
        char why[128];
        if (ms_strtab_expand(r->names, v, &r->expanded, out, why, sizeof why) == 0) return 0;
        return fail(r, "field %s%s%s: %s", where, joiner(where, key), key, why);
    }
    if (!json_is_string(v))
        return bad_type(r, where, key, r->names ? "a string, an index into names or null" : "a string or null");
    *out = strdup(json_string_value(v));
    if (!*out) return fail(r, "out of memory");
    return 0;
}

static int get_str(json_reader *r, json_t *obj, const char *where, const char *key, char **out)
{
    json_t *v = member(r, obj, where, key);
    *out = NULL;
    if (!v) return -1;
    return string_value(r, v, where, key, out);
}

/* An enum spelled as one of names[0..n). */
static int get_enum(json_reader *r, json_t *obj, const char *where, const char *key, const char *const *names, size_t n,
                    unsigned *out)
{
    json_t *v = member(r, obj, where, key);
    if (!v) return -1;
    const char *s = json_string_value(v);
    for (size_t i = 0; s && i < n; i++) {
        if (strcmp(s, names[i]) == 0) {
            *out = (unsigned)i;
            return 0;
        }
    }
    return bad_type(r, where, key, "a known name");
}

static json_t *get_typed(json_reader *r, json_t *obj, const char *where, const char *key, int want_array)
{
    json_t *v = member(r, obj, where, key);
    if (!v) return NULL;
    if (want_array ? !json_is_array(v) : !json_is_object(v)) {
        bad_type(r, where, key, want_array ? "an array" : "an object");
        return NULL;
    }
    return v;
}

static json_t *get_array(json_reader *r, json_t *obj, const char *where, const char *key)
{
    return get_typed(r, obj, where, key, 1);
}

static json_t *get_object(json_reader *r, json_t *obj, const char *where, const char *key)
{
    return get_typed(r, obj, where, key, 0);
}

/* Allocate n zeroed elements (at least one byte, so that n == 0 is not an error). */
static void *alloc_array(json_reader *r, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) fail(r, "out of memory");
    return p;
}

/* An array of strings (or nulls). */
static int get_strings(json_reader *r, json_t *obj, const char *where, const char *key, char ***out, size_t *n)
{
    json_t *arr = get_array(r, obj, where, key);
    if (!arr) return -1;
    size_t count = json_array_size(arr);
    *out = alloc_array(r, count, sizeof **out);
    if (!*out) return -1;
    *n = count;
    char path[FIELD_PATH_LEN];
    field_path(path, sizeof path, "%s%s%s", where, *where ? "." : "", key);
    for (size_t i = 0; i < count; i++) {
        char idx[32];
        field_path(idx, sizeof idx, "[%zu]", i);
        if (string_value(r, json_array_get(arr, i), path, idx, &(*out)[i]) < 0) return -1;
    }
    return 0;
}

/* ---- counters ---- */

/* Read the primary counters of a totals/bin/line object; evictors too when cell != NULL. */
static int read_counters(json_reader *r, json_t *obj, const char *where, ms_counters *c, const ms_model *m,
                         ms_cell *cell);

static int read_evictors(json_reader *r, json_t *lo, const char *where, uint32_t level, const ms_model *m,
                         ms_cell *cell)
{
    json_t *arr = get_array(r, lo, where, "evicted_by");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (n == 0) return 0;
    ms_evictor *p = realloc(cell->evicted_by, (cell->nevicted_by + n) * sizeof *p);
    if (!p) return fail(r, "out of memory");
    cell->evicted_by = p;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "%s.evicted_by[%zu]", where, i);
        json_t *e = json_array_get(arr, i);
        ms_evictor ev = { 0, 0, level, 0 };
        if (get_u32(r, e, path, "code", &ev.code) < 0 || get_u32(r, e, path, "data", &ev.data) < 0 ||
            get_u64(r, e, path, "count", &ev.count) < 0)
            return -1;
        if (ev.code >= m->ncode) return bad_type(r, path, "code", "a code bin id");
        if (ev.data >= m->ndata) return bad_type(r, path, "data", "a data bin id");
        cell->evicted_by[cell->nevicted_by++] = ev;
    }
    return 0;
}

/* The coherence fields of a multiprocessor run's counters object; absent (all zero) in
 * one-processor runs and in version 1 files. */
static int read_coherence(json_reader *r, json_t *obj, const char *where, ms_counters *c)
{
    json_t *inval = json_object_get(obj, "inval");
    if (!inval) return 0;
    char path[FIELD_PATH_LEN];
    field_path(path, sizeof path, "%s.inval", where);
    ms_inval_counters *v = &c->inval;
    if (!json_is_object(inval)) return bad_type(r, where, "inval", "an object");
    for (size_t i = 0; i < MS_JSON_NELEM(ms_json_inval_fields); i++) {
        const ms_json_field *f = &ms_json_inval_fields[i];
        if (get_u64(r, inval, path, f->name, ms_json_inval_field(v, f)) < 0) return -1;
    }
#define MS_MP_COUNTER(member) \
    if (get_u64(r, obj, where, #member, &c->member) < 0) return -1;
#include "../sim/counters.def"
    json_t *pats = get_object(r, obj, where, "patterns");
    if (!pats) return -1;
    field_path(path, sizeof path, "%s.patterns", where);
    for (int p = 0; p < MS_NPATTERNS; p++)
        if (get_u64(r, pats, path, ms_pattern_name(p), &c->pattern[p]) < 0) return -1;
    return 0;
}

static int read_counters(json_reader *r, json_t *obj, const char *where, ms_counters *c, const ms_model *m,
                         ms_cell *cell)
{
    memset(c, 0, sizeof *c);
    if (read_coherence(r, obj, where, c) < 0) return -1;
#define MS_COUNTER(member, exp, csv, event, desc) \
    if (get_u64(r, obj, where, #member, &c->member) < 0) return -1;
/* Spatial counters: absent from files written before them (then 0). */
#define MS_SPATIAL_COUNTER(member) \
    if (json_object_get(obj, #member) && get_u64(r, obj, where, #member, &c->member) < 0) return -1;
#include "../sim/counters.def"
    json_t *levels = get_array(r, obj, where, "levels");
    if (!levels) return -1;
    if (json_array_size(levels) > MS_MAX_LEVELS)
        return fail(r, "field %s.levels: more than %d levels", where, MS_MAX_LEVELS);
    for (size_t k = 0; k < json_array_size(levels); k++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "%s.levels[%zu]", where, k);
        json_t *lo = json_array_get(levels, k);
        ms_level_counters *l = &c->level[k];
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) \
    if (get_u64(r, lo, path, #member, &l->member) < 0) return -1;
#include "../sim/counters.def"
        char cpath[FIELD_PATH_LEN];
        field_path(cpath, sizeof cpath, "%s.causes", path);
        json_t *causes = get_object(r, lo, path, "causes");
        for (int i = 0; causes && i < MS_NCAUSES; i++)
            if (get_u64(r, causes, cpath, ms_json_cause_names[i], &l->cause[i]) < 0) return -1;
        if (!causes) return -1;
        if (cell && read_evictors(r, lo, path, (uint32_t)k, m, cell) < 0) return -1;
    }
    return 0;
}

/* ---- sections ---- */

static int read_run(json_reader *r, json_t *root, ms_model *m)
{
    json_t *run = get_object(r, root, "", "run");
    if (!run) return -1;
    size_t argc = 0;
    json_int_t time = 0, pid = 0, value = 0;
    unsigned kind = 0;
    json_t *ex = get_object(r, run, "run", "exit");
    json_t *incomplete = member(r, run, "run", "incomplete");
    json_t *wall = member(r, run, "run", "wall_seconds");
    if (get_str(r, run, "run", "program", &m->program) < 0 || get_strings(r, run, "run", "argv", &m->argv, &argc) < 0)
        return -1;
    if (argc > INT_MAX) return bad_type(r, "run", "argv", "a shorter array");
    m->argc = (int)argc;
    if (get_str(r, run, "run", "cwd", &m->cwd) < 0 || get_int(r, run, "run", "time", LLONG_MIN, LLONG_MAX, &time) < 0 ||
        get_str(r, run, "run", "memspy_version", &m->memspy_version) < 0 ||
        get_int(r, run, "run", "pid", 0, UINT32_MAX, &pid) < 0 || !ex ||
        get_enum(r, ex, "run.exit", "kind", ms_json_exit_names, MS_JSON_NELEM(ms_json_exit_names), &kind) < 0 ||
        get_int(r, ex, "run.exit", "value", INT32_MIN, INT32_MAX, &value) < 0 || !incomplete || !wall ||
        get_str(r, run, "run", "incomplete_reason", &m->incomplete_reason) < 0 ||
        get_strings(r, run, "run", "notes", &m->notes, &m->nnotes) < 0)
        return -1;
    /* git_commit came later: absent in older result files. */
    json_t *commit = json_object_get(run, "git_commit");
    if (commit && string_value(r, commit, "run", "git_commit", &m->git_commit) < 0) return -1;
    /* origin (run or resim) came later too */
    json_t *origin = json_object_get(run, "origin");
    if (origin && string_value(r, origin, "run", "origin", &m->origin) < 0) return -1;
    /* parent_run too (null or absent: none). */
    json_t *parent = json_object_get(run, "parent_run");
    if (parent && !json_is_null(parent)) {
        if (!json_is_integer(parent) || json_integer_value(parent) < 1 || json_integer_value(parent) > INT_MAX)
            return bad_type(r, "run", "parent_run", "a run id or null");
        m->parent_run = (int)json_integer_value(parent);
    }
    if (!json_is_boolean(incomplete)) return bad_type(r, "run", "incomplete", "true or false");
    if (!json_is_number(wall)) return bad_type(r, "run", "wall_seconds", "a number");
    m->time = time;
    m->pid = (uint32_t)pid;
    m->exit_kind = kind;
    m->exit_value = (int32_t)value;
    m->incomplete = json_is_true(incomplete);
    m->wall_seconds = json_number_value(wall);
    return 0;
}

/* A hierarchy the simulator could not have run (0-byte lines, a 3-way 32K cache...) is refused. */
static int check_config(json_reader *r, const ms_hier_config *cfg)
{
    char why[256];
    if (ms_config_validate(cfg, why, sizeof why) < 0) return fail(r, "field config: impossible hierarchy: %s", why);
    return 0;
}

static int read_config(json_reader *r, json_t *root, ms_hier_config *cfg)
{
    json_t *co = get_object(r, root, "", "config");
    char *preset = NULL;
    if (!co || get_str(r, co, "config", "preset", &preset) < 0 ||
        get_u32(r, co, "config", "mem_latency", &cfg->mem_latency) < 0) {
        free(preset);
        return -1;
    }
    int bad_preset = preset && strlen(preset) >= sizeof cfg->preset;
    if (preset && !bad_preset) strcpy(cfg->preset, preset);
    free(preset);
    if (bad_preset) return bad_type(r, "config", "preset", "a preset name");
    json_t *levels = get_array(r, co, "config", "levels");
    if (!levels) return -1;
    size_t n = json_array_size(levels);
    if (n < 1 || n > MS_MAX_LEVELS) return bad_type(r, "config", "levels", "1 to 3 levels");
    cfg->nlevels = (int)n;
    for (size_t k = 0; k < n; k++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "config.levels[%zu]", k);
        json_t *lo = json_array_get(levels, k);
        ms_level_config *l = &cfg->level[k];
        unsigned policy = 0;
        if (get_u64(r, lo, path, "size", &l->size) < 0 || get_u32(r, lo, path, "ways", &l->ways) < 0 ||
            get_u32(r, lo, path, "line", &l->line) < 0 || get_u32(r, lo, path, "latency", &l->latency) < 0 ||
            get_enum(r, lo, path, "policy", ms_json_policy_names, MS_JSON_NELEM(ms_json_policy_names), &policy) < 0)
            return -1;
        l->policy = (ms_policy)policy;
    }
    cfg->utilisation = json_is_true(json_object_get(co, "utilisation")); /* absent: off */
    if (!json_object_get(co, "nprocs")) return check_config(r, cfg);     /* one processor, or version 1 */
    unsigned protocol = 0;
    json_int_t shared = 0;
    if (get_u32(r, co, "config", "nprocs", &cfg->nprocs) < 0 ||
        get_int(r, co, "config", "shared_from", 0, MS_MAX_LEVELS, &shared) < 0 ||
        get_u32(r, co, "config", "coherence_unit", &cfg->coherence_unit) < 0 ||
        get_enum(r, co, "config", "protocol", ms_json_protocol_names, MS_JSON_NELEM(ms_json_protocol_names),
                 &protocol) < 0 ||
        get_u32(r, co, "config", "nodes", &cfg->nnodes) < 0 ||
        get_u32(r, co, "config", "remote_latency", &cfg->remote_latency) < 0)
        return -1;
    cfg->shared_from = (int)shared;
    cfg->protocol = (ms_protocol)protocol;
    return check_config(r, cfg);
}

static int read_code(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "code");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->code = alloc_array(r, n, sizeof *m->code))) return -1;
    m->ncode = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "code[%zu]", i);
        json_t *o = json_array_get(arr, i);
        ms_code_bin *b = &m->code[i];
        json_int_t id = 0;
        if (get_int(r, o, path, "id", 0, LLONG_MAX, &id) < 0 || get_str(r, o, path, "name", &b->name) < 0 ||
            get_str(r, o, path, "file", &b->file) < 0 || get_line(r, o, path, "line", &b->line) < 0)
            return -1;
        if ((size_t)id != i) return bad_type(r, path, "id", "its index in the array");
        if (!b->name) return bad_type(r, path, "name", "a string");
    }
    return 0;
}

static int read_data(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "data");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->data = alloc_array(r, n, sizeof *m->data))) return -1;
    m->ndata = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "data[%zu]", i);
        json_t *o = json_array_get(arr, i);
        ms_data_bin *b = &m->data[i];
        json_int_t id = 0;
        unsigned kind = 0;
        if (get_int(r, o, path, "id", 0, LLONG_MAX, &id) < 0 || get_str(r, o, path, "name", &b->name) < 0 ||
            get_str(r, o, path, "full_name", &b->full_name) < 0 ||
            get_enum(r, o, path, "kind", ms_json_kind_names, MS_JSON_NELEM(ms_json_kind_names), &kind) < 0 ||
            get_str(r, o, path, "site", &b->site) < 0 || get_u64(r, o, path, "objects", &b->objects) < 0 ||
            get_u64(r, o, path, "bytes", &b->bytes) < 0 || get_u64(r, o, path, "peak_bytes", &b->peak_bytes) < 0)
            return -1;
        json_t *row = json_object_get(o, "row"); /* optional: a matrix's rows */
        uint32_t tried = 0;
        if (row &&
            (get_u64(r, row, path, "bytes", &b->row_bytes) < 0 || get_u64(r, row, path, "width", &b->row_width) < 0 ||
             get_u64(r, row, path, "pad", &b->row_pad) < 0 ||
             get_u64(r, row, path, "pad_stall", &b->row_pad_stall) < 0 ||
             get_u32(r, row, path, "pads_tried", &tried) < 0))
            return -1;
        b->row_pads_tried = tried;
        b->row_none = row && !b->row_bytes;
        if ((size_t)id != i) return bad_type(r, path, "id", "its index in the array");
        if (!b->name) return bad_type(r, path, "name", "a string");
        b->kind = (ms_bin_kind)kind;
    }
    return 0;
}

/* The code and data bin ids of a cell or line, checked against the bin arrays. */
static int read_bin_ids(json_reader *r, json_t *o, const char *path, const ms_model *m, uint32_t *code, uint32_t *data)
{
    if (get_u32(r, o, path, "code", code) < 0 || get_u32(r, o, path, "data", data) < 0) return -1;
    if (*code >= m->ncode) return bad_type(r, path, "code", "a code bin id");
    if (*data >= m->ndata) return bad_type(r, path, "data", "a data bin id");
    return 0;
}

/* A cell's causes of invalidations ("invalidations.by"), present in multiprocessor runs. */
static int read_invalidators(json_reader *r, json_t *o, const char *where, const ms_model *m, ms_cell *cell)
{
    json_t *inv = json_object_get(o, "invalidations");
    if (!inv) return 0;
    char path[FIELD_PATH_LEN];
    field_path(path, sizeof path, "%s.invalidations", where);
    json_t *arr = get_array(r, inv, path, "by");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (n && !(cell->inval_by = alloc_array(r, n, sizeof *cell->inval_by))) return -1;
    for (size_t i = 0; i < n; i++) {
        char epath[FIELD_PATH_LEN];
        field_path(epath, sizeof epath, "%s.by[%zu]", path, i);
        json_t *e = json_array_get(arr, i);
        ms_invalidator *v = &cell->inval_by[i];
        if (get_u32(r, e, epath, "code", &v->code) < 0 || get_u32(r, e, epath, "data", &v->data) < 0 ||
            get_u32(r, e, epath, "cpu", &v->cpu) < 0 || get_u64(r, e, epath, "count", &v->count) < 0)
            return -1;
        if (v->code >= m->ncode) return bad_type(r, epath, "code", "a code bin id");
        if (v->data >= m->ndata) return bad_type(r, epath, "data", "a data bin id");
        cell->ninval_by++;
    }
    if (cell->ninval_by > 1) qsort(cell->inval_by, cell->ninval_by, sizeof *cell->inval_by, ms_invalidator_order);
    return 0;
}

static int read_cells(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "bins");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->cells = alloc_array(r, n, sizeof *m->cells))) return -1;
    m->ncells = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "bins[%zu]", i);
        json_t *o = json_array_get(arr, i);
        ms_cell *cell = &m->cells[i];
        if (read_bin_ids(r, o, path, m, &cell->code, &cell->data) < 0 ||
            read_counters(r, o, path, &cell->c, m, cell) < 0)
            return -1;
        if (read_invalidators(r, o, path, m, cell) < 0) return -1;
        const char *fields = json_string_value(json_object_get(o, "fields")); /* optional */
        if (fields) snprintf(cell->fields, sizeof cell->fields, "%s", fields);
        if (cell->nevicted_by > 1)
            qsort(cell->evicted_by, cell->nevicted_by, sizeof *cell->evicted_by, ms_evictor_order);
    }
    return 0;
}

static int read_lines(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "lines");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->lines = alloc_array(r, n, sizeof *m->lines))) return -1;
    m->nlines = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "lines[%zu]", i);
        json_t *o = json_array_get(arr, i);
        ms_line_stat *ls = &m->lines[i];
        if (get_u32(r, o, path, "file", &ls->file) < 0 || get_line(r, o, path, "line", &ls->line) < 0 ||
            read_bin_ids(r, o, path, m, &ls->code, &ls->data) < 0 || read_counters(r, o, path, &ls->c, m, NULL) < 0)
            return -1;
        if (ls->file >= m->nfiles) return bad_type(r, path, "file", "a file id");
    }
    return 0;
}

/* ---- multiprocessor runs ---- */

static int read_procs(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "threads");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->procs = alloc_array(r, n, sizeof *m->procs))) return -1;
    m->nprocs_stat = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN], cpath[FIELD_PATH_LEN];
        field_path(path, sizeof path, "threads[%zu]", i);
        field_path(cpath, sizeof cpath, "%s.counters", path);
        json_t *o = json_array_get(arr, i);
        ms_proc_stat *p = &m->procs[i];
        json_t *th = get_array(r, o, path, "threads");
        if (!th || get_u32(r, o, path, "cpu", &p->cpu) < 0 || get_u64(r, o, path, "wait_turns", &p->wait_turns) < 0)
            return -1;
        size_t nth = json_array_size(th);
        if (!(p->threads = alloc_array(r, nth, sizeof *p->threads))) return -1;
        p->nthreads = nth;
        for (size_t t = 0; t < nth; t++) {
            json_int_t v = json_integer_value(json_array_get(th, t));
            if (!json_is_integer(json_array_get(th, t)) || v < 0 || v > UINT32_MAX)
                return bad_type(r, path, "threads", "an array of thread indices");
            p->threads[t] = (uint32_t)v;
        }
        json_t *c = get_object(r, o, path, "counters");
        if (!c || read_counters(r, c, cpath, &p->c, m, NULL) < 0) return -1;
    }
    return 0;
}

/* The index of `file` in m->files, or -1. */
static long file_index(const ms_model *m, const char *file)
{
    for (size_t i = 0; file && i < m->nfiles; i++)
        if (m->files[i] && strcmp(m->files[i], file) == 0) return (long)i;
    return -1;
}

static int read_refs(json_reader *r, json_t *root, ms_model *m)
{
    json_t *arr = get_array(r, root, "", "references");
    if (!arr) return -1;
    size_t n = json_array_size(arr);
    if (!(m->refs = alloc_array(r, n, sizeof *m->refs))) return -1;
    m->nrefs = n;
    for (size_t i = 0; i < n; i++) {
        char path[FIELD_PATH_LEN], cpath[FIELD_PATH_LEN];
        field_path(path, sizeof path, "references[%zu]", i);
        field_path(cpath, sizeof cpath, "%s.counters", path);
        json_t *o = json_array_get(arr, i);
        ms_reference_stat *ref = &m->refs[i];
        unsigned kind = 0;
        char *file = NULL;
        if (read_bin_ids(r, o, path, m, &ref->code, &ref->data) < 0 || get_str(r, o, path, "file", &file) < 0)
            return -1;
        long fi = file_index(m, file);
        free(file);
        if (fi < 0) return bad_type(r, path, "file", "one of the run's files");
        ref->file = (uint32_t)fi;
        if (get_line(r, o, path, "line", &ref->line) < 0 || get_u32(r, o, path, "cpu", &ref->cpu) < 0 ||
            get_enum(r, o, path, "kind", ms_json_ref_kind_names, MS_JSON_NELEM(ms_json_ref_kind_names), &kind) < 0)
            return -1;
        ref->kind = (ms_ref_kind)kind;
        json_t *c = get_object(r, o, path, "counters");
        if (!c || read_counters(r, c, cpath, &ref->c, m, NULL) < 0) return -1;
    }
    return 0;
}

/* nprocs, interleave, threads and references: present only when the run had nprocs > 1. */
static int read_multiprocessor(json_reader *r, json_t *root, ms_model *m)
{
    if (!json_object_get(root, "nprocs")) return 0;
    if (get_u32(r, root, "", "nprocs", &m->nprocs) < 0 || get_str(r, root, "", "interleave", &m->interleave) < 0)
        return -1;
    return read_procs(r, root, m) == 0 && read_refs(r, root, m) == 0 ? 0 : -1;
}

/* An index below n, or null (UINT32_MAX). */
static int get_index(json_reader *r, json_t *obj, const char *where, const char *key, size_t n, uint32_t *out)
{
    json_t *v = member(r, obj, where, key);
    if (!v) return -1;
    *out = UINT32_MAX;
    if (json_is_null(v)) return 0;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) >= n)
        return bad_type(r, where, key, "an index into its array or null");
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

/* "mtool" (MTOOL runs only): their whole result. */
static int read_mtool(json_reader *r, json_t *root, ms_model *m)
{
    json_t *o = json_object_get(root, "mtool");
    if (!o) return 0;
    if (!(m->mtool = calloc(1, sizeof *m->mtool))) return fail(r, "out of memory");
    if (ms_mtool_json_parse(r->file, "mtool", o, m->mtool, r->err, r->errlen) == 0) return 0;
    r->failed = 1;
    free(m->mtool);
    m->mtool = NULL;
    return -1;
}

/* "estimate" (optional): the run's ideal-memory cycles and their CPU model. */
static int read_estimate(json_reader *r, json_t *root, ms_model *m)
{
    json_t *e = json_object_get(root, "estimate");
    if (!e) return 0;
    json_t *c = json_is_object(e) ? json_object_get(e, "ideal_cycles") : NULL;
    if (!c || !json_is_number(c) || json_number_value(c) < 0)
        return bad_type(r, "estimate", "ideal_cycles", "a number");
    m->ideal_cycles = json_number_value(c);
    return json_object_get(e, "cpu_model") ? get_str(r, e, "estimate", "cpu_model", &m->ideal_cpu) : 0;
}

static int read_blocks(json_reader *r, json_t *root, ms_model *m)
{
    if (!json_object_get(root, "blocks")) return 0;
    if (m->version >= 3 && !r->names) { /* version 3's blocks and loops refer to it */
        member(r, root, "", "names");
        return -1;
    }
    json_t *ba = get_array(r, root, "", "blocks"), *la = get_array(r, root, "", "loops");
    if (!ba || !la) return -1;
    size_t nb = json_array_size(ba), nl = json_array_size(la);
    if ((nb && !(m->blocks = alloc_array(r, nb, sizeof *m->blocks))) ||
        (nl && !(m->loops = alloc_array(r, nl, sizeof *m->loops))))
        return -1;
    m->nblocks = nb;
    m->nloops = nl;
    for (size_t i = 0; i < nb; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "blocks[%zu]", i);
        json_t *o = json_array_get(ba, i);
        ms_block_stat *b = &m->blocks[i];
        if (get_str(r, o, path, "function", &b->function) < 0 || get_str(r, o, path, "file", &b->file) < 0 ||
            get_line(r, o, path, "line", &b->line) < 0 || get_line(r, o, path, "end_line", &b->end_line) < 0 ||
            get_index(r, o, path, "loop", nl, &b->loop) < 0 || get_u32(r, o, path, "memops", &b->memops) < 0 ||
            get_u32(r, o, path, "stmts", &b->stmts) < 0 || get_u64(r, o, path, "count", &b->count) < 0)
            return -1;
    }
    for (size_t i = 0; i < nl; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "loops[%zu]", i);
        json_t *o = json_array_get(la, i);
        ms_loop_stat *l = &m->loops[i];
        if (get_str(r, o, path, "function", &l->function) < 0 || get_str(r, o, path, "file", &l->file) < 0 ||
            get_line(r, o, path, "line", &l->line) < 0 || get_line(r, o, path, "end_line", &l->end_line) < 0 ||
            get_index(r, o, path, "parent", nl, &l->parent) < 0 || get_u32(r, o, path, "depth", &l->depth) < 0 ||
            get_index(r, o, path, "header", nb, &l->header) < 0 ||
            get_u64(r, o, path, "iterations", &l->iterations) < 0)
            return -1;
    }
    return 0;
}

/* calls and code_parts: present only for runs with call edges (names from "names"). */
static int read_calls(json_reader *r, json_t *root, ms_model *m)
{
    if (!json_object_get(root, "calls")) return 0;
    json_t *ca = get_array(r, root, "", "calls"), *pa = get_array(r, root, "", "code_parts");
    if (!ca || !pa) return -1;
    size_t nc = json_array_size(ca), np = json_array_size(pa);
    if ((nc && !(m->calls = alloc_array(r, nc, sizeof *m->calls))) ||
        (np && !(m->parts = alloc_array(r, np, sizeof *m->parts))))
        return -1;
    m->ncalls = nc; /* zeroed: freed whole if reading stops half-way */
    m->nparts = np;
    for (size_t i = 0; i < nc; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "calls[%zu]", i);
        json_t *o = json_array_get(ca, i);
        ms_call_stat *c = &m->calls[i];
        if (get_str(r, o, path, "caller", &c->caller) < 0 || get_str(r, o, path, "callee", &c->callee) < 0 ||
            get_str(r, o, path, "caller_file", &c->caller_file) < 0 ||
            get_str(r, o, path, "callee_file", &c->callee_file) < 0 || get_line(r, o, path, "line", &c->line) < 0 ||
            get_line(r, o, path, "callee_line", &c->callee_line) < 0 || get_u64(r, o, path, "count", &c->count) < 0)
            return -1;
        if (!c->caller || !c->callee) return bad_type(r, path, c->caller ? "callee" : "caller", "a name");
    }
    for (size_t i = 0; i < np; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "code_parts[%zu]", i);
        json_t *o = json_array_get(pa, i);
        ms_code_part *p = &m->parts[i];
        if (get_str(r, o, path, "function", &p->function) < 0 || get_str(r, o, path, "file", &p->file) < 0 ||
            get_u32(r, o, path, "code", &p->code) < 0 || read_counters(r, o, path, &p->c, m, NULL) < 0)
            return -1;
        if (!p->function) return bad_type(r, path, "function", "a name");
        if (p->code >= m->ncode) return bad_type(r, path, "code", "a code bin id");
    }
    return 0;
}

/* waiting: present only for runs replayed in the timed order. */
static int read_waiting(json_reader *r, json_t *root, ms_model *m)
{
    if (!json_object_get(root, "waiting")) return 0;
    ms_waiting *wt = &m->waiting;
    json_t *o = get_object(r, root, "", "waiting");
    if (!o) return -1;
    json_t *pa = get_array(r, o, "waiting", "profile"), *sa = get_array(r, o, "waiting", "sources");
    json_t *ap = member(r, o, "waiting", "approximate");
    if (!pa || !sa || !ap) return -1;
    if (!json_is_boolean(ap)) return bad_type(r, "waiting", "approximate", "true or false");
    wt->present = true;
    wt->approximate = json_is_true(ap);
    if (get_u64(r, o, "waiting", "total_cycles", &wt->total_cycles) < 0 ||
        get_str(r, o, "waiting", "work_cost", &wt->work_cost) < 0)
        return -1;
    size_t np = json_array_size(pa), ns = json_array_size(sa);
    if ((np && !(wt->profile = alloc_array(r, np, sizeof *wt->profile))) ||
        (ns && !(wt->sources = alloc_array(r, ns, sizeof *wt->sources))))
        return -1;
    for (size_t i = 0; i < np; i++, wt->nprofile++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "waiting.profile[%zu]", i);
        json_t *e = json_array_get(pa, i);
        ms_wait_profile *p = &wt->profile[i];
        if (get_u32(r, e, path, "cpu", &p->cpu) < 0 || get_u64(r, e, path, "compute", &p->compute) < 0 ||
            get_u64(r, e, path, "stall", &p->stall) < 0 || get_u64(r, e, path, "waiting", &p->waiting) < 0 ||
            get_u64(r, e, path, "sync", &p->sync) < 0)
            return -1;
        json_t *idle = json_object_get(e, "idle"); /* optional: runs stored before it */
        if (idle && !json_is_boolean(idle)) return bad_type(r, path, "idle", "true or false");
        p->idle = json_is_true(idle);
    }
    for (size_t i = 0; i < ns; i++) {
        char path[FIELD_PATH_LEN];
        field_path(path, sizeof path, "waiting.sources[%zu]", i);
        json_t *e = json_array_get(sa, i), *cls, *xa;
        ms_wait_source *w = &wt->sources[wt->nsources++];
        if (get_str(r, e, path, "kind", &w->kind) < 0 || get_str(r, e, path, "function", &w->function) < 0 ||
            get_str(r, e, path, "file", &w->file) < 0 || get_line(r, e, path, "line", &w->line) < 0 ||
            get_u64(r, e, path, "object", &w->object) < 0 || get_u64(r, e, path, "instances", &w->instances) < 0 ||
            get_u64(r, e, path, "cycles", &w->cycles) < 0 || get_u64(r, e, path, "extra_stall", &w->extra_stall) < 0 ||
            !(cls = get_object(r, e, path, "classes")) || !(xa = get_array(r, e, path, "explanation")))
            return -1;
        char cpath[FIELD_PATH_LEN];
        field_path(cpath, sizeof cpath, "%s.classes", path);
        for (int c = 0; c < MS_WAITCLASSES; c++) /* idle_thread optional: runs stored before it */
            if ((c != MS_WAITCLASS_IDLE_THREAD || json_object_get(cls, ms_waitclass_name(c))) &&
                get_u64(r, cls, cpath, ms_waitclass_name(c), &w->classes[c]) < 0)
                return -1;
        size_t nx = json_array_size(xa);
        if (nx && !(w->explanation = alloc_array(r, nx, sizeof *w->explanation))) return -1;
        for (size_t j = 0; j < nx; j++) {
            char xpath[FIELD_PATH_LEN];
            field_path(xpath, sizeof xpath, "%s.explanation[%zu]", path, j);
            json_t *x = json_array_get(xa, j);
            ms_wait_explanation *ex = &w->explanation[w->nexplanation++];
            if (get_str(r, x, xpath, "function", &ex->function) < 0 || get_str(r, x, xpath, "file", &ex->file) < 0 ||
                get_line(r, x, xpath, "line", &ex->line) < 0 || get_str(r, x, xpath, "loop", &ex->loop) < 0 ||
                get_u64(r, x, xpath, "extra_count", &ex->extra_count) < 0 ||
                get_u64(r, x, xpath, "extra_cycles", &ex->extra_cycles) < 0 ||
                get_u64(r, x, xpath, "stall_cycles", &ex->stall_cycles) < 0)
                return -1;
        }
        /* the object's bin and the inlining caller: absent in earlier files */
        if ((json_object_get(e, "object_name") && get_str(r, e, path, "object_name", &w->object_name) < 0) ||
            (json_object_get(e, "via_function") &&
             (get_str(r, e, path, "via_function", &w->via_function) < 0 ||
              get_str(r, e, path, "via_file", &w->via_file) < 0 || get_line(r, e, path, "via_line", &w->via_line) < 0)))
            return -1;
        json_t *pa = json_object_get(e, "paths"); /* absent in the first files that had waiting */
        size_t npa = pa ? json_array_size(pa) : 0;
        if (pa && !json_is_array(pa)) return bad_type(r, path, "paths", "an array");
        if (npa && !(w->paths = alloc_array(r, npa, sizeof *w->paths))) return -1;
        for (size_t j = 0; j < npa; j++) {
            char ppath[FIELD_PATH_LEN];
            field_path(ppath, sizeof ppath, "%s.paths[%zu]", path, j);
            json_t *x = json_array_get(pa, j);
            ms_wait_path *q = &w->paths[w->npaths++];
            if (get_u64(r, x, ppath, "instances", &q->instances) < 0 ||
                get_u64(r, x, ppath, "cycles", &q->cycles) < 0 || get_str(r, x, ppath, "function", &q->function) < 0 ||
                get_str(r, x, ppath, "file", &q->file) < 0 || get_line(r, x, ppath, "line", &q->line) < 0 ||
                get_str(r, x, ppath, "loop", &q->loop) < 0)
                return -1;
        }
    }
    return 0;
}

/* The whole file as a NUL-terminated buffer, or NULL with err set. */
static char *slurp(const char *path, size_t *len, char *err, size_t errlen)
{
    char *buf;
    ms_read_status st = ms_read_file(path, MS_RESULT_MAX_BYTES, &buf, len);
    if (st == MS_READ_OPEN)
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
    else if (st == MS_READ_TOO_BIG)
        snprintf(err, errlen, "%s is not a memspy result file: larger than the %u MiB a result file may have", path,
                 MS_RESULT_MAX_BYTES >> 20);
    else if (st != MS_READ_OK)
        snprintf(err, errlen, "%s: %s", path, st == MS_READ_NOMEM ? "out of memory" : "read error");
    return st == MS_READ_OK ? buf : NULL;
}

/* Parse and check the envelope (format, version) of the text read from `name`; returns the
 * root or NULL with err set. */
static json_t *load_root(const char *name, const char *text, size_t len, char *err, size_t errlen)
{
    size_t skip = 0;
    while (skip < len && strchr(" \t\r\n", text[skip]) && text[skip]) skip++;
    if (skip == len || text[skip] != '{') {
        snprintf(err, errlen, "%s is not a memspy result file%s", name,
                 len == 0      ? " (it is empty)"
                 : skip == len ? " (it holds only white space)"
                               : "");
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        snprintf(err, errlen, "%s: corrupt result file: %s at line %d column %d", name, jerr.text, jerr.line,
                 jerr.column);
        return NULL;
    }
    const char *format = json_string_value(json_object_get(root, "format"));
    json_t *version = json_object_get(root, "version");
    if (!json_is_object(root) || !format || strcmp(format, MS_MODEL_FORMAT) != 0) {
        snprintf(err, errlen, "%s is not a memspy result file", name);
    } else if (!json_is_integer(version) || json_integer_value(version) < 1) {
        snprintf(err, errlen, "%s: corrupt result file: missing or invalid field version", name);
    } else if (json_integer_value(version) > MS_MODEL_VERSION) {
        snprintf(err, errlen, "%s was written by a newer memspy (result version %lld)", name,
                 (long long)json_integer_value(version));
    } else {
        return root;
    }
    json_decref(root);
    return NULL;
}

/* The string table: required from version 4 (in version 3 only with blocks), an array of
 * strings, each checked once here. */
static int read_names(json_reader *r, json_t *root, int version)
{
    if (version < 3 || (version == 3 && !json_object_get(root, "names"))) return 0;
    json_t *names = get_array(r, root, "", "names");
    if (!names) return -1;
    for (size_t i = 0; i < json_array_size(names); i++) {
        char idx[32];
        field_path(idx, sizeof idx, "[%zu]", i);
        if (!json_is_string(json_array_get(names, i))) return bad_type(r, "names", idx, "a string");
    }
    r->names = names;
    return 0;
}

int ms_json_read_buffer(const char *name, const char *text, size_t len, ms_model *m, char *err, size_t errlen)
{
    ms_model_init(m);
    json_t *root = load_root(name, text, len, err, errlen);
    if (!root) return -1;
    json_reader r = { name, err, errlen, 0, NULL, MS_RESULT_MAX_BYTES };
    m->version = (int)json_integer_value(json_object_get(root, "version"));
    int rc = -1;
    if (read_names(&r, root, m->version) < 0) {
        json_decref(root);
        ms_model_free(m);
        return -1;
    }
    /* Files before lines (lines refer to files), bins before cells (cells refer to bins). */
    if (read_run(&r, root, m) == 0 && read_config(&r, root, &m->config) == 0 &&
        read_counters(&r, get_object(&r, root, "", "totals"), "totals", &m->totals, m, NULL) == 0 &&
        read_code(&r, root, m) == 0 && read_data(&r, root, m) == 0 && read_cells(&r, root, m) == 0 &&
        get_strings(&r, root, "", "files", &m->files, &m->nfiles) == 0 && read_lines(&r, root, m) == 0 &&
        read_multiprocessor(&r, root, m) == 0 && read_blocks(&r, root, m) == 0 && read_calls(&r, root, m) == 0 &&
        read_waiting(&r, root, m) == 0 && read_estimate(&r, root, m) == 0 && read_mtool(&r, root, m) == 0)
        rc = 0;
    json_decref(root);
    if (rc < 0) {
        if (!r.failed) fail(&r, "unreadable");
        ms_model_free(m);
    }
    return rc;
}

int ms_json_read(const char *path, ms_model *m, char *err, size_t errlen)
{
    ms_model_init(m);
    size_t len = 0;
    char *text = slurp(path, &len, err, errlen);
    if (!text) return -1;
    int rc = ms_json_read_buffer(path, text, len, m, err, errlen);
    free(text);
    return rc;
}
