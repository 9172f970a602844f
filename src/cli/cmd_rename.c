/* memspy rename: give a bin of a stored run a new name, recorded in the database so that
 * this run and every later run of the same program show it (matched by full name). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/store.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy rename [RUN] OLD NEW [--db PATH]\n\n"
    "Rename the code segment or data bin OLD of run RUN (default: the latest run) to NEW.\n"
    "The rename is stored in the run database and applies to RUN and to every later run of\n"
    "the same program, where the bin is recognised by its full name. OLD is a short name, a\n"
    "full name or a glob that matches exactly one bin.\n\n" MS_DB_OPTION_HELP "  -h, --help           this help\n";

/* A bin other than `except` of the same kind already called name? */
static int name_taken(const ms_model *m, int code, uint32_t except, const char *name)
{
    size_t n = code ? m->ncode : m->ndata;
    for (uint32_t i = 0; i < n; i++)
        if (i != except && strcmp(code ? m->code[i].name : m->data[i].name, name) == 0) return 1;
    return 0;
}

int ms_cmd_rename(int argc, char **argv)
{
    const char *db_opt;
    int done, rc = ms_cli_db_options("rename", argc, argv, USAGE, &db_opt, &done);
    if (rc || done) return rc;
    int npos = argc - optind;
    if (npos < 2) return ms_cli_usage_error("rename", "expected OLD and NEW names");
    if (npos > 3) return ms_cli_usage_error("rename", "unexpected argument '%s'", argv[optind + 3]);
    const char *run_arg = npos == 3 ? argv[optind] : NULL, *new_name = argv[argc - 1];
    if (run_arg && !ms_cli_is_run_number(run_arg))
        return ms_cli_usage_error("rename", "'%s' is not a run number (renames are stored with runs)", run_arg);
    if (!*new_name) return ms_cli_usage_error("rename", "the new name is empty");
    ms_model m;
    int run_id, code;
    if (ms_cli_load_run("rename", db_opt, run_arg, &m, &run_id) < 0) return MS_EXIT_USAGE;
    if ((rc = ms_cli_refuse_mtool("rename", &m, run_arg)) != 0) {
        ms_model_free(&m);
        return rc;
    }
    uint32_t *sel = NULL;
    size_t nsel = 0;
    rc = ms_cli_find_any_bins("rename", &m, &argv[argc - 2], 1, &code, &sel, &nsel);
    if (rc == 0 && nsel != 1)
        rc = ms_cli_error("rename", "'%s' matches %zu bins; name one (or use memspy combine)", argv[argc - 2], nsel);
    if (rc == 0 && name_taken(&m, code, sel[0], new_name))
        rc = ms_cli_error("rename", "run %d already has a %s named '%s' (memspy combine merges bins)", run_id,
                          code ? "code segment" : "data bin", new_name);
    if (rc == 0) {
        char err[1024];
        ms_db *db = NULL;
        const char *full = ms_model_bin_full_name(&m, code, sel[0]);
        if (ms_db_open(ms_cli_db_path(db_opt), 0, &db, err, sizeof err) < 0 ||
            ms_db_rename(db, run_id, full, new_name, err, sizeof err) < 0)
            rc = ms_cli_error("rename", "%s", err);
        else
            printf("renamed %s to %s in run %d and later runs of %s\n", ms_term(full), ms_term(new_name), run_id,
                   ms_term(m.program));
        ms_db_close(db);
    }
    free(sel);
    ms_model_free(&m);
    return rc;
}
