/* memspy report: show a stored run (or a saved result file) as the matrix (default), as JSON,
 * or as MemSpy's detailed display for a selection (an alias of memspy show). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report/report.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy report [RUN|RESULT] [--top N] [--json] [--db PATH]\n"
    "       memspy report [RUN|RESULT] [--code NAME]... [--data NAME]...\n"
    "       memspy report [RUN|RESULT] --procs | --references [--per-cpu] [--top N]\n"
    "       memspy report [RUN|RESULT] --waiting [--top N]\n\n"
    "Print the matrix of memory stall time by code segment and data bin of run RUN of the\n"
    "run database (default: the latest run), or of a saved result file. With --code/--data,\n"
    "print the detailed display of that combination instead (as 'memspy show' does).\n\n"
    "  --top N              rows and columns of the matrix before 'others' (default 8 x 6)\n"
    "  --json               print the run as JSON (the result file's format)\n"
    "  --code NAME          select code segments (repeatable; see memspy show)\n"
    "  --data NAME          select data bins (repeatable; see memspy show)\n"
    "  --procs              multithreaded runs: the per-processor table (references, misses\n"
    "                       split into uniprocessor and coherence, invalidations by class)\n"
    "  --references         multithreaded runs: per-reference statistics (ccSIM's Table 3),\n"
    "                       the top N source references by coherence misses\n"
    "  --waiting            timed replays: Carnival's WT Map (waiting per synchronisation\n"
    "                       point, classified; every processor's time)\n"
    "  --per-cpu            with --references: one row per processor instead of summed\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

/* Which table report prints. */
typedef enum { VIEW_MATRIX = 0, VIEW_JSON, VIEW_PROCS, VIEW_REFERENCES, VIEW_WAITING } report_view;

static int report(const char *db_opt, const char *arg, char **codes, size_t ncodes, char **datas, size_t ndatas,
                  report_view view, const ms_matrix_opts *mopts, const ms_refs_opts *ropts)
{
    ms_model m;
    int run_id;
    if (ms_cli_load_run("report", db_opt, arg, &m, &run_id) < 0) return MS_EXIT_USAGE;
    int rc = 0;
    if (m.mtool && view == VIEW_MATRIX && !ncodes && !ndatas) {
        if (ms_report_mtool(stdout, m.mtool, (size_t)mopts->top_code * 3) < 0 || fflush(stdout) != 0)
            rc = ms_cli_error("report", "cannot write the report");
    } else if (m.mtool && view != VIEW_JSON) {
        rc = ms_cli_refuse_mtool("report", &m, arg);
    } else if (view == VIEW_MATRIX && (ncodes || ndatas)) {
        rc = ms_cli_show_detail("report", &m, codes, ncodes, datas, ndatas);
    } else if ((view == VIEW_PROCS || view == VIEW_REFERENCES) && m.nprocs < 2) {
        rc = ms_cli_error("report",
                          "run %s was simulated on one processor: it has no per-processor or "
                          "per-reference coherence statistics",
                          arg ? arg : "(latest)");
    } else {
        int out_rc = view == VIEW_JSON         ? ms_json_write(stdout, &m)
                     : view == VIEW_PROCS      ? ms_report_procs(stdout, &m)
                     : view == VIEW_REFERENCES ? ms_report_references(stdout, &m, ropts)
                     : view == VIEW_WAITING    ? ms_report_waiting(stdout, &m, ropts->top)
                                               : ms_report_matrix(stdout, &m, mopts);
        if (out_rc < 0 || fflush(stdout) != 0) rc = ms_cli_error("report", "cannot write the report");
    }
    ms_model_free(&m);
    return rc;
}

int ms_cmd_report(int argc, char **argv)
{
    enum { OPT_CODE = MS_OPT_FIRST_FREE, OPT_DATA, OPT_JSON, OPT_TOP, OPT_PROCS, OPT_REFS, OPT_PER_CPU, OPT_WAITING };
    static const struct option longopts[] = {
        { "code", required_argument, NULL, OPT_CODE },
        { "data", required_argument, NULL, OPT_DATA },
        { "json", no_argument, NULL, OPT_JSON },
        { "top", required_argument, NULL, OPT_TOP },
        { "procs", no_argument, NULL, OPT_PROCS },
        { "references", no_argument, NULL, OPT_REFS },
        { "per-cpu", no_argument, NULL, OPT_PER_CPU },
        { "waiting", no_argument, NULL, OPT_WAITING },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    char **codes = calloc((size_t)argc + 1, sizeof *codes), **datas = calloc((size_t)argc + 1, sizeof *datas);
    size_t ncodes = 0, ndatas = 0;
    const char *db_opt = NULL;
    int opt, rc = -1;
    report_view view = VIEW_MATRIX;
    ms_matrix_opts mopts = { 0, 0 };
    ms_refs_opts ropts = { 0, 0 };
    unsigned long top = 0;
    if (!codes || !datas) rc = ms_cli_error("report", "out of memory");
    opterr = 0;
    while (rc < 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_CODE: codes[ncodes++] = optarg; break;
        case OPT_DATA: datas[ndatas++] = optarg; break;
        case OPT_JSON: view = VIEW_JSON; break;
        case OPT_PROCS: view = VIEW_PROCS; break;
        case OPT_REFS: view = VIEW_REFERENCES; break;
        case OPT_PER_CPU: ropts.by_cpu = 1; break;
        case OPT_WAITING: view = VIEW_WAITING; break;
        case MS_OPT_DB: db_opt = optarg; break;
        case OPT_TOP:
            if (ms_cli_parse_positive(optarg, MS_CLI_MAX_TOP, &top) < 0)
                rc = ms_cli_usage_error("report", "--top: '%s' is not a number in 1..%lu", optarg, MS_CLI_MAX_TOP);
            mopts.top_code = mopts.top_data = ropts.top = (int)top;
            break;
        case 'h':
            fputs(USAGE, stdout);
            rc = 0;
            break;
        case ':': rc = ms_cli_usage_error("report", "option '%s' needs an argument", argv[optind - 1]); break;
        default: rc = ms_cli_usage_error("report", "unknown option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0) {
        if (optind + 1 < argc)
            rc = ms_cli_usage_error("report", "unexpected argument '%s'", argv[optind + 1]);
        else
            rc =
                report(db_opt, optind < argc ? argv[optind] : NULL, codes, ncodes, datas, ndatas, view, &mopts, &ropts);
    }
    free(codes);
    free(datas);
    return rc;
}
