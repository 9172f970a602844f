/* memspy export: write a stored run as JSON (the result file's format), CSV (one row per
 * matrix cell) or the callgrind format (KCachegrind, callgrind_annotate). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../report/report.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy export [RUN] --format json|csv|callgrind [-o FILE] [--db PATH]\n\n"
    "Write a run (the latest by default; RUN is a run number or a result file) in another\n"
    "format, to standard output or FILE:\n"
    "  json        the result file's own format\n"
    "  csv         one row per (code segment, data bin) cell: references, misses and their\n"
    "              causes per cache level, stall cycles\n"
    "  callgrind   per source line costs for KCachegrind/QCachegrind and callgrind_annotate\n"
    "              (events: Refs, Rd, Wr, L1m..., Cold, Capacity, Conflict, Inval, Stall...)\n\n"
    "  --format FMT         json, csv or callgrind (default json)\n"
    "  -o, --output FILE    write to FILE instead of standard output\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

typedef int (*export_fn)(FILE *out, const ms_model *m);

static const struct {
    const char *name;
    export_fn write;
} FORMATS[] = {
    { "json", ms_json_write },
    { "csv", ms_export_csv },
    { "callgrind", ms_export_callgrind },
};

static int export_run(const char *run, const char *db, export_fn write, const char *output)
{
    ms_model m;
    int run_id;
    ms_model_init(&m);
    if (ms_cli_load_run("export", db, run, &m, &run_id) < 0) return MS_EXIT_USAGE;
    int rc = ms_cli_refuse_mtool("export", &m, run);
    if (rc) {
        ms_model_free(&m);
        return rc;
    }
    char err[1024];
    ms_out_file file = { 0 }; /* -o FILE is replaced only by a complete export */
    if (output && ms_out_open(&file, output, err, sizeof err) < 0) {
        rc = ms_cli_error("export", "%s", err);
    } else {
        FILE *out = output ? file.f : stdout;
        if (write(out, &m) < 0 || fflush(out) != 0) {
            ms_out_abort(&file);
            rc = ms_cli_error("export", "cannot write %s", output ? output : "the export");
        } else if (output && ms_out_commit(&file, err, sizeof err) < 0) {
            rc = ms_cli_error("export", "%s", err);
        }
    }
    ms_model_free(&m);
    return rc;
}

int ms_cmd_export(int argc, char **argv)
{
    enum { OPT_FORMAT = MS_OPT_FIRST_FREE };
    static const struct option longopts[] = {
        { "format", required_argument, NULL, OPT_FORMAT },
        { "output", required_argument, NULL, 'o' },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL, *output = NULL;
    export_fn write = ms_json_write;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_FORMAT:
            write = NULL;
            for (size_t i = 0; i < sizeof FORMATS / sizeof *FORMATS; i++)
                if (strcmp(optarg, FORMATS[i].name) == 0) write = FORMATS[i].write;
            if (!write) return ms_cli_usage_error("export", "--format: '%s' is not json, csv or callgrind", optarg);
            break;
        case 'o': output = optarg; break;
        case MS_OPT_DB: db = optarg; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("export", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind > 1) return ms_cli_usage_error("export", "unexpected argument '%s'", argv[optind + 1]);
    return export_run(optind < argc ? argv[optind] : NULL, db, write, output);
}
