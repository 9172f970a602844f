/* Opening the run database: recognising memspy's files (and refusing anything else before a
 * byte is written), migrating older schemas forward after a backup copy, and the settings
 * that let several `memspy run`s store at once (WAL journal, busy timeout). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_internal.h"

#define APPLICATION_ID 1297305689 /* 0x4d535059, "MSPY" in the file header */

/* The wait for a locked database given to the databases opened next (ms_db_set_wait). */
static int wait_ms = MS_DB_DEFAULT_WAIT_MS;

void ms_db_set_wait(int milliseconds) { wait_ms = milliseconds < 0 ? 0 : milliseconds; }

/* MIGRATIONS[v] takes a database from schema v to v + 1 (run in one transaction). */
static const char *const MIGRATIONS[MS_DB_SCHEMA_VERSION] = {
    "PRAGMA application_id = 1297305689;"
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " time INTEGER NOT NULL,"
    " program TEXT NOT NULL,"
    " args TEXT NOT NULL,"
    " cwd TEXT,"
    " memspy_version TEXT,"
    " wall_seconds REAL NOT NULL,"
    " refs INTEGER NOT NULL,"
    " misses INTEGER NOT NULL,"
    " stall_cycles INTEGER NOT NULL,"
    " incomplete INTEGER NOT NULL,"
    " model BLOB NOT NULL);",

    "ALTER TABLE runs ADD COLUMN git_commit TEXT;"
    "ALTER TABLE runs ADD COLUMN program_key TEXT;"
    "ALTER TABLE runs ADD COLUMN model_encoding TEXT NOT NULL DEFAULT 'json';"
    "UPDATE runs SET program_key = CASE"
    " WHEN instr(program, '/') = 0 OR substr(program, 1, 1) = '/' OR cwd IS NULL THEN program"
    " WHEN substr(program, 1, 2) = './' THEN cwd || substr(program, 2)"
    " ELSE cwd || '/' || program END;"
    "CREATE TABLE bin_edits ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " program_key TEXT NOT NULL,"
    " from_run INTEGER NOT NULL,"
    " kind TEXT NOT NULL CHECK (kind IN ('rename', 'combine')),"
    " new_name TEXT NOT NULL);"
    "CREATE TABLE bin_edit_members ("
    " edit_id INTEGER NOT NULL REFERENCES bin_edits(id),"
    " position INTEGER NOT NULL,"
    " full_name TEXT NOT NULL,"
    " PRIMARY KEY (edit_id, position));"
    "CREATE INDEX bin_edits_program ON bin_edits(program_key);",

    "ALTER TABLE runs ADD COLUMN hierarchy TEXT; ALTER TABLE runs ADD COLUMN origin TEXT;",
};

int ms_db_fail(const ms_db *db, const char *prefix, char *err, size_t errlen)
{
    snprintf(err, errlen, "%s: %s", prefix, sqlite3_errmsg(db->h));
    return -1;
}

/* What the file says about itself, read without writing anything. */
typedef struct {
    int version, application_id, ntables;
    bool has_runs;
} db_header;

/* One integer from a single-row query; returns the SQLite result code. */
static int query_int(sqlite3 *h, const char *sql, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(h, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) {
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
            *out = sqlite3_column_int(st, 0);
            rc = SQLITE_OK;
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* Read in one transaction: another process may be creating the schema meanwhile. */
static int read_header(sqlite3 *h, db_header *hd)
{
    int has_runs = 0;
    int rc = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL);
    if (rc == SQLITE_OK) rc = query_int(h, "PRAGMA user_version", &hd->version);
    if (rc == SQLITE_OK) rc = query_int(h, "PRAGMA application_id", &hd->application_id);
    if (rc == SQLITE_OK) rc = query_int(h, "SELECT count(*) FROM sqlite_master", &hd->ntables);
    if (rc == SQLITE_OK)
        rc = query_int(h, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'runs'", &has_runs);
    hd->has_runs = has_runs > 0;
    sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* "file:PATH?mode=ro&immutable=1", percent-encoding what a URI path cannot hold. */
static char *immutable_uri(const char *path)
{
    size_t n = strlen(path);
    char *uri = malloc(n * 3 + 32), *p = uri;
    if (!uri) return NULL;
    p += sprintf(p, "file:");
    for (const unsigned char *s = (const unsigned char *)path; *s; s++) {
        if (*s == '%' || *s == '?' || *s == '#' || *s < 0x20 || *s >= 0x7f)
            p += sprintf(p, "%%%02X", *s);
        else
            *p++ = (char)*s;
    }
    strcpy(p, "?mode=ro&immutable=1");
    return uri;
}

/* Open and read the header. A WAL database in a directory we cannot write (no -shm) is
 * opened immutable instead: nobody can change it there either. */
static int open_and_inspect(ms_db *db, int open_flags, db_header *hd, char *err, size_t errlen)
{
    if (sqlite3_open_v2(db->path, &db->h, open_flags, NULL) != SQLITE_OK) return ms_db_fail(db, db->path, err, errlen);
    sqlite3_busy_timeout(db->h, db->busy_ms);
    int rc = read_header(db->h, hd);
    int primary = rc & 0xff;
    if (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY) {
        char *uri = immutable_uri(db->path);
        sqlite3_close(db->h);
        db->h = NULL;
        db->readonly = true;
        if (!uri) return snprintf(err, errlen, "out of memory"), -1;
        int orc = sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
        free(uri);
        if (orc != SQLITE_OK) return ms_db_fail(db, db->path, err, errlen);
        rc = read_header(db->h, hd);
        primary = rc & 0xff;
    }
    if (primary == SQLITE_NOTADB) {
        snprintf(err, errlen, "%s is not a memspy database", db->path);
        return -1;
    }
    if (primary == SQLITE_FULL || primary == SQLITE_BUSY || primary == SQLITE_LOCKED ||
        (primary == SQLITE_IOERR && sqlite3_system_errno(db->h) == ENOSPC))
        return ms_db_explain(db, rc, "cannot open", err, errlen);
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s is damaged or unreadable: %s", db->path, sqlite3_errstr(rc));
        return -1;
    }
    return 0;
}

/* The file's own 100-byte header, read without SQLite so that a file refused here gets no
 * journal or shared-memory file next to it: a wrong magic string, a newer schema or another
 * application's id. What the header cannot prove (it may lag behind a WAL file) is left to
 * check_header. Returns 0 if the file may be memspy's, else -1 with err set. */
static int precheck_file(const char *path, const struct stat *st, char *err, size_t errlen)
{
    static const char MAGIC[16] = "SQLite format 3";
    unsigned char h[100];
    if (st->st_size == 0) return 0; /* an empty file: a new database */
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    size_t n = fread(h, 1, sizeof h, f);
    fclose(f);
    uint32_t version = (uint32_t)h[60] << 24 | (uint32_t)h[61] << 16 | (uint32_t)h[62] << 8 | h[63];
    uint32_t app = (uint32_t)h[68] << 24 | (uint32_t)h[69] << 16 | (uint32_t)h[70] << 8 | h[71];
    if (n < sizeof h || memcmp(h, MAGIC, sizeof MAGIC) != 0 || (app != 0 && app != APPLICATION_ID))
        snprintf(err, errlen, "%s is not a memspy database", path);
    else if (version > MS_DB_SCHEMA_VERSION)
        snprintf(err, errlen, "%s was written by a newer memspy (schema %u)", path, version);
    else
        return 0;
    return -1;
}

/* Refuse files that are not memspy's or are too new, before writing anything. */
static int check_header(const ms_db *db, const db_header *hd, char *err, size_t errlen)
{
    if (hd->version > MS_DB_SCHEMA_VERSION)
        snprintf(err, errlen, "%s was written by a newer memspy (schema %d)", db->path, hd->version);
    else if ((hd->version == 0 && hd->ntables > 0) ||
             (hd->version > 0 && (hd->application_id != APPLICATION_ID || !hd->has_runs)))
        snprintf(err, errlen, "%s is not a memspy database", db->path);
    else
        return 0;
    return -1;
}

/* Copy the database as it is to PATH.bak-vN (kept if it exists: that is the older copy). */
static int backup(ms_db *db, int version, char *err, size_t errlen)
{
    char *bak = NULL;
    if (asprintf(&bak, "%s.bak-v%d", db->path, version) < 0) return snprintf(err, errlen, "out of memory"), -1;
    if (access(bak, F_OK) == 0) {
        free(bak);
        return 0;
    }
    sqlite3 *dest = NULL;
    int rc = sqlite3_open_v2(bak, &dest, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc == SQLITE_OK) {
        sqlite3_backup *b = sqlite3_backup_init(dest, "main", db->h, "main");
        if (b) {
            rc = sqlite3_backup_step(b, -1);
            rc = sqlite3_backup_finish(b) == SQLITE_OK && rc == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
        } else {
            rc = SQLITE_ERROR;
        }
    }
    if (rc != SQLITE_OK)
        snprintf(err, errlen, "%s: cannot back up the database before migrating it to %s: %s", db->path, bak,
                 dest ? sqlite3_errmsg(dest) : "out of memory");
    sqlite3_close(dest);
    if (rc != SQLITE_OK) unlink(bak);
    free(bak);
    return rc == SQLITE_OK ? 0 : -1;
}

static int exec(ms_db *db, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
    if (rc == SQLITE_OK) return 0;
    int primary = rc & 0xff;
    if (primary == SQLITE_FULL || primary == SQLITE_BUSY || primary == SQLITE_LOCKED || primary == SQLITE_READONLY ||
        (primary == SQLITE_IOERR && sqlite3_system_errno(db->h) == ENOSPC))
        return ms_db_explain(db, rc, what, err, errlen); /* a cause the user can act on */
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s: %s", db->path, what);
    return ms_db_fail(db, prefix, err, errlen);
}

/* WAL lets readers and one writer work at once; changing the mode needs the file to itself,
 * so wait (up to the busy timeout) while other processes use it. Best effort: where WAL is
 * impossible (its -shm file cannot be created) the rollback journal and the busy timeout
 * still serialise writers. */
static void use_wal(ms_db *db)
{
    for (int waited_ms = 0;; waited_ms += 20) {
        sqlite3_stmt *st = NULL;
        int rc = sqlite3_prepare_v2(db->h, "PRAGMA journal_mode = WAL", -1, &st, NULL);
        if (rc == SQLITE_OK) rc = sqlite3_step(st);
        bool wal = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
        sqlite3_finalize(st);
        /* In WAL mode a commit need not reach the disk at once: the checkpoint when the last
         * connection closes syncs the log and the file, and a crash in between loses the
         * last commits, never the database (sqlite.org/pragma.html#pragma_synchronous).
         * FULL synced the log and the directory at every commit: 8-15 ms each on a VM's
         * disk, a tenth of a short `memspy mtool` (docs/performance.md, MTOOL). */
        if (wal) sqlite3_exec(db->h, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
        if (wal || ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) || waited_ms >= db->busy_ms) return;
        usleep(20000);
    }
}

/* Bring the schema to MS_DB_SCHEMA_VERSION; another process may be doing the same, so the
 * version is read again under the write lock. */
static int migrate(ms_db *db, const db_header *hd, char *err, size_t errlen)
{
    if (hd->ntables > 0 && backup(db, hd->version, err, errlen) < 0) return -1;
    if (exec(db, "BEGIN IMMEDIATE", "cannot lock the database", err, errlen) < 0) return -1;
    int version = 0;
    if (query_int(db->h, "PRAGMA user_version", &version) != SQLITE_OK) version = -1;
    for (int v = version; v >= 0 && v < MS_DB_SCHEMA_VERSION; v++) {
        char what[64], set_version[64];
        snprintf(what, sizeof what, "cannot migrate the schema to version %d", v + 1);
        snprintf(set_version, sizeof set_version, "PRAGMA user_version = %d", v + 1);
        if (exec(db, MIGRATIONS[v], what, err, errlen) < 0 || exec(db, set_version, what, err, errlen) < 0) {
            sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
            return -1;
        }
    }
    if (version < 0) {
        ms_db_fail(db, db->path, err, errlen);
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (exec(db, "COMMIT", "cannot migrate the schema", err, errlen) < 0) {
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    db->version = MS_DB_SCHEMA_VERSION;
    return 0;
}

int ms_db_open(const char *path, int flags, ms_db **out, char *err, size_t errlen)
{
    struct stat st;
    *out = NULL;
    bool exists = stat(path, &st) == 0;
    if (!exists && !(flags & MS_DB_CREATE)) {
        snprintf(err, errlen, "%s: no runs stored yet (no such database)", path);
        return -1;
    }
    if (exists && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s is a directory, not a memspy database", path);
        return -1;
    }
    if (exists && precheck_file(path, &st, err, errlen) < 0) return -1;
    ms_db *db = calloc(1, sizeof *db);
    if (db) db->busy_ms = wait_ms;
    if (!db || !(db->path = strdup(path))) {
        free(db);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    /* A file without write permission stays unwritten, even for root. */
    db->readonly = (flags & MS_DB_READONLY) || (exists && !(st.st_mode & 0222));
    int open_flags =
        db->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | ((flags & MS_DB_CREATE) ? SQLITE_OPEN_CREATE : 0);
    db_header hd = { 0, 0, 0, false };
    int rc = open_and_inspect(db, open_flags, &hd, err, errlen);
    if (rc == 0) rc = check_header(db, &hd, err, errlen);
    if (rc == 0) {
        db->version = hd.version;
        if (db->readonly && hd.version == 0) {
            snprintf(err, errlen, "%s: no runs stored yet", path);
            rc = -1;
        } else if (!db->readonly) {
            use_wal(db);
            if (hd.version < MS_DB_SCHEMA_VERSION) rc = migrate(db, &hd, err, errlen);
        }
    }
    if (rc < 0) {
        ms_db_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

void ms_db_close(ms_db *db)
{
    if (!db) return;
    sqlite3_close(db->h);
    free(db->path);
    free(db);
}
