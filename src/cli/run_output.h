/* What `memspy run` and `memspy resim` share around the drive layer (src/drive): outputs
 * opened before any work (so that an unwritable path fails early), the drive's replay and
 * analysis with their errors printed, then the matrix, the run database and the JSON files. */
#ifndef MEMSPY_CLI_RUN_OUTPUT_H
#define MEMSPY_CLI_RUN_OUTPUT_H
#include <stdio.h>
#include "../drive/drive.h"
#include "../format/raw.h"
#include "../model/model.h"
#include "../report/report.h"
#include "../store/store.h"
#include "../util/util.h"

typedef struct {
    const char *output, *json, *result, *db_opt, *db_timeout; /* NULL when not given */
    int no_report;
    ms_matrix_opts mopts;
} ms_run_output_opts;

/* getopt_long entries and help of the output options `run` and `resim` share. */
#define MS_RUN_OUTPUT_LONG_OPTIONS                                                                                   \
    { "output", required_argument, NULL, 'o' }, { "json", required_argument, NULL, MS_OPT_JSON_FILE },               \
        { "result", required_argument, NULL, MS_OPT_RESULT_FILE }, { "top", required_argument, NULL, MS_OPT_TOP_N }, \
        { "no-report", no_argument, NULL, MS_OPT_NO_REPORT }, MS_DB_TIMEOUT_LONG_OPTION, MS_DB_LONG_OPTION
#define MS_RUN_OUTPUT_HELP                                                                    \
    "  -o, --output FILE    write the matrix to FILE (default: standard error)\n"             \
    "  --json FILE          also write the JSON report to FILE\n"                             \
    "  --result FILE        also save the result file (JSON) here\n"                          \
    "  --top N              rows and columns of the matrix before 'others' (default 8 x 6)\n" \
    "  --no-report          do not print the matrix\n" MS_DB_OPTION_HELP MS_DB_TIMEOUT_HELP

/* Take option opt (argument arg) into o if it is one of those: 1 if taken, 0 if it is not
 * one of them, -1 after "memspy CMD: ..." for a bad value. */
int ms_run_output_take(const char *cmd, ms_run_output_opts *o, int opt, const char *arg);

typedef struct {
    FILE *report;                          /* the matrix: the -o file or stderr */
    ms_out_file report_file, json, result; /* written aside, renamed into place when complete */
} ms_run_outputs;

/* Start every output file o names, beside its destination (which stays as it is until the
 * file is complete), and apply the database wait. Returns 0, or MS_EXIT_USAGE after
 * "memspy CMD: ...". */
int ms_run_outputs_open(const char *cmd, const ms_run_output_opts *o, ms_run_outputs *out);
void ms_run_outputs_close(ms_run_outputs *out);

/* ms_drive_analyze, its error printed: 0, or MS_EXIT_USAGE after "memspy CMD: ..." (m is
 * then freed). */
int ms_run_analyze(const char *cmd, const ms_raw *raw, ms_drive_metadata_fn fill, void *ud, ms_model *m);

/* ms_drive_replay, its errors and the incomplete streams printed as "memspy CMD: ...":
 * returns 0; 1 with *problems (malloc'd) the incomplete streams joined by "; "; -1. */
int ms_replay_into_raw(const char *cmd, const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                       char **problems);

/* ms_drive_resim, printed as ms_replay_into_raw is; raw is to be freed whatever the result. */
int ms_resim_into_raw(const char *cmd, const char *raw_path, const char *dir, const ms_hier_config *cfg,
                      ms_interleave mode, ms_raw *raw, char **problems);

/* ms_resim_into_raw through ms_drive_resim_remap (remap observing or remapping). */
int ms_resim_remap_into_raw(const char *cmd, const char *raw_path, const char *dir, const ms_hier_config *cfg,
                            ms_interleave mode, ms_remap *remap, ms_raw *raw, char **problems);

/* Write m as JSON (the format of --json) to path, in place once complete. 0, or -1 after
 * "memspy CMD: ...". */
int ms_run_write_json(const char *cmd, const ms_model *m, const char *path);

/* The matrix, then the files asked for, then the run into the database. A run the database
 * cannot take is kept in a result file next to it (see ms_cli_keep_unstored) and is an error
 * (MS_EXIT_USAGE); the files asked for are written all the same. */
int ms_run_outputs_write(const char *cmd, const ms_model *m, const ms_run_output_opts *o, ms_run_outputs *out,
                         ms_db *db);

#endif
