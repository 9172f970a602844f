/* memspy show: MemSpy's DisplayAll, the detailed display of one bin or of any combination of
 * code segments and data bins of a stored run (numbers summed, rates recomputed). */
#include <stdio.h>
#include <stdlib.h>

#include "../report/report.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy show [RUN|RESULT] [--code NAME]... [--data NAME]... [--db PATH]\n"
    "       memspy show [RUN|RESULT] --wait LOCATION [--db PATH]\n\n"
    "Print the detailed display for the combination of the named code segments and data\n"
    "bins of run RUN (default: the latest run), or of a saved result file: stall time and\n"
    "its share, miss rate, references, misses by cause for every cache level, and the data\n"
    "bins whose references caused the replacements. All bins of a kind are taken when none\n"
    "of it is named. NAME is an exact short name, an exact full name, or a glob\n"
    "('double*.*', 'Matrix.?'); the counters of all selected cells are summed.\n\n"
    "  --code NAME          select code segments (repeatable)\n"
    "  --data NAME          select data bins (repeatable)\n"
    "  --wait LOCATION      timed replays: the characterization of a synchronisation point\n"
    "                       (#N of report --waiting, FUNCTION, FUNCTION:LINE or FILE:LINE)\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

int ms_cli_show_detail(const char *cmd, const ms_model *m, char **codes, size_t ncodes, char **datas, size_t ndatas)
{
    uint32_t *code_sel = NULL, *data_sel = NULL;
    size_t ncode_sel = 0, ndata_sel = 0;
    int rc = ms_cli_find_bins(cmd, m, 1, codes, ncodes, &code_sel, &ncode_sel);
    if (rc == 0) rc = ms_cli_find_bins(cmd, m, 0, datas, ndatas, &data_sel, &ndata_sel);
    if (rc == 0 && (ms_report_detail(stdout, m, code_sel, ncode_sel, data_sel, ndata_sel) < 0 || fflush(stdout) != 0))
        rc = ms_cli_error(cmd, "cannot write the report");
    free(code_sel);
    free(data_sel);
    return rc;
}

int ms_cmd_show(int argc, char **argv)
{
    enum { OPT_CODE = MS_OPT_FIRST_FREE, OPT_DATA, OPT_WAIT };
    static const struct option longopts[] = {
        { "code", required_argument, NULL, OPT_CODE },
        { "data", required_argument, NULL, OPT_DATA },
        { "wait", required_argument, NULL, OPT_WAIT },
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    char **codes = calloc((size_t)argc + 1, sizeof *codes), **datas = calloc((size_t)argc + 1, sizeof *datas);
    size_t ncodes = 0, ndatas = 0;
    const char *db_opt = NULL, *wait = NULL;
    int opt, rc = -1;
    if (!codes || !datas) rc = ms_cli_error("show", "out of memory");
    opterr = 0;
    while (rc < 0 && (opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case OPT_CODE: codes[ncodes++] = optarg; break;
        case OPT_DATA: datas[ndatas++] = optarg; break;
        case OPT_WAIT: wait = optarg; break;
        case MS_OPT_DB: db_opt = optarg; break;
        case 'h':
            fputs(USAGE, stdout);
            rc = 0;
            break;
        case ':': rc = ms_cli_usage_error("show", "option '%s' needs an argument", argv[optind - 1]); break;
        default: rc = ms_cli_usage_error("show", "unknown option '%s'", argv[optind - 1]); break;
        }
    }
    if (rc < 0 && optind + 1 < argc) rc = ms_cli_usage_error("show", "unexpected argument '%s'", argv[optind + 1]);
    if (rc < 0) {
        ms_model m;
        int run_id;
        rc = MS_EXIT_USAGE;
        if (ms_cli_load_run("show", db_opt, optind < argc ? argv[optind] : NULL, &m, &run_id) == 0) {
            char err[512] = "cannot write the report";
            if (m.mtool && !wait && !ncodes && !ndatas)
                rc = ms_report_mtool(stdout, m.mtool, m.mtool->nmobjects) < 0 || fflush(stdout) != 0
                         ? ms_cli_error("show", "%s", err)
                         : 0;
            else if (m.mtool)
                rc = ms_cli_refuse_mtool("show", &m, optind < argc ? argv[optind] : NULL);
            else if (!wait)
                rc = ms_cli_show_detail("show", &m, codes, ncodes, datas, ndatas);
            else if (ms_report_wait_detail(stdout, &m, wait, err, sizeof err) < 0 || fflush(stdout) != 0)
                rc = ms_cli_error("show", "%s", err);
            else
                rc = 0;
            ms_model_free(&m);
        }
    }
    free(codes);
    free(datas);
    return rc;
}
