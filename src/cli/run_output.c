/* The options, output files and printing `memspy run` and `memspy resim` share around the
 * drive layer (src/drive): its errors printed as "memspy CMD: ...". */
#define _GNU_SOURCE
#include "run_output.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

void ms_run_outputs_close(ms_run_outputs *out)
{
    if (out->report && out->report != stderr) fclose(out->report);
    if (out->json) fclose(out->json);
    if (out->result) fclose(out->result);
    memset(out, 0, sizeof *out);
}

static FILE *open_output(const char *cmd, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) ms_cli_error(cmd, "cannot write '%s': %s", path, strerror(errno));
    return f;
}



int ms_run_output_take(const char *cmd, ms_run_output_opts *o, int opt, const char *arg)
{
    unsigned long top = 0;
    switch (opt) {
    case 'o': o->output = arg; return 1;
    case MS_OPT_JSON_FILE: o->json = arg; return 1;
    case MS_OPT_RESULT_FILE: o->result = arg; return 1;
    case MS_OPT_DB: o->db_opt = arg; return 1;
    case MS_OPT_NO_REPORT: o->no_report = 1; return 1;
    case MS_OPT_TOP_N:
        if (ms_cli_parse_positive(arg, MS_CLI_MAX_TOP, &top) < 0) {
            ms_cli_usage_error(cmd, "--top: '%s' is not a number in 1..%lu", arg, MS_CLI_MAX_TOP);
            return -1;
        }
        o->mopts.top_code = o->mopts.top_data = (int)top;
        return 1;
    default: return 0;
    }
}

int ms_run_outputs_open(const char *cmd, const ms_run_output_opts *o, ms_run_outputs *out)
{
    memset(out, 0, sizeof *out);
    out->report = o->output ? open_output(cmd, o->output) : stderr;
    if (out->report && o->json) out->json = open_output(cmd, o->json);
    if (out->report && (out->json || !o->json) && o->result) out->result = open_output(cmd, o->result);
    if (!out->report || (o->json && !out->json) || (o->result && !out->result)) {
        ms_run_outputs_close(out);
        return MS_EXIT_USAGE;
    }
    return 0;
}

/* The run was not stored: leave no half-made output behind. */
static void discard_outputs(const ms_run_output_opts *o, ms_run_outputs *out)
{
    if (out->json) unlink(o->json);
    if (out->result) unlink(o->result);
}

int ms_run_analyze(const char *cmd, const ms_raw *raw, ms_drive_metadata_fn fill, void *ud, ms_model *m)
{
    char err[1024];
    return ms_drive_analyze(raw, fill, ud, m, err, sizeof err) < 0 ? ms_cli_error(cmd, "%s", err) : 0;
}

/* Print a drive replay's outcome: its error, or each incomplete stream, joined into
 * *problems. Returns rc, or -1 when out of memory. */
static int replay_outcome(const char *cmd, int rc, const char *err, ms_drive_problems *p, char **problems)
{
    *problems = NULL;
    if (rc < 0) {
        ms_cli_error(cmd, "%s", err);
    } else if (rc > 0) {
        for (size_t i = 0; i < p->n; i++) ms_cli_error(cmd, "%s", p->v[i]);
        if (!(*problems = ms_drive_problems_join(p))) rc = -1;
    }
    ms_drive_problems_free(p);
    return rc;
}

int ms_replay_into_raw(const char *cmd, const char *dir, const ms_hier_config *cfg, ms_interleave mode,
                       ms_raw *raw, char **problems)
{
    char err[2048];
    ms_drive_problems p;
    int rc = ms_drive_replay(dir, cfg, mode, raw, &p, err, sizeof err);
    return replay_outcome(cmd, rc, err, &p, problems);
}

int ms_resim_into_raw(const char *cmd, const char *raw_path, const char *dir, const ms_hier_config *cfg,
                      ms_interleave mode, ms_raw *raw, char **problems)
{
    char err[2048];
    ms_drive_problems p;
    int rc = ms_drive_resim(raw_path, dir, cfg, mode, raw, &p, err, sizeof err);
    return replay_outcome(cmd, rc, err, &p, problems);
}

int ms_run_outputs_write(const char *cmd, const ms_model *m, const ms_run_output_opts *o, ms_run_outputs *out,
                         ms_db *db)
{
    char err[1024];
    int run_id = 0;
    /* A multithreaded run also shows its processors (the matrix's coherence columns need them). */
    if (!o->no_report && (ms_report_matrix(out->report, m, &o->mopts) < 0 ||
                          (m->nprocs > 1 && (fputc('\n', out->report) == EOF || ms_report_procs(out->report, m) < 0)) ||
                          fflush(out->report) != 0))
        return ms_cli_error(cmd, "cannot write the report%s%s", o->output ? " to " : "",
                            o->output ? o->output : "");
    if (ms_db_store(db, m, &run_id, err, sizeof err) < 0) {
        discard_outputs(o, out);
        return ms_cli_error(cmd, "%s", err);
    }
    fprintf(stderr, "memspy: stored as run %d in %s\n", run_id, ms_cli_db_path(o->db_opt));
    if (out->result && (ms_json_write(out->result, m) < 0 || fflush(out->result) != 0))
        return ms_cli_error(cmd, "cannot write the result file '%s'", o->result);
    if (out->json && (ms_json_write(out->json, m) < 0 || fflush(out->json) != 0))
        return ms_cli_error(cmd, "cannot write the JSON report '%s'", o->json);
    return 0;
}
