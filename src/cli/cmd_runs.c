/* memspy runs: the runs stored in the database, oldest first. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../report/text_fmt.h"
#include "../store/store.h"
#include "../util/util.h"
#include "cli.h"

static const char USAGE[] = "Usage: memspy runs [--db PATH]\n\n"
                            "List the runs stored in the run database: run number, start time, program and\n"
                            "arguments, references, L1 misses and memory stall cycles, then the simulated hierarchy\n"
                            "in one line and whether the run was made by run or resim. Runs whose program crashed\n"
                            "or was killed are marked 'incomplete'. Give the run number to report, show, fullname,\n"
                            "rename and combine.\n\n" MS_DB_OPTION_HELP "  -h, --help           this help\n";

static void print_run(const ms_run_info *r)
{
    char when[32] = "?";
    time_t t = (time_t)r->time;
    struct tm tm;
    if (localtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    char command[4096];
    snprintf(command, sizeof command, "%s%s%s", r->program ? r->program : "?", r->args && *r->args ? " " : "",
             r->args ? r->args : "");
    int mtool = r->origin && !strcmp(r->origin, "mtool"); /* simulated nothing: no counts to show */
    printf("%5d  %-19s  %10s %10s %10s  %s%s\n", r->id, when, mtool ? "-" : ms_fmt_count(r->refs).s,
           mtool ? "-" : ms_fmt_count(r->misses).s, mtool ? "-" : ms_fmt_count(r->stall_cycles).s, ms_term(command),
           r->incomplete ? "  (incomplete)" : "");
    if (r->hierarchy || r->origin) {
        printf("%5s  %s", "", r->hierarchy ? ms_term(r->hierarchy) : "?");
        if (r->origin) printf(" (memspy %s)", ms_term(r->origin));
        putchar('\n');
    }
}

int ms_cmd_runs(int argc, char **argv)
{
    const char *db_opt;
    int done, rc = ms_cli_db_options("runs", argc, argv, USAGE, &db_opt, &done);
    if (rc || done) return rc;
    if (optind < argc) return ms_cli_usage_error("runs", "unexpected argument '%s'", argv[optind]);
    char err[1024];
    ms_db *db = NULL;
    ms_run_info *runs = NULL;
    size_t n = 0;
    if (ms_db_open(ms_cli_db_path(db_opt), MS_DB_READONLY, &db, err, sizeof err) < 0 ||
        ms_db_list(db, &runs, &n, err, sizeof err) < 0) {
        ms_db_close(db);
        return ms_cli_error("runs", "%s", err);
    }
    ms_db_close(db);
    printf("%5s  %-19s  %10s %10s %10s  %s\n", "RUN", "TIME", "REFS", "MISSES", "STALL", "PROGRAM / HIERARCHY");
    for (size_t i = 0; i < n; i++) print_run(&runs[i]);
    ms_run_infos_free(runs, n);
    if (fflush(stdout) != 0) return ms_cli_error("runs", "cannot write the listing");
    return 0;
}
