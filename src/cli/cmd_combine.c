/* memspy combine: merge several bins of a stored run into one (counters summed), recorded in
 * the database so that this run and every later run of the same program show it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../store/store.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] =
    "Usage: memspy combine [RUN] NEW BIN... [--db PATH]\n\n"
    "Combine the code segments, or the data bins, that the BIN names match in run RUN\n"
    "(default: the latest run) into one bin named NEW: its references, misses, causes and\n"
    "stall are the sums of theirs (reports recompute rates from the sums). The combination\n"
    "is stored in the run database and applies to RUN and to every later run of the same\n"
    "program, where the bins are recognised by their full names. BIN is a short name, a\n"
    "full name or a glob; together they must match at least two bins of one kind.\n\n" MS_DB_OPTION_HELP
    "  -h, --help           this help\n";

int ms_cmd_combine(int argc, char **argv)
{
    const char *db_opt;
    int done, rc = ms_cli_db_options("combine", argc, argv, USAGE, &db_opt, &done);
    if (rc || done) return rc;
    int first = optind, npos = argc - optind;
    const char *run_arg = NULL;
    if (npos >= 3 && ms_cli_is_run_number(argv[first])) {
        run_arg = argv[first++];
        npos--;
    }
    if (npos < 2) return ms_cli_usage_error("combine", "expected NEW and at least one BIN");
    const char *new_name = argv[first];
    if (!*new_name) return ms_cli_usage_error("combine", "the new name is empty");
    ms_model m;
    int run_id, code;
    if (ms_cli_load_run("combine", db_opt, run_arg, &m, &run_id) < 0) return MS_EXIT_USAGE;
    if ((rc = ms_cli_refuse_mtool("combine", &m, run_arg)) != 0) {
        ms_model_free(&m);
        return rc;
    }
    uint32_t *sel = NULL;
    size_t nsel = 0;
    const char **full = NULL;
    rc = ms_cli_find_any_bins("combine", &m, &argv[first + 1], (size_t)npos - 1, &code, &sel, &nsel);
    if (rc == 0 && nsel < 2)
        rc = ms_cli_error("combine",
                          "the names match only one bin; combine needs two or more (memspy rename renames one)");
    if (rc == 0 && !(full = calloc(nsel, sizeof *full))) rc = ms_cli_error("combine", "out of memory");
    for (size_t i = 0; rc == 0 && i < nsel; i++) full[i] = ms_model_bin_full_name(&m, code, sel[i]);
    if (rc == 0) {
        char err[1024];
        ms_db *db = NULL;
        if (ms_db_open(ms_cli_db_path(db_opt), 0, &db, err, sizeof err) < 0 ||
            ms_db_combine(db, run_id, new_name, full, nsel, err, sizeof err) < 0) {
            rc = ms_cli_error("combine", "%s", err);
        } else {
            printf("combined %zu %s into %s in run %d and later runs of %s:\n", nsel,
                   code ? "code segments" : "data bins", ms_term(new_name), run_id, ms_term(m.program));
            for (size_t i = 0; i < nsel; i++) printf("  %s\n", ms_term(full[i]));
        }
        ms_db_close(db);
    }
    free(full);
    free(sel);
    ms_model_free(&m);
    return rc;
}
