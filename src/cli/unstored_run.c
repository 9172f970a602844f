/* A run the database could not take (locked beyond the wait, read-only, disk full, damaged,
 * run numbers exhausted) is never thrown away: it is saved as a result file, next to the
 * database if possible, else in the current directory, else in $TMPDIR, and the message says
 * where and how to load it later (memspy import). */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../report/report.h"
#include "../util/util.h"
#include "cli.h"

/* Save m as DIR/memspy-run-PID[-N].result, never replacing a file. 0 with *path set, or -1
 * with err set. */
static int save_in(const char *dir, const ms_model *m, char **path, char *err, size_t errlen)
{
    for (int n = 1; n <= 100; n++) {
        ms_out_file o;
        char *candidate = NULL;
        int len = n == 1 ? asprintf(&candidate, "%s/memspy-run-%d.result", dir, (int)getpid())
                         : asprintf(&candidate, "%s/memspy-run-%d-%d.result", dir, (int)getpid(), n);
        if (len < 0) return ms_errorf(err, errlen, "out of memory");
        if (ms_out_open(&o, candidate, err, errlen) < 0) {
            free(candidate);
            return -1;
        }
        o.exclusive = 1;
        int rc = ms_json_write_stored(o.f, m) < 0 ? ms_errorf(err, errlen, "cannot write %s", candidate) : 0;
        if (rc < 0)
            ms_out_abort(&o);
        else
            rc = ms_out_commit(&o, err, errlen);
        if (rc == 0) {
            *path = candidate;
            return 0;
        }
        free(candidate);
        if (rc != MS_OUT_EXISTS) return -1;
    }
    return ms_errorf(err, errlen, "%s holds too many unstored runs", dir);
}

int ms_cli_keep_unstored(const char *cmd, const ms_model *m, const char *db_opt)
{
    const char *db = ms_cli_db_path(db_opt), *tmp = getenv("TMPDIR");
    char *db_copy = strdup(db), *path = NULL, err[3][512];
    const char *dirs[3] = { db_copy ? dirname(db_copy) : ".", ".", tmp && *tmp ? tmp : "/tmp" };
    int i;
    for (i = 0; i < 3; i++) {
        err[i][0] = '\0';
        if (i > 0 && strcmp(dirs[i], dirs[0]) == 0) continue; /* tried already */
        if (save_in(dirs[i], m, &path, err[i], sizeof err[i]) == 0) break;
    }
    int rc;
    if (path) {
        rc = ms_cli_error(cmd, "the run is kept in %s: store it later with 'memspy import%s%s %s'", path,
                          db_opt ? " --db " : "", db_opt ? db_opt : "", path);
    } else {
        rc = ms_cli_error(cmd, "the run could not be kept either:");
        for (i = 0; i < 3; i++)
            if (err[i][0]) fprintf(stderr, "  %s\n", ms_term(err[i]));
    }
    free(path);
    free(db_copy);
    return rc;
}
