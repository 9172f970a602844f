/* The run database: every `memspy run` (and later `resim`) stores its model in an embedded
 * SQLite database so that runs can be listed, re-read, renamed, combined and compared.
 * A store only reads the model (and writes it back on load); it never recomputes statistics.
 * Schema versioned (PRAGMA user_version) and migrated forward with a backup copy; concurrent
 * writers serialise on SQLite's locks (WAL, busy timeout) and all land. */
#ifndef MEMSPY_STORE_STORE_H
#define MEMSPY_STORE_STORE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../model/model.h"

typedef struct ms_db ms_db;

#define MS_DB_READONLY 1 /* open for reading only (reports on a read-only file) */
#define MS_DB_CREATE 2   /* create the file and schema if absent */

/* One line of `memspy runs`. */
typedef struct {
    int id;       /* 1, 2, ... in the order stored */
    int64_t time; /* unix seconds the run started */
    char *program, *args, *cwd, *git_commit, *memspy_version;
    char *hierarchy, *origin; /* ms_model_config_summary and the model's origin; NULL for runs
                               * stored before schema 3 */
    double wall_seconds;
    uint64_t refs, misses, stall_cycles;
    bool incomplete;
} ms_run_info;

/* How long the next ms_db_open waits for a database another process has locked before
 * giving up (default MS_DB_DEFAULT_WAIT_MS): the CLI's --db-timeout and $MEMSPY_DB_TIMEOUT. */
#define MS_DB_DEFAULT_WAIT_MS 10000
void ms_db_set_wait(int milliseconds);

/* Open (and with MS_DB_CREATE create) the database at path. A corrupt, foreign or newer
 * database is an error naming the problem; nothing is written to it. Returns 0 or -1. */
int ms_db_open(const char *path, int flags, ms_db **out, char *err, size_t errlen);
void ms_db_close(ms_db *db);

/* Store m as a new run; *run_id receives its number. Returns 0 or -1 with err naming the
 * cause: locked beyond the wait, read-only, disk full, damaged, run numbers exhausted. */
int ms_db_store(ms_db *db, const ms_model *m, int *run_id, char *err, size_t errlen);

/* Load run run_id into m (ms_model_init'ed by the callee), with the renames and combinations
 * recorded for its program applied. Returns 0, or -1 (unknown run: err lists nearby ids). */
int ms_db_load(ms_db *db, int run_id, ms_model *m, char *err, size_t errlen);

/* The number of the latest run; -1 with err if there is none. */
int ms_db_latest(ms_db *db, int *run_id, char *err, size_t errlen);

/* All runs, oldest first. Returns 0 or -1. */
int ms_db_list(ms_db *db, ms_run_info **runs, size_t *n, char *err, size_t errlen);
void ms_run_infos_free(ms_run_info *runs, size_t n);

/* Record a rename of the bin whose full name is `full_name` (data or code) to `new_name`,
 * for the program of run run_id and every later run of it. Returns 0 or -1. */
int ms_db_rename(ms_db *db, int run_id, const char *full_name, const char *new_name, char *err, size_t errlen);

/* Record that the bins with these full names form one bin `new_name` (their statistics
 * summed), for the program of run run_id and its later runs. Returns 0 or -1. */
int ms_db_combine(ms_db *db, int run_id, const char *new_name, const char *const *full_names, size_t n, char *err,
                  size_t errlen);

#endif
