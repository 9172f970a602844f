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
#include "cli.h"
#include "record_dir.h"
#include "recording.h"
#include "run_output.h"

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
    "Output:\n"
    "  -o, --output FILE    write the comparison to FILE (default: standard output)\n"
    "  --json FILE          write the predicted result as 'memspy run --json' does\n"
    "  -h, --help           this help\n\n" MS_CACHE_OPTIONS_HELP;

enum { OPT_PAD = MS_OPT_FIRST_FREE, OPT_ALIGN, OPT_OFFSET, OPT_ROW };

/* One DATA=BYTES option. */
typedef struct {
    int kind; /* OPT_* */
    char *data;
    int64_t bytes;
} change;

typedef struct {
    const char *dir, *json, *output;
    ms_cache_opts cache;
    ms_hier_config cfg;
    ms_interleave mode;
    change *changes;
    size_t nchanges;
    ms_strbuf text; /* the changes as given, quoted for a shell: "--pad 'double*.Y=2424' ..." */
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
    change *v = realloc(o->changes, (o->nchanges + 1) * sizeof *v);
    if (!v) return ms_cli_error("whatif", "out of memory");
    o->changes = v;
    if (!(v[o->nchanges].data = strndup(arg, (size_t)(eq - arg)))) return ms_cli_error("whatif", "out of memory");
    v[o->nchanges].kind = kind;
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
    for (size_t i = 0; i < o->nchanges; i++) layout |= o->changes[i].kind != OPT_ROW;
    if (!layout) return ms_cli_usage_error("whatif", "no change given: --pad, --align or --offset");
    char err[256];
    if (ms_cache_opts_interleave(&o->cache, &o->mode, err, sizeof err) < 0 ||
        ms_cache_opts_code_bins(&o->cache, err, sizeof err) < 0)
        return ms_cli_usage_error("whatif", "%s", err);
    return 0;
}

/* A remapped bin as the report names it. */
typedef struct {
    char **names, **layouts;
    size_t n;
} changed_bins;

static void changed_bins_free(changed_bins *c)
{
    for (size_t i = 0; i < c->n; i++) {
        free(c->names[i]);
        free(c->layouts[i]);
    }
    free(c->names);
    free(c->layouts);
}

/* The remap entry of data bin d of the baseline (requested by pattern), from every change
 * naming the same pattern. Returns 0 or MS_EXIT_USAGE. */
static int bin_spec(const whatif_opts *o, const ms_model *base, uint32_t d, const char *pattern, ms_remap_bin *b)
{
    const ms_data_bin *db = &base->data[d];
    uint64_t row = 0;
    memset(b, 0, sizeof *b);
    b->id = db->raw_ref - 1;
    for (size_t i = 0; i < o->nchanges; i++) {
        const change *c = &o->changes[i];
        if (strcmp(c->data, pattern) != 0) continue;
        if (c->kind == OPT_PAD) b->pad = (uint64_t)c->bytes;
        if (c->kind == OPT_ALIGN) b->align = (uint64_t)c->bytes;
        if (c->kind == OPT_OFFSET) b->offset = c->bytes;
        if (c->kind == OPT_ROW) row = (uint64_t)c->bytes;
    }
    int several = db->kind == MS_BIN_HEAP && db->objects > 1;
    if (row)
        b->elem = row;
    else if (several && (b->align || !ms_name_element_size(db->name)))
        b->object = (db->bytes + db->objects - 1) / db->objects; /* each allocation is an element */
    else
        b->elem = ms_name_element_size(db->name);
    if (b->pad && !b->elem && !b->object)
        return ms_cli_error("whatif",
                            "--pad %s: the element size of %s is not known: give it with --row %s=BYTES (e.g. "
                            "a row's bytes)",
                            pattern, db->name, pattern);
    uint64_t unit = b->object ? b->object : b->elem;
    if (b->pad && b->pad < unit)
        return ms_cli_error("whatif", "--pad %s: %lld bytes is less than its element's %llu (see --row)", pattern,
                            (long long)b->pad, (unsigned long long)unit);
    return 0;
}

/* Add data bin d's remap entry and bind its contexts. Returns 0 or MS_EXIT_USAGE. */
static int add_bin(const whatif_opts *o, const ms_model *base, const ms_raw *raw, uint32_t d, const char *pattern,
                   ms_remap *rm, changed_bins *out)
{
    ms_remap_bin b;
    int rc = bin_spec(o, base, d, pattern, &b);
    if (rc) return rc;
    for (size_t i = 0; i < out->n; i++)
        if (strcmp(out->names[i], base->data[d].name) == 0)
            return ms_cli_usage_error("whatif", "%s is named by two patterns: give its changes under one name",
                                      base->data[d].name);
    long k = ms_remap_add(rm, &b);
    char **nv = realloc(out->names, (out->n + 1) * sizeof *nv);
    if (nv) out->names = nv;
    char **lv = nv ? realloc(out->layouts, (out->n + 1) * sizeof *lv) : NULL;
    if (lv) out->layouts = lv;
    if (k < 0 || !nv || !lv || !(out->names[out->n] = strdup(base->data[d].name)))
        return ms_cli_error("whatif", "out of memory");
    out->layouts[out->n++] = NULL;
    for (size_t i = 0; i < raw->ncontexts; i++)
        if (raw->contexts[i].bin == b.id) ms_remap_bind(rm, raw->contexts[i].ctx, (size_t)k);
    return 0;
}

/* Remap entries for every bin the changes name. Returns 0 or MS_EXIT_USAGE. */
static int choose_bins(const whatif_opts *o, const ms_model *base, const ms_raw *raw, ms_remap *rm, changed_bins *out)
{
    for (size_t i = 0; i < o->nchanges; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++) seen |= strcmp(o->changes[j].data, o->changes[i].data) == 0;
        if (seen) continue;
        char *pattern = o->changes[i].data;
        uint32_t *idx = NULL;
        size_t n = 0;
        int rc = ms_cli_find_bins("whatif", base, 0, &pattern, 1, &idx, &n);
        for (size_t k = 0; rc == 0 && k < n; k++) {
            if (!base->data[idx[k]].raw_ref)
                rc = ms_cli_error("whatif", "%s is not a bin of the recording", base->data[idx[k]].name);
            else
                rc = add_bin(o, base, raw, idx[k], pattern, rm, out);
        }
        free(idx);
        if (rc) return rc;
    }
    return 0;
}

/* One line per changed bin: where it was and how it is laid out now. */
static int describe(const ms_remap *rm, changed_bins *c)
{
    for (size_t i = 0; i < c->n; i++) {
        const ms_remap_bin *b = &rm->bins[i];
        ms_strbuf s = MS_STRBUF_INIT;
        if (b->lo == b->hi) {
            ms_strbuf_addf(&s, "%s: never accessed in the recording, unchanged", c->names[i]);
        } else {
            ms_strbuf_addf(&s, "%s: %llu bytes at 0x%llx", c->names[i], (unsigned long long)(b->hi - b->lo),
                           (unsigned long long)b->lo);
            uint64_t unit = b->object ? b->object : b->elem;
            if (b->object)
                ms_strbuf_addf(&s, ", %llu allocations of %llu bytes", (unsigned long long)b->elements,
                               (unsigned long long)b->object);
            else if (b->elem)
                ms_strbuf_addf(&s, ", %llu elements of %llu bytes", (unsigned long long)b->elements,
                               (unsigned long long)b->elem);
            ms_strbuf_addf(&s, " -> 0x%llx", (unsigned long long)b->base);
            if (unit && b->stride != unit) ms_strbuf_addf(&s, ", every %llu bytes", (unsigned long long)b->stride);
        }
        if (!(c->layouts[i] = ms_strbuf_take(&s))) return -1;
    }
    return 0;
}

/* Replay the recording (observing or remapping through rm) and analyze it into m. Returns
 * 0, MS_EXIT_USAGE, or -2 when some streams were incomplete (m filled, marked). */
static int simulate(const whatif_opts *o, json_t *meta, ms_remap *rm, const char *origin, ms_model *m)
{
    char path[PATH_MAX + 16], *problems = NULL;
    ms_raw raw;
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    snprintf(path, sizeof path, "%s/%s", o->dir, MS_RECORD_RAW);
    int rc =
        ms_resim_remap_into_raw("whatif", path, o->dir, &o->cfg, o->mode, rm, &raw, &problems) < 0 ? MS_EXIT_USAGE : 0;
    if (!rc) {
        ms_recording_metadata rm_meta = { meta, problems, ms_cli_seconds_since(&t0), origin };
        rc = ms_run_analyze("whatif", &raw, ms_recording_fill_metadata, &rm_meta, m);
        if (!rc && problems) rc = -2;
    }
    ms_raw_free(&raw);
    free(problems);
    return rc;
}

/* The recording's raw profile (its contexts: which bin each access context touches). */
static int read_raw(const whatif_opts *o, ms_raw *raw)
{
    char path[PATH_MAX + 16], err[1024];
    snprintf(path, sizeof path, "%s/%s", o->dir, MS_RECORD_RAW);
    if (ms_raw_read(path, raw, err, sizeof err) < 0) {
        ms_raw_free(raw);
        return ms_cli_error("whatif", "cannot read %s: %s", path, err);
    }
    return 0;
}

/* The changed bins, chosen by name in the recording's raw profile (analyzed for its names
 * only), their contexts bound in rm. Returns 0 or an exit status. */
static int plan_bins(const whatif_opts *o, const ms_raw *raw, ms_remap *rm, changed_bins *bins)
{
    char err[1024];
    ms_model names;
    if (ms_drive_analyze(raw, NULL, NULL, &names, err, sizeof err) < 0) return ms_cli_error("whatif", "%s", err);
    int rc = choose_bins(o, &names, raw, rm, bins);
    ms_model_free(&names);
    return rc;
}

/* The comparison on stdout or -o FILE, the prediction into --json FILE. An exit status. */
static int write_outputs(const whatif_opts *o, const ms_model *before, const ms_model *after, const changed_bins *bins)
{
    char err[1024];
    int rc = 0;
    ms_out_file report = { 0 };
    FILE *out = stdout;
    if (o->output && ms_out_open(&report, o->output, err, sizeof err) < 0) return ms_cli_error("whatif", "%s", err);
    if (report.f) out = report.f;
    if (ms_report_whatif(out, before, after, o->text.s, (const char *const *)bins->names,
                         (const char *const *)bins->layouts, bins->n) < 0 ||
        fflush(out) != 0)
        rc = ms_cli_error("whatif", "cannot write the report");
    if (!rc && report.f && ms_out_commit(&report, err, sizeof err) < 0) rc = ms_cli_error("whatif", "%s", err);
    ms_out_abort(&report);
    if (!rc && o->json && ms_run_write_json("whatif", after, o->json) < 0) rc = MS_EXIT_USAGE;
    return rc;
}

/* Choose and bind, baseline (observing), plan, prediction, report. Returns an exit status. */
static int predict(whatif_opts *o, json_t *meta)
{
    ms_raw raw;
    memset(&raw, 0, sizeof raw);
    int rc = read_raw(o, &raw);
    if (rc) return rc;
    uint32_t max_ctx = 0;
    for (size_t i = 0; i < raw.ncontexts; i++)
        if (raw.contexts[i].ctx > max_ctx) max_ctx = raw.contexts[i].ctx;
    ms_remap rm;
    changed_bins bins = { NULL, NULL, 0 };
    ms_model before, after;
    int have_before = 0, have_after = 0, incomplete = 0;
    char *origin = NULL, *base_origin = NULL, err[256];
    if (ms_remap_init(&rm, max_ctx) < 0) {
        ms_raw_free(&raw);
        return ms_cli_error("whatif", "out of memory");
    }
    if (asprintf(&origin, "whatif of %s: %s", o->dir, o->text.s) < 0) origin = NULL;
    if (asprintf(&base_origin, "resim of %s", o->dir) < 0) base_origin = NULL;
    if (!origin || !base_origin) rc = ms_cli_error("whatif", "out of memory");
    if (!rc) rc = plan_bins(o, &raw, &rm, &bins);
    if (!rc) rc = simulate(o, meta, &rm, base_origin, &before);
    have_before = rc == 0 || rc == -2;
    incomplete = rc == -2;
    if (rc == -2) rc = 0;
    if (!rc && ms_remap_plan(&rm, err, sizeof err) < 0) rc = ms_cli_error("whatif", "%s", err);
    if (!rc && describe(&rm, &bins) < 0) rc = ms_cli_error("whatif", "out of memory");
    if (!rc) rc = simulate(o, meta, &rm, origin, &after);
    have_after = rc == 0 || rc == -2;
    if (rc == -2) rc = 0;
    if (!rc) rc = write_outputs(o, &before, &after, &bins);
    if (have_before) ms_model_free(&before);
    if (have_after) ms_model_free(&after);
    changed_bins_free(&bins);
    ms_remap_free(&rm);
    ms_raw_free(&raw);
    free(origin);
    free(base_origin);
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
