/* memspy whatif: predict what a change of data layout would do, from a recording (`memspy
 * run --record DIR`). The streams are replayed twice under the same hierarchy: as recorded
 * (the baseline, which also learns where each data bin lies), then with the named bins'
 * addresses remapped (replay/remap.h; the rules are in docs/whatif.md). Prints the baseline
 * against the prediction; --json writes the prediction as `memspy run --json` would. Nothing
 * is stored in the run database: a prediction is not a run. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../analysis/analyze.h"
#include "../analysis/findings.h"
#include "../replay/remap.h"
#include "../report/report.h"
#include "../util/strbuf.h"
#include "../util/util.h"
#include "advice_check.h"
#include "cli.h"
#include "record_dir.h"
#include "recording.h"
#include "run_output.h"
#include "whatif_core.h"

static const char USAGE[] =
    "Usage: memspy whatif [options] DIR CHANGE...\n\n"
    "Predict the effect of a change of data layout from the streams recorded by\n"
    "'memspy run --record DIR': they are re-simulated as recorded and with the addresses of\n"
    "the named data bins remapped, and the change in misses, stall and invalidations is\n"
    "printed (docs/whatif.md gives the mapping rules). DATA is a data bin's name, full name or\n"
    "glob as 'memspy show' takes it; BYTES a number with an optional K/M suffix, or a sum\n"
    "such as 2360+64.\n\n"
    "Changes (any number, several on one bin combine):\n"
    "  --pad DATA=BYTES     each element of DATA grows to BYTES (element i moves to\n"
    "                       base + i * BYTES + its offset within the element)\n"
    "  --align DATA=BYTES   DATA (each allocation of a heap bin of several) starts at a\n"
    "                       multiple of BYTES\n"
    "  --offset DATA=BYTES  DATA's addresses move by BYTES (may be negative)\n"
    "  --row DATA=BYTES     DATA's element is BYTES long (a row of a matrix: --pad then pads\n"
    "                       the leading dimension); default: the scalar its name's type\n"
    "                       names (double*.Y: 8), else one allocation of a heap bin\n"
    "  --no-allocator       move only the named bins (default: also the heap blocks that\n"
    "                       glibc's malloc would place elsewhere once a block grows or is\n"
    "                       realigned: the blocks mapped after a grown mapping, the arena\n"
    "                       chunks after a grown chunk; docs/whatif.md)\n"
    "Output:\n"
    "  -o, --output FILE    write the comparison to FILE (default: standard output)\n"
    "  --json FILE          write the predicted result as 'memspy run --json' does\n"
    "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

enum { OPT_PAD = MS_OPT_FIRST_FREE, OPT_ALIGN, OPT_OFFSET, OPT_ROW, OPT_NO_ALLOCATOR };

typedef struct {
    const char *dir, *json, *output;
    ms_cache_opts cache;
    ms_hier_config cfg;
    ms_interleave mode;
    ms_whatif_change *changes;
    size_t nchanges;
    int no_allocator; /* --no-allocator */
    ms_strbuf text;   /* the changes as given, quoted for a shell: "--pad 'double*.Y=2424' ..." */
} whatif_opts;

static const char *kind_name(int kind)
{
    return kind == OPT_PAD ? "pad" : kind == OPT_ALIGN ? "align" : kind == OPT_OFFSET ? "offset" : "row";
}

/* Take "--KIND DATA=BYTES". Returns 0 or MS_EXIT_USAGE. */
static int take_change(whatif_opts *o, int kind, const char *arg)
{
    const char *eq = strrchr(arg, '=');
    int64_t bytes = 0;
    if (!eq || eq == arg || ms_remap_parse_bytes(eq + 1, &bytes) < 0)
        return ms_cli_usage_error("whatif", "--%s: '%s' is not DATA=BYTES", kind_name(kind), arg);
    if (kind != OPT_OFFSET && bytes <= 0)
        return ms_cli_usage_error("whatif", "--%s: '%s': BYTES must be positive", kind_name(kind), arg);
    if (kind == OPT_ALIGN && (bytes & (bytes - 1)))
        return ms_cli_usage_error("whatif", "--align: '%s': BYTES must be a power of two", arg);
    ms_whatif_change *v = realloc(o->changes, (o->nchanges + 1) * sizeof *v);
    if (!v) return ms_cli_error("whatif", "out of memory");
    o->changes = v;
    if (!(v[o->nchanges].data = strndup(arg, (size_t)(eq - arg)))) return ms_cli_error("whatif", "out of memory");
    v[o->nchanges].kind = kind == OPT_PAD      ? MS_WHATIF_PAD
                          : kind == OPT_ALIGN  ? MS_WHATIF_ALIGN
                          : kind == OPT_OFFSET ? MS_WHATIF_OFFSET
                                               : MS_WHATIF_ROW;
    v[o->nchanges++].bytes = bytes;
    if (o->text.len) ms_strbuf_adds(&o->text, " ");
    ms_strbuf_addf(&o->text, strchr(arg, '\'') ? "--%s %s" : "--%s '%s'", kind_name(kind), arg);
    return 0;
}

static int parse_options(int argc, char **argv, whatif_opts *o, int *done)
{
    static const struct option longopts[] = {
        { "pad", required_argument, NULL, OPT_PAD },
        { "align", required_argument, NULL, OPT_ALIGN },
        { "offset", required_argument, NULL, OPT_OFFSET },
        { "row", required_argument, NULL, OPT_ROW },
        { "no-allocator", no_argument, NULL, OPT_NO_ALLOCATOR },
        { "json", required_argument, NULL, MS_OPT_JSON_FILE },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        MS_CACHE_LONG_OPTIONS,
        { NULL, 0, NULL, 0 },
    };
    int opt, rc;
    *done = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        if (ms_cache_opts_take(&o->cache, opt, optarg)) continue;
        switch (opt) {
        case OPT_PAD:
        case OPT_ALIGN:
        case OPT_OFFSET:
        case OPT_ROW:
            if ((rc = take_change(o, opt, optarg)) != 0) return rc;
            break;
        case OPT_NO_ALLOCATOR: o->no_allocator = 1; break;
        case MS_OPT_JSON_FILE: o->json = optarg; break;
        case 'o': o->output = optarg; break;
        case 'h':
            fputs(USAGE, stdout);
            *done = 1;
            return 0;
        case ':': return ms_cli_usage_error("whatif", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("whatif", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1) return ms_cli_usage_error("whatif", "expected one recording directory");
    o->dir = argv[optind];
    int layout = 0;
    for (size_t i = 0; i < o->nchanges; i++) layout |= o->changes[i].kind != MS_WHATIF_ROW;
    if (!layout) return ms_cli_usage_error("whatif", "no change given: --pad, --align or --offset");
    if (o->no_allocator) ms_strbuf_adds(&o->text, " --no-allocator");
    char err[256];
    if (ms_cache_opts_interleave(&o->cache, &o->mode, err, sizeof err) < 0 ||
        ms_cache_opts_code_bins(&o->cache, err, sizeof err) < 0)
        return ms_cli_usage_error("whatif", "%s", err);
    return 0;
}

/* The comparison on stdout or -o FILE, the prediction into --json FILE. An exit status. */
static int write_outputs(const whatif_opts *o, const ms_model *before, const ms_model *after,
                         const ms_whatif_bins *bins)
{
    char err[1024];
    int rc = 0;
    ms_out_file report = { 0 };
    FILE *out = stdout;
    if (o->output && ms_out_open(&report, o->output, err, sizeof err) < 0) return ms_cli_error("whatif", "%s", err);
    if (report.f) out = report.f;
    /* the changed bins, the allocator's line (no bin of its own), the bins it moved */
    size_t n = bins->n + (bins->allocator != NULL), at = bins->nuser;
    const char **names = calloc(n ? n : 1, sizeof *names), **layouts = calloc(n ? n : 1, sizeof *layouts);
    for (size_t i = 0, k = 0; names && layouts && i < n; i++) {
        int line = bins->allocator && i == at;
        names[i] = line ? NULL : bins->names[k];
        layouts[i] = line ? bins->allocator : bins->layouts[k];
        k += !line;
    }
    if (!names || !layouts || ms_report_whatif(out, before, after, o->text.s, names, layouts, n) < 0 ||
        fflush(out) != 0)
        rc = ms_cli_error("whatif", "cannot write the report");
    free(names);
    free(layouts);
    if (!rc && report.f && ms_out_commit(&report, err, sizeof err) < 0) rc = ms_cli_error("whatif", "%s", err);
    ms_out_abort(&report);
    if (!rc && o->json && ms_run_write_json("whatif", after, o->json) < 0) rc = MS_EXIT_USAGE;
    return rc;
}

/* The prediction, then the report. Returns an exit status. */
static int predict(const whatif_opts *o, json_t *meta)
{
    ms_whatif_request q = { "whatif", o->dir, o->cfg, o->mode, o->changes, o->nchanges, o->no_allocator, 0, o->text.s };
    ms_model before, after;
    ms_whatif_bins bins;
    int incomplete = 0, rc = ms_whatif_predict(&q, meta, &before, &after, &bins, &incomplete);
    if (rc) return rc;
    if (ms_advice_rows("whatif", o->dir, o->mode, o->changes, o->nchanges, &after) < 0)
        ms_cli_error("whatif", "out of memory: the advice's rows are not measured");
    rc = write_outputs(o, &before, &after, &bins);
    ms_model_free(&before);
    ms_model_free(&after);
    ms_whatif_bins_free(&bins);
    return rc ? rc : incomplete ? MS_EXIT_USAGE : 0;
}

int ms_cmd_whatif(int argc, char **argv)
{
    whatif_opts o;
    memset(&o, 0, sizeof o);
    o.text = (ms_strbuf)MS_STRBUF_INIT;
    int done = 0, rc = parse_options(argc, argv, &o, &done);
    json_t *meta = NULL;
    if (!rc && !done) {
        if (!(meta = ms_recording_meta("whatif", o.dir)))
            rc = MS_EXIT_USAGE;
        else {
            ms_recording_interleave(&o.cache, meta, &o.mode);
            rc = ms_recording_config("whatif", &o.cache, meta, &o.cfg);
            if (!rc) rc = predict(&o, meta);
        }
    }
    json_decref(meta);
    for (size_t i = 0; i < o.nchanges; i++) free(o.changes[i].data);
    free(o.changes);
    ms_strbuf_free(&o.text);
    return rc;
}
