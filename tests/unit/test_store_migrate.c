/* Schema versions: hand-made v0 (empty) and v1 files are migrated forward, the v1 one after a
 * backup copy, and their runs read back (also read-only, before any migration); foreign,
 * newer and non-SQLite files are refused with a message and left byte for byte as they were. */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "store/store.h"
#include "store_testutil.h"

/* The layout of schema version 1, as memspy 0.1 wrote it. */
static const char V1_SCHEMA[] =
    "PRAGMA application_id = 1297305689;"
    "CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, program TEXT NOT NULL,"
    " args TEXT NOT NULL, cwd TEXT, memspy_version TEXT, wall_seconds REAL NOT NULL, refs INTEGER NOT NULL,"
    " misses INTEGER NOT NULL, stall_cycles INTEGER NOT NULL, incomplete INTEGER NOT NULL, model BLOB NOT NULL);"
    "PRAGMA user_version = 1;";

static void sql(const char *path, const char *text)
{
    sqlite3 *h = NULL;
    char *msg = NULL;
    if (sqlite3_open(path, &h) != SQLITE_OK || sqlite3_exec(h, text, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "%s: %s\n", path, msg ? msg : sqlite3_errmsg(h));
        exit(2);
    }
    sqlite3_close(h);
}

static int user_version(const char *path)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int v = -1;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    return v;
}

/* A v1 database holding the fixture as run 1 (JSON text, as v1 stored it). */
static char *make_v1(const char *dir, char **fixture_json)
{
    char *path = path_in(dir, "v1.db");
    ms_model m;
    fixture_build(&m);
    *fixture_json = model_json(&m);
    sql(path, V1_SCHEMA);
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    sqlite3_open(path, &h);
    sqlite3_prepare_v2(h,
                       "INSERT INTO runs (time, program, args, cwd, memspy_version, wall_seconds, refs, misses,"
                       " stall_cycles, incomplete, model) VALUES (1700000000, './blkmm', '295', '/tmp/work',"
                       " '0.1.0', 1.25, 2848, 1001, 1000, 0, ?)",
                       -1, &st, NULL);
    sqlite3_bind_blob(st, 1, *fixture_json, (int)strlen(*fixture_json), SQLITE_STATIC);
    CHECK_EQ_INT(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    sqlite3_close(h);
    ms_model_free(&m);
    return path;
}

static void check_run1_is_fixture(ms_db *db, const char *fixture_json)
{
    char err[512];
    ms_model m;
    CHECK_EQ_INT(ms_db_load(db, 1, &m, err, sizeof err), 0);
    char *json = model_json(&m);
    CHECK_STR(json, fixture_json);
    free(json);
    ms_model_free(&m);
}

static void test_v1(const char *dir)
{
    char *fixture_json = NULL, *path = make_v1(dir, &fixture_json), *bak = path_in(dir, "v1.db.bak-v1"), err[512];
    ms_db *db = NULL;

    /* Read-only: read as it is, not migrated. */
    CHECK_EQ_INT(ms_db_open(path, MS_DB_READONLY, &db, err, sizeof err), 0);
    if (db) {
        check_run1_is_fixture(db, fixture_json);
        ms_run_info *runs = NULL;
        size_t n = 0;
        CHECK_EQ_INT(ms_db_list(db, &runs, &n, err, sizeof err), 0);
        CHECK_EQ(n, 1);
        if (n == 1) CHECK_EQ(runs[0].stall_cycles, 1000);
        ms_run_infos_free(runs, n);
        ms_db_close(db);
    }
    CHECK_EQ_INT(user_version(path), 1);
    CHECK(access(bak, F_OK) != 0);

    /* Writable: backed up, migrated, run 1 intact, new runs and edits work on it. */
    CHECK_EQ_INT(ms_db_open(path, MS_DB_CREATE, &db, err, sizeof err), 0);
    CHECK_EQ_INT(user_version(path), 3);
    CHECK_EQ_INT(user_version(bak), 1);
    if (db) {
        check_run1_is_fixture(db, fixture_json);
        ms_model m;
        int id = 0;
        fixture_build(&m);
        CHECK_EQ_INT(ms_db_store(db, &m, &id, err, sizeof err), 0);
        CHECK_EQ_INT(id, 2);
        ms_model_free(&m);
        /* Schema 3: the hierarchy in one line for runs stored since, none for the v1 run. */
        ms_run_info *runs = NULL;
        size_t n = 0;
        CHECK_EQ_INT(ms_db_list(db, &runs, &n, err, sizeof err), 0);
        CHECK_EQ(n, 2);
        if (n == 2) {
            CHECK(runs[0].hierarchy == NULL && runs[0].origin == NULL);
            CHECK(runs[1].hierarchy != NULL && strchr(runs[1].hierarchy, ':') != NULL);
        }
        ms_run_infos_free(runs, n);
        /* The migration derived the v1 run's program key as ms_db_store does. */
        CHECK_EQ_INT(ms_db_rename(db, 1, "main:12>NewMatrix:30>Matrix.Y", "Y", err, sizeof err), 0);
        CHECK_EQ_INT(ms_db_load(db, 2, &m, err, sizeof err), 0);
        CHECK(data_index(&m, "Y") >= 0);
        ms_model_free(&m);
        ms_db_close(db);
    }
    free(fixture_json);
    free(path);
    free(bak);
}

static void test_v0(const char *dir)
{
    char *path = path_in(dir, "v0.db"), err[512];
    sql(path, "CREATE TABLE t (x); DROP TABLE t;"); /* a SQLite file, no tables, version 0 */
    ms_db *db = NULL;
    CHECK_EQ_INT(ms_db_open(path, MS_DB_READONLY, &db, err, sizeof err), -1);
    CHECK_CONTAINS(err, "no runs stored yet");
    CHECK_EQ_INT(ms_db_open(path, MS_DB_CREATE, &db, err, sizeof err), 0);
    CHECK_EQ_INT(user_version(path), 3);
    if (db) {
        ms_model m;
        int id = 0;
        fixture_build(&m);
        CHECK_EQ_INT(ms_db_store(db, &m, &id, err, sizeof err), 0);
        CHECK_EQ_INT(id, 1);
        ms_model_free(&m);
        ms_db_close(db);
    }
    free(path);
}

/* Each flag combination refuses the file with message want, leaving it unchanged. */
static void check_refused(const char *path, const char *want)
{
    static const int FLAGS[] = { 0, MS_DB_READONLY, MS_DB_CREATE };
    size_t before_len = 0, after_len = 0;
    char *before = file_bytes(path, &before_len), err[512], full_want[1024];
    snprintf(full_want, sizeof full_want, "%s%s", path, want);
    for (size_t i = 0; i < sizeof FLAGS / sizeof *FLAGS; i++) {
        ms_db *db = NULL;
        err[0] = '\0';
        CHECK_EQ_INT(ms_db_open(path, FLAGS[i], &db, err, sizeof err), -1);
        CHECK_STR(err, full_want);
    }
    char *after = file_bytes(path, &after_len);
    CHECK_EQ(after_len, before_len);
    CHECK(before && after && memcmp(before, after, before_len) == 0);
    free(before);
    free(after);
}

static void test_refused(const char *dir)
{
    char *foreign = path_in(dir, "foreign.db"), *other_app = path_in(dir, "app.db"), *newer = path_in(dir, "newer.db"),
         *no_runs = path_in(dir, "noruns.db"), *text = path_in(dir, "notes.txt");
    sql(foreign, "CREATE TABLE accounts (id INTEGER, owner TEXT); INSERT INTO accounts VALUES (1, 'x');");
    check_refused(foreign, " is not a memspy database");
    sql(other_app, "PRAGMA application_id = 42; CREATE TABLE runs (id); PRAGMA user_version = 1;");
    check_refused(other_app, " is not a memspy database");
    sql(no_runs, "PRAGMA application_id = 1297305689; CREATE TABLE other (id); PRAGMA user_version = 1;");
    check_refused(no_runs, " is not a memspy database");
    sql(newer, "PRAGMA application_id = 1297305689; CREATE TABLE runs (id); PRAGMA user_version = 4;");
    check_refused(newer, " was written by a newer memspy (schema 4)");
    FILE *f = fopen(text, "w");
    for (int i = 0; f && i < 20; i++) fputs("not a database, just some notes\n", f);
    if (f) fclose(f);
    check_refused(text, " is not a memspy database");
    free(foreign);
    free(other_app);
    free(newer);
    free(no_runs);
    free(text);
}

int main(void)
{
    char *dir = scratch_dir();
    test_v0(dir);
    test_v1(dir);
    test_refused(dir);
    scratch_remove(dir);
    free(dir);
    return check_result();
}
