/* memspy import: store result files in the run database. It loads the runs that `memspy run`
 * or `resim` could not store (memspy-run-PID.result, left when the database was locked,
 * read-only, on a full disk or damaged), and any other result file (--result). */
#include <stdio.h>

#include "../report/report.h"
#include "../store/store.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy import [--db PATH] [--db-timeout SECONDS] RESULT...\n\n"
    "Store each RESULT file (written by --result or left by a run the database could not\n"
    "take) as a new run in the run database, in the order given, and print its run number.\n"
    "The files are not changed; remove them once imported. The exit status is 2 if any file\n"
    "could not be read or stored (the others are stored all the same).\n\n" MS_DB_OPTION_HELP MS_DB_TIMEOUT_HELP
    "  -h, --help           this help\n";

int ms_cmd_import(int argc, char **argv)
{
    static const struct option longopts[] = {
        { "help", no_argument, NULL, 'h' },
        MS_DB_LONG_OPTION,
        MS_DB_TIMEOUT_LONG_OPTION,
        { NULL, 0, NULL, 0 },
    };
    const char *db_opt = NULL, *timeout = NULL;
    int opt;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case MS_OPT_DB: db_opt = optarg; break;
        case MS_OPT_DB_TIMEOUT: timeout = optarg; break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("import", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("import", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc) return ms_cli_usage_error("import", "missing the result file(s) to import");
    if (ms_cli_db_wait("import", timeout) != 0) return MS_EXIT_USAGE;
    char err[1024];
    ms_db *db = NULL;
    if (ms_db_open(ms_cli_db_path(db_opt), MS_DB_CREATE, &db, err, sizeof err) < 0)
        return ms_cli_error("import", "%s", err);
    int rc = 0;
    for (int i = optind; i < argc; i++) {
        ms_model m;
        int run_id = 0;
        if (ms_json_read(argv[i], &m, err, sizeof err) < 0) {
            rc = ms_cli_error("import", "%s", err);
            continue;
        }
        if (ms_db_store(db, &m, &run_id, err, sizeof err) < 0)
            rc = ms_cli_error("import", "%s", err);
        else
            printf("%s: stored as run %d in %s\n", ms_term(argv[i]), run_id, ms_term(ms_cli_db_path(db_opt)));
        ms_model_free(&m);
    }
    ms_db_close(db);
    if (fflush(stdout) != 0) rc = ms_cli_error("import", "cannot write to standard output");
    return rc;
}
