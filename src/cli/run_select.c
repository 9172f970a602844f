/* Which stored run a command reads: a run number in the database or a result file. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../report/report.h"
#include "cli.h"

const char *ms_cli_db_path(const char *db_opt)
{
    if (db_opt && *db_opt)
        return db_opt;
    const char *env = getenv(MS_DB_ENV);
    return env && *env ? env : MS_DB_DEFAULT;
}

int ms_cli_load_run(const char *cmd, const char *db_opt, const char *arg, ms_model *m, int *run_id)
{
    char err[1024];
    struct stat st;
    (void)db_opt;
    *run_id = 0;
    if (arg && stat(arg, &st) == 0 && S_ISREG(st.st_mode)) {
        if (ms_json_read(arg, m, err, sizeof err) != 0)
            return ms_cli_error(cmd, "%s", err), -1;
        return 0;
    }
    /* The run database is not wired in yet: only result files. */
    return ms_cli_error(cmd, "%s: no such result file", arg ? arg : "(latest run)"), -1;
}
