/* MTOOL's result as JSON (`memspy mtool --json FILE`): {"mtool": {...}} with the fields of
 * issue 13 (docs/mtool.md lists them). */
#include <jansson.h>
#include <stdio.h>
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
    bad |= put(o, "warnings", warn);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

int ms_mtool_json_write(FILE *out, const ms_mtool_result *r)
{
    json_t *root = json_object(), *o = json_object(), *mobs = json_array();
    int bad = !root || !o || !mobs;
    for (size_t i = 0; !bad && i < r->nmobjects; i++) bad |= json_array_append_new(mobs, mobject_json(&r->mobjects[i]));
    if (!bad) {
        bad |= put(o, "cpu_model", json_string(r->cpu_model ? r->cpu_model : "?"));
        bad |= put(o, "clock_hz", json_real(r->clock_hz));
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
        bad |= json_object_set(root, "mtool", o);
    }
    if (!bad) bad = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(9)) != 0 || fputc('\n', out) == EOF;
    json_decref(mobs);
    json_decref(o);
    json_decref(root);
    return bad ? -1 : 0;
}
