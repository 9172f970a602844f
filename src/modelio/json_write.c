/* The JSON report, which is also the saved result file (`memspy report` reads it back with
 * json_read.c). Derived numbers (refs, misses, rates, shares, per-bin totals) are written for
 * the convenience of other readers; the reader only uses the primary counters. */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "modelio.h"
#include "json_write_internal.h"
#include "json_names.h"
#include "mtool_json.h"

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
    jw_put_counter_summary(w, o, &m->totals);
    put(w, o, "levels", jw_levels(w, &m->totals, NULL));
    return o;
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
    put(&w, root, "code", jw_code(&w, m));
    put(&w, root, "data", jw_data(&w, m, data_tot));
    put(&w, root, "bins", jw_bins(&w, m));
    put(&w, root, "files", files_json(&w, m));
    put(&w, root, "lines", jw_lines(&w, m));
    if (w.multiproc) {
        put(&w, root, "nprocs", json_integer(m->nprocs));
        put(&w, root, "interleave", str_json(m->interleave));
        put(&w, root, "threads", jw_threads(&w, m));
        put(&w, root, "references", jw_references(&w, m));
        put(&w, root, "patterns", jw_patterns(&w, m, data_tot));
    }
    if (m->nblocks) {
        put(&w, root, "blocks", jw_blocks(&w, m));
        put(&w, root, "loops", jw_loops(&w, m));
        if (m->ncalls) {
            put(&w, root, "calls", jw_calls(&w, m));
            put(&w, root, "code_parts", jw_parts(&w, m));
        }
    }
    /* the table is filled as the fields above are built: written here, read first */
    if (m->nblocks || stored) put(&w, root, "names", json_incref(w.tab.names));
    if (m->waiting.present) put(&w, root, "waiting", jw_waiting(&w, m));
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
