/* MTOOL's result as JSON: `memspy mtool --json` writes {"mtool": {...}} with the fields of
 * issue 13 (docs/mtool.md lists them); an MTOOL run's result file holds the same object as its
 * "mtool" member, read back here. */
#include "mtool_json.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "modelio.h"

static int put(json_t *o, const char *key, json_t *v) { return v ? json_object_set_new(o, key, v) : -1; }

static json_t *mobject_json(const ms_mobject *m)
{
    json_t *o = json_object(), *warn = json_array();
    if (!o || !warn) {
        json_decref(o);
        json_decref(warn);
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; i < m->nwarnings; i++) bad |= json_array_append_new(warn, json_string(m->warnings[i]));
    bad |= put(o, "kind", json_string(m->kind == MS_MOBJ_LOOP ? "loop" : "procedure"));
    bad |= put(o, "function", json_string(m->function ? m->function : "??"));
    bad |= put(o, "file", m->file ? json_string(m->file) : json_null());
    bad |= put(o, "line", json_integer(m->line));
    bad |= put(o, "end_line", json_integer(m->end_line));
    bad |= put(o, "estimated_s", json_real(m->estimated_s));
    bad |= put(o, "measured_s", json_real(m->measured_s));
    bad |= put(o, "timable", json_boolean(m->timable));
    bad |= put(o, "overhead", m->timable ? json_real(m->overhead) : json_null());
    bad |= put(o, "extra_cycles_per_memop", m->timable ? json_real(m->extra_cycles_per_memop) : json_null());
    bad |= put(o, "memops", json_integer((json_int_t)m->memops));
    bad |= put(o, "samples", json_integer((json_int_t)m->samples));
    bad |= put(o, "inclusive_estimated_s", m->has_inclusive ? json_real(m->inclusive_estimated_s) : json_null());
    bad |= put(o, "inclusive_measured_s", m->has_inclusive ? json_real(m->inclusive_measured_s) : json_null());
    bad |= put(o, "warnings", warn);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *ms_mtool_json(const ms_mtool_result *r)
{
    json_t *o = json_object(), *mobs = json_array(), *chains = json_array();
    int bad = !o || !mobs || !chains;
    for (size_t i = 0; !bad && i < r->nchains; i++) {
        const ms_mtool_chain *c = &r->chains[i];
        json_t *x = json_object();
        bad |= !x || json_array_append_new(chains, x) != 0;
        if (!bad) {
            bad |= put(x, "insn", json_string(c->insn));
            bad |= put(x, "core_cycles", json_real(c->core_cycles));
            bad |= put(x, "model_cycles", json_real(c->model_cycles));
            bad |= put(x, "corrected", json_boolean(c->corrected));
        }
    }
    for (size_t i = 0; !bad && i < r->nmobjects; i++) bad |= json_array_append_new(mobs, mobject_json(&r->mobjects[i]));
    if (!bad) {
        bad |= put(o, "cpu_model", json_string(r->cpu_model ? r->cpu_model : "?"));
        bad |= put(o, "clock_hz", json_real(r->clock_hz));
        bad |= json_object_set(o, "core_check", chains);
        bad |= put(o, "sample_period_ns", json_integer((json_int_t)r->period_ns));
        bad |= put(o, "samples", json_integer((json_int_t)r->samples));
        bad |= put(o, "predicted_s", json_real(r->predicted_s));
        bad |= put(o, "measured_s", json_real(r->measured_s));
        bad |= put(o, "system_s", json_real(r->system_s));
        bad |= put(o, "runtime_s", json_real(r->runtime_s));
        bad |= put(o, "memory_overhead_s", json_real(r->memory_overhead_s));
        bad |= put(o, "memops", json_integer((json_int_t)r->total_memops));
        bad |= put(o, "covered_memops", json_real(r->covered_memops));
        bad |= put(o, "unexplained", json_real(r->unexplained));
        bad |= put(o, "incomplete", json_boolean(r->incomplete));
        bad |= json_object_set(o, "mobjects", mobs);
    }
    json_decref(mobs);
    json_decref(chains);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int ms_mtool_json_write(FILE *out, const ms_mtool_result *r)
{
    json_t *root = json_object(), *o = ms_mtool_json(r);
    int bad = !root || !o || json_object_set(root, "mtool", o) != 0;
    if (!bad) bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) != 0 || fputc('\n', out) == EOF;
    json_decref(o);
    json_decref(root);
    return bad ? -1 : 0;
}

/* ---- reading ---- */

typedef struct {
    const char *name;
    char *err;
    size_t errlen;
} reader;

static int wrong(const reader *rd, const char *where, const char *key, const char *expected)
{
    snprintf(rd->err, rd->errlen, "%s: corrupt result file: field %s.%s: expected %s", rd->name, where, key, expected);
    return -1;
}

/* A finite number (integers accepted), or an error. */
static int get_real(const reader *rd, json_t *o, const char *where, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v) || !isfinite(json_number_value(v))) return wrong(rd, where, key, "a number");
    *out = json_number_value(v);
    return 0;
}

static int get_count(const reader *rd, json_t *o, const char *where, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0) return wrong(rd, where, key, "a count");
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

static int get_line(const reader *rd, json_t *o, const char *where, const char *key, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 100000000)
        return wrong(rd, where, key, "a line number");
    *out = (int)json_integer_value(v);
    return 0;
}

/* A string (strdup'd into *out) or, when null_ok, null (*out NULL). */
static int get_string(const reader *rd, json_t *o, const char *where, const char *key, int null_ok, char **out)
{
    json_t *v = json_object_get(o, key);
    *out = NULL;
    if (null_ok && json_is_null(v)) return 0;
    if (!json_is_string(v)) return wrong(rd, where, key, null_ok ? "a string or null" : "a string");
    if (!(*out = strdup(json_string_value(v)))) return wrong(rd, where, key, "a string (out of memory)");
    return 0;
}

static int parse_mobject(const reader *rd, const char *where, json_t *o, ms_mobject *m)
{
    if (!json_is_object(o)) {
        snprintf(rd->err, rd->errlen, "%s: corrupt result file: field %s: expected an object", rd->name, where);
        return -1;
    }
    const char *kind = json_string_value(json_object_get(o, "kind"));
    if (!kind || (strcmp(kind, "loop") && strcmp(kind, "procedure")))
        return wrong(rd, where, "kind", "\"loop\" or \"procedure\"");
    m->kind = !strcmp(kind, "loop") ? MS_MOBJ_LOOP : MS_MOBJ_PROCEDURE;
    json_t *timable = json_object_get(o, "timable"), *warn = json_object_get(o, "warnings");
    if (!json_is_boolean(timable)) return wrong(rd, where, "timable", "true or false");
    m->timable = json_is_true(timable);
    if (get_string(rd, o, where, "function", 0, &m->function) < 0 ||
        get_string(rd, o, where, "file", 1, &m->file) < 0 || get_line(rd, o, where, "line", &m->line) < 0 ||
        get_line(rd, o, where, "end_line", &m->end_line) < 0 ||
        get_real(rd, o, where, "estimated_s", &m->estimated_s) < 0 ||
        get_real(rd, o, where, "measured_s", &m->measured_s) < 0 || get_count(rd, o, where, "memops", &m->memops) < 0 ||
        get_count(rd, o, where, "samples", &m->samples) < 0)
        return -1;
    json_t *incl = json_object_get(o, "inclusive_estimated_s"); /* absent before the call graph */
    if (incl && !json_is_null(incl)) {
        m->has_inclusive = 1;
        if (get_real(rd, o, where, "inclusive_estimated_s", &m->inclusive_estimated_s) < 0 ||
            get_real(rd, o, where, "inclusive_measured_s", &m->inclusive_measured_s) < 0)
            return -1;
    }
    if (m->timable && (get_real(rd, o, where, "overhead", &m->overhead) < 0 ||
                       get_real(rd, o, where, "extra_cycles_per_memop", &m->extra_cycles_per_memop) < 0))
        return -1;
    if (!json_is_array(warn) || json_array_size(warn) > MS_MOBJ_MAX_WARNINGS)
        return wrong(rd, where, "warnings", "an array of at most 4 warnings");
    for (size_t i = 0; i < json_array_size(warn); i++) {
        const char *text = json_string_value(json_array_get(warn, i));
        const char *known = text ? ms_mobject_warning(text) : NULL;
        if (!known) return wrong(rd, where, "warnings", "warnings this memspy knows");
        m->warnings[m->nwarnings++] = known;
    }
    return 0;
}

/* The optional core_check array (absent before it existed). */
static int parse_chains(const reader *rd, const char *where, json_t *o, ms_mtool_result *r)
{
    json_t *a = json_object_get(o, "core_check");
    if (!a) return 0;
    if (!json_is_array(a)) return wrong(rd, where, "core_check", "an array");
    for (size_t i = 0; i < json_array_size(a) && i < MS_MTOOL_CHAINS; i++) {
        json_t *x = json_array_get(a, i), *insn = json_object_get(x, "insn");
        char path[96];
        snprintf(path, sizeof path, "%s.core_check[%zu]", where, i);
        ms_mtool_chain *c = &r->chains[r->nchains];
        if (!json_is_string(insn)) return wrong(rd, path, "insn", "a string");
        snprintf(c->insn, sizeof c->insn, "%s", json_string_value(insn));
        if (get_real(rd, x, path, "core_cycles", &c->core_cycles) < 0 ||
            get_real(rd, x, path, "model_cycles", &c->model_cycles) < 0)
            return -1;
        c->corrected = json_is_true(json_object_get(x, "corrected")); /* absent before it existed */
        r->nchains++;
    }
    return 0;
}

int ms_mtool_json_parse(const char *name, const char *where, json_t *o, ms_mtool_result *r, char *err, size_t errlen)
{
    reader rd = { name, err, errlen };
    memset(r, 0, sizeof *r);
    json_t *mobs = json_object_get(o, "mobjects"), *incomplete = json_object_get(o, "incomplete");
    int rc = -1;
    if (!json_is_object(o))
        snprintf(err, errlen, "%s: corrupt result file: field %s: expected an object", name, where);
    else if (!json_is_array(mobs))
        wrong(&rd, where, "mobjects", "an array");
    else if (!json_is_boolean(incomplete))
        wrong(&rd, where, "incomplete", "true or false");
    else if (get_string(&rd, o, where, "cpu_model", 0, &r->cpu_model) == 0 &&
             get_real(&rd, o, where, "clock_hz", &r->clock_hz) == 0 &&
             get_count(&rd, o, where, "sample_period_ns", &r->period_ns) == 0 &&
             get_count(&rd, o, where, "samples", &r->samples) == 0 &&
             get_real(&rd, o, where, "predicted_s", &r->predicted_s) == 0 &&
             get_real(&rd, o, where, "measured_s", &r->measured_s) == 0 &&
             get_real(&rd, o, where, "system_s", &r->system_s) == 0 &&
             get_real(&rd, o, where, "runtime_s", &r->runtime_s) == 0 &&
             get_real(&rd, o, where, "memory_overhead_s", &r->memory_overhead_s) == 0 &&
             get_count(&rd, o, where, "memops", &r->total_memops) == 0 &&
             get_real(&rd, o, where, "covered_memops", &r->covered_memops) == 0 &&
             get_real(&rd, o, where, "unexplained", &r->unexplained) == 0 && parse_chains(&rd, where, o, r) == 0) {
        r->incomplete = json_is_true(incomplete);
        size_t n = json_array_size(mobs);
        rc = 0;
        if (n && !(r->mobjects = calloc(n, sizeof *r->mobjects))) {
            snprintf(err, errlen, "%s: out of memory", name);
            rc = -1;
        }
        for (size_t i = 0; rc == 0 && i < n; i++) {
            char path[96];
            snprintf(path, sizeof path, "%s.mobjects[%zu]", where, i);
            r->nmobjects++; /* counted first: a half-read one is freed with the rest */
            rc = parse_mobject(&rd, path, json_array_get(mobs, i), &r->mobjects[i]);
        }
    }
    if (rc < 0) ms_mtool_result_free(r);
    return rc;
}
