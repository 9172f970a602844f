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
#include "advice_check.h"
#include "cli.h"
#include "record_dir.h"
#include "recording.h"
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
        char *origin = NULL;
        if (asprintf(&origin, "resim of %s", o->dir) < 0) {
            origin = NULL;
            rc = ms_cli_error("resim", "out of memory");
        } else {
            ms_recording_metadata rm = { meta, problems, ms_cli_seconds_since(&t0), origin };
            rc = ms_run_analyze("resim", &raw, ms_recording_fill_metadata, &rm, m);
        }
        free(origin);
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
    json_t *meta = ms_recording_meta("resim", o.dir);
    if (!meta) return MS_EXIT_USAGE;
    ms_db *db = NULL;
    char err[1024];
    ms_recording_interleave(&o.cache, meta, &o.mode);
    if ((rc = ms_recording_config("resim", &o.cache, meta, &o.cfg)) != 0 ||
        (rc = ms_run_outputs_open("resim", &o.out, &out)) != 0) {
        json_decref(meta);
        return rc;
    }
    if (ms_db_open(ms_cli_db_path(o.out.db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0) {
        rc = ms_cli_error("resim", "%s", err);
    } else {
        ms_model m;
        rc = resimulate(&o, meta, &m);
        if (rc == 0 && ms_advice_check("resim", o.dir, meta, &o.cfg, o.mode, &m) < 0)
            ms_cli_error("resim", "out of memory: the advice is not checked");
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
