/* memspy resim: re-simulate a recording (`memspy run --record DIR`) under another cache
 * hierarchy without running the program again. The raw profile kept in DIR gives the
 * modules, bins and contexts; the threads' streams are replayed into a fresh simulator whose
 * counters and replacement causes replace the recorded run's; then the result is analyzed,
 * stored and printed exactly as `memspy run` does. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../format/stream.h"
#include "cli.h"
#include "record_dir.h"
#include "run_output.h"

static const char USAGE[] =
    "Usage: memspy resim [options] DIR\n\n"
    "Re-simulate the event streams recorded by 'memspy run --record DIR' under the cache\n"
    "hierarchy the cache options describe (default: the recorded one), store the run in the\n"
    "run database and print the matrix, as 'memspy run' would have. A truncated or corrupt\n"
    "stream is replayed up to its last good chunk; the run is then marked incomplete and\n"
    "memspy exits with status 2.\n\n" MS_RUN_OUTPUT_HELP "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

typedef struct {
    ms_run_output_opts out;
    const char *dir;
    ms_cache_opts cache;
    ms_hier_config cfg;
    ms_interleave mode;
} resim_opts;

static int parse_options(int argc, char **argv, resim_opts *o, int *done)
{
    static const struct option longopts[] = {
        MS_RUN_OUTPUT_LONG_OPTIONS,
        { "help", no_argument, NULL, 'h' },
        MS_CACHE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    int opt, taken;
    *done = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        if (ms_cache_opts_take(&o->cache, opt, optarg)) continue;
        if ((taken = ms_run_output_take("resim", &o->out, opt, optarg)) != 0) {
            if (taken < 0) return MS_EXIT_USAGE;
            continue;
        }
        switch (opt) {
        case 'h':
            fputs(USAGE, stdout);
            *done = 1;
            return 0;
        case ':': return ms_cli_usage_error("resim", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("resim", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return ms_cli_usage_error("resim", "expected one recording directory");
    o->dir = argv[optind];
    char err[256];
    if (ms_cache_opts_interleave(&o->cache, &o->mode, err, sizeof err) < 0 ||
        ms_cache_opts_code_bins(&o->cache, err, sizeof err) < 0)
        return ms_cli_usage_error("resim", "%s", err);
    return 0;
}

/* Without --interleave, the order the recording was made with (interleaved if not noted). */
static void resolve_interleave(resim_opts *o, json_t *meta)
{
    const char *recorded = json_string_value(json_object_get(meta, "interleave"));
    if (!o->cache.interleave && recorded) ms_interleave_parse(recorded, &o->mode);
}

/* DIR/meta.json, checked. NULL after an error. */
static json_t *read_meta(const char *dir)
{
    char path[PATH_MAX + 16];
    json_error_t jerr;
    snprintf(path, sizeof path, "%s/%s", dir, MS_RECORD_META);
    json_t *meta = json_load_file(path, 0, &jerr);
    if (!meta) {
        ms_cli_error("resim", "%s is not a recording: cannot read %s: %s", dir, path, jerr.text);
        return NULL;
    }
    const char *format = json_string_value(json_object_get(meta, "format"));
    json_int_t version = json_integer_value(json_object_get(meta, "version"));
    if (!format || strcmp(format, MS_RECORD_FORMAT) != 0 || !json_is_string(json_object_get(meta, "program")) ||
        !json_is_array(json_object_get(meta, "args"))) {
        ms_cli_error("resim", "%s: not a memspy recording description", path);
    } else if (version < 1 || version > MS_STREAM_VERSION) {
        ms_cli_error("resim", "%s: recording format version %lld, this memspy reads versions 1 to %u", path,
                     (long long)version, MS_STREAM_VERSION);
    } else {
        return meta;
    }
    json_decref(meta);
    return NULL;
}

/* The hierarchy: the cache options if any were given, else the recorded one. */
static int resolve_config(resim_opts *o, json_t *meta)
{
    char err[512];
    const ms_cache_opts *c = &o->cache;
    const char *recorded = json_string_value(json_object_get(meta, "config"));
    if (!ms_cache_opts_hier_given(c) && recorded) {
        /* The recorded hierarchy, with any multiprocessor options given on top. */
        if (ms_config_parse_full(recorded, &o->cfg, err, sizeof err) == 0 &&
            ms_cache_opts_apply_mp(c, &o->cfg, err, sizeof err) == 0)
            return 0;
        return ms_cli_error("resim", "the recorded configuration is not usable: %s", err);
    }
    if (ms_cache_opts_resolve(c, &o->cfg, err, sizeof err) < 0) return ms_cli_error("resim", "%s", err);
    return 0;
}

typedef struct {
    json_t *meta;
    const char *problems; /* NULL if every stream was complete */
    double seconds;
    const char *dir; /* the recording */
} resim_metadata;

static int fill_metadata(ms_model *m, void *ud)
{
    const resim_metadata *rm = ud;
    json_t *args = json_object_get(rm->meta, "args");
    const char *cwd = json_string_value(json_object_get(rm->meta, "cwd"));
    m->program =
        strdup(json_string_value(json_array_get(args, 0)) ? json_string_value(json_array_get(args, 0))
                                                          : json_string_value(json_object_get(rm->meta, "program")));
    m->argc = (int)json_array_size(args);
    m->argv = calloc(m->argc ? (size_t)m->argc : 1, sizeof *m->argv);
    if (!m->program || !m->argv) return -1;
    for (int i = 0; i < m->argc; i++) {
        const char *a = json_string_value(json_array_get(args, (size_t)i));
        if (!(m->argv[i] = strdup(a ? a : ""))) return -1;
    }
    m->cwd = cwd ? strdup(cwd) : NULL;
    m->time = (int64_t)time(NULL);
    m->wall_seconds = rm->seconds;
    if (!(m->memspy_version = strdup(MEMSPY_VERSION))) return -1;
    if (asprintf(&m->origin, "resim of %s", rm->dir) < 0) {
        m->origin = NULL;
        return -1;
    }
    if (rm->problems) {
        char *reason = NULL;
        if (asprintf(&reason, "%s%srecorded stream incomplete: %s", m->incomplete_reason ? m->incomplete_reason : "",
                     m->incomplete_reason ? "; " : "", rm->problems) < 0)
            return -1;
        free(m->incomplete_reason);
        m->incomplete_reason = reason;
        m->incomplete = true;
    }
    return 0;
}

/* Read the recording, replay it, fill m. Returns 0, MS_EXIT_USAGE, or -2 after a replay
 * that found bad streams (m is then filled and marked incomplete). */
static int resimulate(const resim_opts *o, json_t *meta, ms_model *m)
{
    char path[PATH_MAX + 16], *problems = NULL;
    ms_raw raw;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(path, sizeof path, "%s/%s", o->dir, MS_RECORD_RAW);
    int rc = 0;
    if (ms_resim_into_raw("resim", path, o->dir, &o->cfg, o->mode, &raw, &problems) < 0) rc = MS_EXIT_USAGE;
    if (!rc && raw.truncated) { /* the program did not finish writing it: keep what it holds */
        ms_cli_error("resim", "%s is truncated: its statistics end early and the run is marked incomplete", path);
        char *more = NULL;
        if (asprintf(&more, "%s%sraw profile truncated", problems ? problems : "", problems ? "; " : "") < 0)
            rc = ms_cli_error("resim", "out of memory");
        free(problems);
        problems = more;
    }
    if (!rc) {
        resim_metadata rm = { meta, problems, ms_cli_seconds_since(&t0), o->dir };
        rc = ms_run_analyze("resim", &raw, fill_metadata, &rm, m);
        if (!rc && problems) rc = -2;
    }
    ms_raw_free(&raw);
    free(problems);
    return rc;
}

int ms_cmd_resim(int argc, char **argv)
{
    resim_opts o;
    ms_run_outputs out;
    memset(&o, 0, sizeof o);
    int done = 0, rc = parse_options(argc, argv, &o, &done);
    if (rc || done) return rc;
    json_t *meta = read_meta(o.dir);
    if (!meta) return MS_EXIT_USAGE;
    ms_db *db = NULL;
    char err[1024];
    resolve_interleave(&o, meta);
    if ((rc = resolve_config(&o, meta)) != 0 || (rc = ms_run_outputs_open("resim", &o.out, &out)) != 0) {
        json_decref(meta);
        return rc;
    }
    if (ms_db_open(ms_cli_db_path(o.out.db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0) {
        rc = ms_cli_error("resim", "%s", err);
    } else {
        ms_model m;
        rc = resimulate(&o, meta, &m);
        if (rc == 0 || rc == -2) {
            int wrc = ms_run_outputs_write("resim", &m, &o.out, &out, db);
            rc = wrc ? wrc : rc == -2 ? MS_EXIT_USAGE : 0;
            ms_model_free(&m);
        }
    }
    ms_db_close(db);
    ms_run_outputs_close(&out);
    json_decref(meta);
    return rc;
}
