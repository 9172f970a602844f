/* memspy fullname: the full name (with call path) of a bin of a stored run. */
#include <stdio.h>
#include <stdlib.h>

#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy fullname [RUN|RESULT] BIN [--db PATH]\n\n"
    "Print the full name of each bin BIN names in run RUN (default: the latest run): a data\n"
    "bin's name with the call path of its allocation ('main:42>NewMatrix:17>double*.Y'),\n"
    "a code segment's function name. BIN is a short name, a full name or a glob.\n\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

int ms_cmd_fullname(int argc, char **argv)
{
    const char *db_opt;
    int done, rc = ms_cli_db_options("fullname", argc, argv, USAGE, &db_opt, &done);
    if (rc || done) return rc;
    int npos = argc - optind;
    if (npos < 1) return ms_cli_usage_error("fullname", "missing the BIN name");
    if (npos > 2) return ms_cli_usage_error("fullname", "unexpected argument '%s'", argv[optind + 2]);
    ms_model m;
    int run_id, code;
    if (ms_cli_load_run("fullname", db_opt, npos == 2 ? argv[optind] : NULL, &m, &run_id) < 0) return MS_EXIT_USAGE;
    if ((rc = ms_cli_refuse_mtool("fullname", &m, npos == 2 ? argv[optind] : NULL)) != 0) {
        ms_model_free(&m);
        return rc;
    }
    uint32_t *sel = NULL;
    size_t nsel = 0;
    rc = ms_cli_find_any_bins("fullname", &m, &argv[argc - 1], 1, &code, &sel, &nsel);
    for (size_t i = 0; rc == 0 && i < nsel; i++) puts(ms_term(ms_model_bin_full_name(&m, code, sel[i])));
    if (rc == 0 && fflush(stdout) != 0) rc = ms_cli_error("fullname", "cannot write the names");
    free(sel);
    ms_model_free(&m);
    return rc;
}
