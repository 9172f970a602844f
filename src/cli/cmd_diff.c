/* memspy diff: compare two runs bin by bin — references, misses, stall time and miss causes
 * of both, what got better or worse sorted by change in stall time, and the bins that
 * appeared or vanished; with --fail-if, a regression gate for CI (exit 1 when a rule fails). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../model/gate.h"
#include "../report/diff_report.h"
#include "../report/gate_report.h"
#include "cli.h"

#define MAX_RULES 64

#define MAX_TOP 100000ul

static const char USAGE[] =
    "Usage: memspy diff RUN1 RUN2 [--db PATH] [--top N] [--json] [--fail-if RULE]...\n\n"
    "Compare two runs (run numbers of the database, or result files): per (code segment,\n"
    "data bin) cell, per data bin and per code segment, the references, L1 misses, memory\n"
    "stall time and miss causes of both runs, sorted by the change in stall time (largest\n"
    "first). A negative change means RUN2 stalls less: better. Bins are matched by full\n"
    "name (data) and by name and source file (code); those in only one run are listed.\n\n" MS_DB_OPTION_HELP
    "  --top N              rows of each table (default 10)\n"
    "  --json               print the whole comparison as JSON\n"
    "  --fail-if RULE       exit 1 if RULE holds, e.g. 'stall>+5%', 'misses@data:double*.Y>+1000',\n"
    "                       'conflict@code:BlkMultiply>+10%', 'refs<-50%' (repeatable; metrics: stall,\n"
    "                       misses, refs, cold, capacity, conflict, coherence, invalidations)\n"
    "  -h, --help           this help\n";

/* "run 3" or the result file's path, with the program's arguments: the heading of a run. */
static void run_label(char *buf, size_t len, const char *arg, int run_id, const ms_model *m)
{
    size_t at = run_id > 0 ? (size_t)snprintf(buf, len, "run %d:", run_id) : (size_t)snprintf(buf, len, "%s:", arg);
    for (int i = 0; i < m->argc && at < len; i++)
        at += (size_t)snprintf(buf + at, len - at, " %s", m->argv[i] ? m->argv[i] : "");
}

/* The gate's rules and verdict, when --fail-if was given. */
typedef struct {
    ms_gate_rule rules[MAX_RULES];
    size_t nrules;
    ms_gate_result *res;
    size_t nres;
    long failed;
} gate;

/* Print the comparison (and the gate's verdict) as text or JSON. Returns 0 or -1. */
static int print(const ms_diff *d, const ms_diff_labels *labels, int top, int json, const gate *g)
{
    if (!json) {
        if (ms_report_diff(stdout, d, labels, top) < 0) return -1;
        return g->nrules ? ms_report_gate(stdout, g->rules, g->res, g->nres, g->failed) : 0;
    }
    json_t *verdict = g->nrules ? ms_gate_json(g->rules, g->res, g->nres, g->failed) : NULL;
    if (g->nrules && !verdict) return -1;
    int rc = ms_json_write_diff(stdout, d, labels, verdict);
    json_decref(verdict);
    return rc;
}

static int compare(const char *db, const char *arg1, const char *arg2, int top, int json, gate *g)
{
    ms_model m[2];
    ms_diff d;
    char label[2][512], config[2][256], err[512];
    int run_id[2], rc = 0;
    const char *args[2] = { arg1, arg2 };
    ms_model_init(&m[0]);
    ms_model_init(&m[1]);
    for (int r = 0; r < 2 && rc == 0; r++) {
        if (ms_cli_load_run("diff", db, args[r], &m[r], &run_id[r]) < 0)
            rc = MS_EXIT_USAGE;
        else if ((rc = ms_cli_refuse_mtool("diff", &m[r], args[r])) != 0)
            ;
        else {
            run_label(label[r], sizeof label[r], args[r], run_id[r], &m[r]);
            ms_model_config_summary(&m[r], config[r], sizeof config[r]);
        }
    }
    if (rc == 0 && ms_model_diff(&m[0], &m[1], &d) < 0) rc = ms_cli_error("diff", "out of memory");
    if (rc == 0) {
        ms_diff_labels labels = { { label[0], label[1] }, { config[0], config[1] }, { m[0].origin, m[1].origin } };
        if (g->nrules && (g->failed = ms_gate_check(g->rules, g->nrules, &d, &g->res, &g->nres, err, sizeof err)) < 0)
            rc = ms_cli_error("diff", "--fail-if %s", err);
        else if (print(&d, &labels, top, json, g) < 0 || fflush(stdout) != 0)
            rc = ms_cli_error("diff", "cannot write the comparison");
        else if (g->failed > 0)
            rc = 1;
        free(g->res);
        ms_diff_free(&d);
    }
    ms_model_free(&m[0]);
    ms_model_free(&m[1]);
    return rc;
}

int ms_cmd_diff(int argc, char **argv)
{
    enum { OPT_JSON = MS_OPT_FIRST_FREE, OPT_TOP, OPT_FAIL_IF };
    static const struct option longopts[] = {
        MS_DB_LONG_OPTION,
        { "json", no_argument, NULL, OPT_JSON },
        { "top", required_argument, NULL, OPT_TOP },
        { "fail-if", required_argument, NULL, OPT_FAIL_IF },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *db = NULL;
    int json = 0, opt;
    unsigned long top = 0;
    static gate g;
    char err[512];
    opterr = 0;
    while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (opt) {
        case MS_OPT_DB: db = optarg; break;
        case OPT_JSON: json = 1; break;
        case OPT_TOP:
            if (ms_cli_parse_positive(optarg, MAX_TOP, &top) < 0)
                return ms_cli_usage_error("diff", "--top: '%s' is not a number in 1..%lu", optarg, MAX_TOP);
            break;
        case OPT_FAIL_IF:
            if (g.nrules == MAX_RULES) return ms_cli_usage_error("diff", "--fail-if: at most %d rules", MAX_RULES);
            if (ms_gate_parse(optarg, &g.rules[g.nrules], err, sizeof err) < 0)
                return ms_cli_usage_error("diff", "--fail-if %s", err);
            g.nrules++;
            break;
        case 'h': fputs(USAGE, stdout); return 0;
        case ':': return ms_cli_usage_error("diff", "option '%s' needs an argument", argv[optind - 1]);
        default: return ms_cli_usage_error("diff", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind < 2) return ms_cli_usage_error("diff", "needs two runs: RUN1 RUN2");
    if (argc - optind > 2) return ms_cli_usage_error("diff", "unexpected argument '%s'", argv[optind + 2]);
    return compare(db, argv[optind], argv[optind + 1], (int)top, json, &g);
}
