/* Shared between the database's opening/migration code (db.c) and its run queries (runs.c). */
#ifndef MEMSPY_STORE_STORE_INTERNAL_H
#define MEMSPY_STORE_STORE_INTERNAL_H
#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "store.h"

/* Schema history (PRAGMA user_version):
 *   0  an empty SQLite file: no tables yet (a new database)
 *   1  table runs: the listing columns and the model as JSON text (column model)
 *   2  runs.git_commit, runs.program_key, runs.model_encoding ('json' or 'zstd': the JSON
 *      compressed with zstd); tables bin_edits and bin_edit_members (renames, combinations) */
#define MS_DB_SCHEMA_VERSION 3 /* 3: runs.hierarchy, runs.origin */

struct ms_db {
    sqlite3 *h;
    char *path;
    int version; /* schema version of the file (readers accept older ones) */
    bool readonly;
    int busy_ms; /* how long a locked database is waited for */
};

/* err = "WHAT PATH: <the cause in words>" for the SQLite result code rc of db's last call:
 * locked (with the time waited and how to wait longer), read-only, disk full, damaged, or
 * SQLite's own message. Returns -1. */
int ms_db_explain(const ms_db *db, int rc, const char *what, char *err, size_t errlen);

/* err = "PREFIX: <sqlite's message for db>"; returns -1. */
int ms_db_fail(const ms_db *db, const char *prefix, char *err, size_t errlen);

#endif
