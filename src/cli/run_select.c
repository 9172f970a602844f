/* Which stored run a command reads: a run number in the database (the latest by default) or
 * a result file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../analysis/findings.h"
#include "../report/report.h"
#include "../store/store.h"
#include "../util/util.h"
#include "cli.h"

const char *ms_cli_db_path(const char *db_opt)
{
    if (db_opt && *db_opt) return db_opt;
    const char *env = getenv(MS_DB_ENV);
    return env && *env ? env : MS_DB_DEFAULT;
}

int ms_cli_is_run_number(const char *s) { return s && *s && strspn(s, "0123456789") == strlen(s); }

/* Run `arg` (a number, or NULL for the latest) from the database. */
static int load_from_db(const char *cmd, const char *db_opt, const char *arg, ms_model *m, int *run_id)
{
    char err[1024];
    ms_db *db = NULL;
    unsigned long id = 0;
    if (arg && ms_cli_parse_positive(arg, 2147483647ul, &id) < 0)
        return ms_cli_error(cmd, "'%s' is not a run number (runs are numbered from 1)", arg), -1;
    if (ms_db_open(ms_cli_db_path(db_opt), MS_DB_READONLY, &db, err, sizeof err) < 0)
        return ms_cli_error(cmd, "%s", err), -1;
    int rc = 0;
    if (arg)
        *run_id = (int)id;
    else
        rc = ms_db_latest(db, run_id, err, sizeof err);
    if (rc == 0) rc = ms_db_load(db, *run_id, m, err, sizeof err);
    ms_db_close(db);
    if (rc < 0) ms_cli_error(cmd, "%s", err);
    return rc;
}

int ms_cli_refuse_mtool(const char *cmd, const ms_model *m, const char *arg)
{
    if (!m->mtool) return 0;
    return ms_cli_error(cmd,
                        "run %s is an MTOOL run (memspy mtool): it has times per loop and procedure, no cache "
                        "statistics or bins; show, report, annotate and html display it",
                        arg ? ms_term(arg) : "(latest)");
}

int ms_cli_load_run(const char *cmd, const char *db_opt, const char *arg, ms_model *m, int *run_id)
{
    char err[1024];
    *run_id = 0;
    ms_model_init(m);
    if (!arg || ms_cli_is_run_number(arg)) {
        if (load_from_db(cmd, db_opt, arg, m, run_id) < 0) return -1;
    } else if (ms_json_read(arg, m, err, sizeof err) != 0) {
        return ms_cli_error(cmd, "%s", err), -1;
    }
    /* The headline names the bins as this run shows them, edits included. */
    if (ms_model_set_findings(m) < 0) return ms_cli_error(cmd, "out of memory"), -1;
    return 0;
}
