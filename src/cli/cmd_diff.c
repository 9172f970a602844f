/* memspy diff: compare two runs bin by bin — references, misses, stall time and miss causes
 * of both, what got better or worse sorted by change in stall time, and the bins that
 * appeared or vanished. */
#include <stdio.h>
#include <string.h>

#include "../report/diff_report.h"
#include "cli.h"

#define MAX_TOP 100000ul

static const char USAGE[] =
    "Usage: memspy diff RUN1 RUN2 [--db PATH] [--top N] [--json]\n\n"
    "Compare two runs (run numbers of the database, or result files): per (code segment,\n"
    "data bin) cell, per data bin and per code segment, the references, L1 misses, memory\n"
    "stall time and miss causes of both runs, sorted by the change in stall time (largest\n"
    "first). A negative change means RUN2 stalls less: better. Bins are matched by full\n"
    "name (data) and by name and source file (code); those in only one run are listed.\n\n"
    MS_DB_OPTION_HELP
    "  --top N              rows of each table (default 10)\n"
    "  --json               print the whole comparison as JSON\n"
    "  -h, --help           this help\n";

/* "run 3" or the result file's path, with the program's arguments: the heading of a run. */
static void run_label(char *buf, size_t len, const char *arg, int run_id, const ms_model *m)
{
    size_t at = run_id > 0 ? (size_t)snprintf(buf, len, "run %d:", run_id) : (size_t)snprintf(buf, len, "%s:", arg);
    for (int i = 0; i < m->argc && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, " %s", m->argv[i] ? m->argv[i] : "");
}

static int compare(const char *db, const char *arg1, const char *arg2, int top, int json)
{
    ms_model m[2];
    ms_diff d;
    char label[2][512];
    int run_id[2], rc = 0;
    const char *args[2] = { arg1, arg2 };
    ms_model_init(&m[0]);
    ms_model_init(&m[1]);
    for (int r = 0; r < 2 && rc == 0; r++) {
        if (ms_cli_load_run("diff", db, args[r], &m[r], &run_id[r]) < 0) rc = MS_EXIT_USAGE;
        else run_label(label[r], sizeof label[r], args[r], run_id[r], &m[r]);
    }
    if (rc == 0 && ms_model_diff(&m[0], &m[1], &d) < 0) rc = ms_cli_error("diff", "out of memory");
    if (rc == 0) {
        ms_diff_labels labels = { { label[0], label[1] } };
        int out_rc = json ? ms_json_write_diff(stdout, &d, &labels) : ms_report_diff(stdout, &d, &labels, top);
        if (out_rc < 0 || fflush(stdout) != 0) rc = ms_cli_error("diff", "cannot write the comparison");
        ms_diff_free(&d);
    }
    ms_model_free(&m[0]);
    ms_model_free(&m[1]);
    return rc;
}

int ms_cmd_diff(int argc, char **argv)
{
    enum { OPT_JSON = MS_OPT_FIRST_FREE, OPT_TOP };
    static const struct option longopts[] = {
        MS_DB_LONG_OPTION,
        { "json", no_argument, NULL, OPT_JSON },
        { "top", required_argument, NULL, OPT_TOP },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL;
    int json = 0, opt;
    unsigned long top = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case MS_OPT_DB: db = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_TOP:
            if (ms_cli_parse_positive(optarg, MAX_TOP, &top) < 0)
                return ms_cli_usage_error("diff", "--top: '%s' is not a number in 1..%lu", optarg, MAX_TOP);
            break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("diff", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind < 2) return ms_cli_usage_error("diff", "needs two runs: RUN1 RUN2");
    if (argc - optind > 2) return ms_cli_usage_error("diff", "unexpected argument '%s'", argv[optind + 2]);
    return compare(db, argv[optind], argv[optind + 1], (int)top, json);
}
