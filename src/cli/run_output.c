/* The options, output files and printing `memspy run` and `memspy resim` share around the
 * drive layer (src/drive): its errors printed as "memspy CMD: ...". */
#define _GNU_SOURCE
#include "run_output.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../analysis/findings.h"
#include "cli.h"

void ms_run_outputs_close(ms_run_outputs *out)
{
    ms_out_abort(&out->report_file);
    ms_out_abort(&out->json);
    ms_out_abort(&out->result);
    memset(out, 0, sizeof *out);
}

int ms_run_output_take(const char *cmd, ms_run_output_opts *o, int opt, const char *arg)
{
    unsigned long top = 0;
    switch (opt) {
    case 'o': o->output = arg; return 1;
    case MS_OPT_JSON_FILE: o->json = arg; return 1;
    case MS_OPT_RESULT_FILE: o->result = arg; return 1;
    case MS_OPT_DB: o->db_opt = arg; return 1;
    case MS_OPT_DB_TIMEOUT: o->db_timeout = arg; return 1;
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
    char err[1024];
    memset(out, 0, sizeof *out);
    if (ms_cli_db_wait(cmd, o->db_timeout) != 0) return MS_EXIT_USAGE;
    const char *paths[3] = { o->output, o->json, o->result };
    ms_out_file *files[3] = { &out->report_file, &out->json, &out->result };
    for (int i = 0; i < 3; i++) {
        if (paths[i] && ms_out_open(files[i], paths[i], err, sizeof err) < 0) {
            ms_run_outputs_close(out);
            return ms_cli_error(cmd, "%s", err);
        }
    }
    out->report = o->output ? out->report_file.f : stderr;
    return 0;
}

/* Write m as JSON (the report, or with `stored` the compact result file) into the started file
 * f and put it in place. 0, or -1 after a message. */
static int write_json_file(const char *cmd, const ms_model *m, ms_out_file *f, int stored, const char *what)
{
    char err[1024];
    errno = 0;
    if ((stored ? ms_json_write_stored(f->f, m) : ms_json_write(f->f, m)) < 0 || fflush(f->f) != 0) {
        int e = errno ? errno : EIO;
        ms_cli_error(cmd, "cannot write %s '%s': %s", what, f->path ? f->path : "", strerror(e));
        ms_out_abort(f);
        return -1;
    }
    if (ms_out_commit(f, err, sizeof err) < 0) return ms_cli_error(cmd, "%s", err), -1;
    return 0;
}

int ms_run_analyze(const char *cmd, const ms_raw *raw, ms_drive_metadata_fn fill, void *ud, ms_model *m)
{
    char err[1024];
    if (ms_drive_analyze(raw, fill, ud, m, err, sizeof err) < 0) return ms_cli_error(cmd, "%s", err);
    return ms_model_set_findings(m) < 0 ? ms_cli_error(cmd, "out of memory") : 0;
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

int ms_replay_into_raw(const char *cmd, const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                       char **problems)
{
    char err[2048];
    ms_drive_problems p;
    int rc = ms_drive_replay(dir, cfg, mode, raw, &p, err, sizeof err);
    return replay_outcome(cmd, rc, err, &p, problems);
}

int ms_resim_into_raw(const char *cmd, const char *raw_path, const char *dir, const ms_hier_config *cfg,
                      ms_interleave mode, ms_raw *raw, char **problems)
{
    return ms_resim_remap_into_raw(cmd, raw_path, dir, cfg, mode, NULL, raw, problems);
}

int ms_resim_remap_into_raw(const char *cmd, const char *raw_path, const char *dir, const ms_hier_config *cfg,
                            ms_interleave mode, ms_remap *remap, ms_raw *raw, char **problems)
{
    char err[2048];
    ms_drive_problems p;
    int rc = ms_drive_resim_remap(raw_path, dir, cfg, mode, remap, raw, &p, err, sizeof err);
    return replay_outcome(cmd, rc, err, &p, problems);
}

int ms_run_write_json(const char *cmd, const ms_model *m, const char *path)
{
    char err[1024];
    ms_out_file f = { 0 };
    if (ms_out_open(&f, path, err, sizeof err) < 0) return ms_cli_error(cmd, "%s", err), -1;
    return write_json_file(cmd, m, &f, 0, "the JSON report");
}

int ms_run_outputs_write(const char *cmd, const ms_model *m, const ms_run_output_opts *o, ms_run_outputs *out,
                         ms_db *db)
{
    char err[1024];
    int run_id = 0;
    int rc = 0;
    /* A multithreaded run also shows its processors (the matrix's coherence columns need them).
     * A file that cannot be written is an error, but the run is still saved. */
    if (!o->no_report && (ms_report_matrix(out->report, m, &o->mopts) < 0 ||
                          (m->nprocs > 1 && (fputc('\n', out->report) == EOF || ms_report_procs(out->report, m) < 0)) ||
                          fflush(out->report) != 0)) {
        rc = ms_cli_error(cmd, "cannot write the report%s%s", o->output ? " to " : "", o->output ? o->output : "");
        ms_out_abort(&out->report_file);
    }
    if (out->report_file.f && ms_out_commit(&out->report_file, err, sizeof err) < 0) rc = ms_cli_error(cmd, "%s", err);
    if (out->result.f && write_json_file(cmd, m, &out->result, 1, "the result file") < 0) rc = MS_EXIT_USAGE;
    if (out->json.f && write_json_file(cmd, m, &out->json, 0, "the JSON report") < 0) rc = MS_EXIT_USAGE;
    if (ms_db_store(db, m, &run_id, err, sizeof err) < 0) {
        ms_cli_error(cmd, "%s", err);
        return ms_cli_keep_unstored(cmd, m, o->db_opt);
    }
    fprintf(stderr, "memspy: stored as run %d in %s\n", run_id, ms_term(ms_cli_db_path(o->db_opt)));
    return rc;
}
