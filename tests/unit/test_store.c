/* The run database: runs are numbered in the order stored, read back exactly, listed with
 * their totals; unknown runs list the closest ones; renames and combinations are replayed on
 * the run they were made on and on later runs of the same program only; a read-only database
 * serves reads and refuses writes. */
#define _GNU_SOURCE
#include "check.h"
#include "model_fixture.h"
#include "store/store.h"
#include "store_testutil.h"

#define FULL(name) "main:12>NewMatrix:30>" name

static void store_fixture(ms_db *db, const char *program, int want_id)
{
    ms_model m;
    char err[512];
    int id = 0;
    fixture_build(&m);
    if (program) {
        free(m.program);
        m.program = strdup(program);
    }
    CHECK_EQ_INT(ms_db_store(db, &m, &id, err, sizeof err), 0);
    CHECK_EQ_INT(id, want_id);
    ms_model_free(&m);
}

static void test_store_and_load(ms_db *db, const char *path)
{
    char err[512];
    ms_model orig, back;
    fixture_build(&orig);
    orig.git_commit = strdup("0123456789abcdef0123456789abcdef01234567");
    int id = 0;
    CHECK_EQ_INT(ms_db_store(db, &orig, &id, err, sizeof err), 0);
    CHECK_EQ_INT(id, 1);
    store_fixture(db, NULL, 2);

    int latest = 0;
    CHECK_EQ_INT(ms_db_latest(db, &latest, err, sizeof err), 0);
    CHECK_EQ_INT(latest, 2);

    /* Lossless: the loaded model writes the same JSON as the stored one. */
    CHECK_EQ_INT(ms_db_load(db, 1, &back, err, sizeof err), 0);
    char *a = model_json(&orig), *b = model_json(&back);
    CHECK_STR(b, a);
    CHECK_STR(back.git_commit, "0123456789abcdef0123456789abcdef01234567");
    free(a);
    free(b);
    ms_model_free(&back);
    ms_model_free(&orig);

    ms_run_info *runs = NULL;
    size_t n = 0;
    CHECK_EQ_INT(ms_db_list(db, &runs, &n, err, sizeof err), 0);
    CHECK_EQ(n, 2);
    if (n == 2) {
        CHECK_EQ_INT(runs[0].id, 1);
        CHECK_EQ_INT(runs[0].time, 1700000000);
        CHECK_STR(runs[0].program, "./blkmm");
        CHECK_STR(runs[0].args, "295");
        CHECK_STR(runs[0].cwd, "/tmp/work");
        CHECK_STR(runs[0].git_commit, "0123456789abcdef0123456789abcdef01234567");
        CHECK_STR(runs[0].memspy_version, "0.1.0");
        CHECK_EQ(runs[0].refs, 2848);   /* reads + writes of the six cells */
        CHECK_EQ(runs[0].misses, 1001); /* L1 read + write misses */
        CHECK_EQ(runs[0].stall_cycles, 1000);
        CHECK(!runs[0].incomplete);
        CHECK(runs[1].git_commit == NULL);
    }
    ms_run_infos_free(runs, n);

    char want[1024];
    snprintf(want, sizeof want, "no run 7 in %s; closest: 2, 1", path);
    CHECK_EQ_INT(ms_db_load(db, 7, &back, err, sizeof err), -1);
    CHECK_STR(err, want);
}

static uint64_t data_refs(const ms_model *m, const char *name)
{
    int i = data_index(m, name);
    ms_counters *t = NULL;
    if (i < 0 || ms_model_data_totals(m, &t) < 0) return UINT64_MAX;
    uint64_t refs = ms_counters_refs(&t[i]);
    free(t);
    return refs;
}

/* Runs 1 and 2 exist (program ./blkmm in /tmp/work). */
static void test_edits(ms_db *db)
{
    char err[512];
    ms_model m;
    CHECK_EQ_INT(ms_db_rename(db, 2, FULL("Matrix.Y"), "Y", err, sizeof err), 0);
    const char *xz[] = { FULL("Matrix.X"), FULL("Matrix.Z") };
    CHECK_EQ_INT(ms_db_combine(db, 1, "XZ", xz, 2, err, sizeof err), 0);
    store_fixture(db, NULL, 3);
    store_fixture(db, "/tmp/work/blkmm", 4); /* the same program, named absolutely */
    store_fixture(db, "./other", 5);         /* another program */

    static const struct {
        int run;
        const char *y;
        int has_xz;
    } want[] = {
        { 1, "Matrix.Y", 1 }, { 2, "Y", 1 }, { 3, "Y", 1 }, { 4, "Y", 1 }, { 5, "Matrix.Y", 0 },
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        CHECK_EQ_INT(ms_db_load(db, want[k].run, &m, err, sizeof err), 0);
        CHECK(data_index(&m, want[k].y) >= 0);
        CHECK_EQ(m.ndata, want[k].has_xz ? 3 : 4);
        if (want[k].has_xz) {
            CHECK_EQ(data_refs(&m, "XZ"), 550 + 810); /* X: 450 + 100, Z: 600 + 210 */
            CHECK_EQ(data_index(&m, "Matrix.X"), (uint64_t)-1);
            CHECK_EQ(m.totals.stall_read + m.totals.stall_write, 1000);
        }
        ms_model_free(&m);
    }
    CHECK_EQ_INT(ms_db_rename(db, 9, FULL("Matrix.Y"), "Y", err, sizeof err), -1);
    CHECK_CONTAINS(err, "no run 9 in ");
}

static void test_readonly(const char *path)
{
    char err[512];
    ms_db *db = NULL;
    CHECK_EQ_INT(ms_db_open(path, MS_DB_READONLY, &db, err, sizeof err), 0);
    ms_run_info *runs = NULL;
    size_t n = 0;
    CHECK_EQ_INT(ms_db_list(db, &runs, &n, err, sizeof err), 0);
    CHECK_EQ(n, 5);
    ms_run_infos_free(runs, n);
    ms_model m;
    fixture_build(&m);
    int id = 0;
    char want[1024];
    snprintf(want, sizeof want, "cannot store the run in %s: the database is read-only", path);
    CHECK_EQ_INT(ms_db_store(db, &m, &id, err, sizeof err), -1);
    CHECK_STR(err, want);
    ms_model_free(&m);
    ms_db_close(db);

    /* No such database: readers say so, and nothing is created. */
    char *missing = path_in("/nonexistent-dir-memspy", "memspy.db");
    CHECK_EQ_INT(ms_db_open(missing, MS_DB_READONLY, &db, err, sizeof err), -1);
    CHECK_CONTAINS(err, "no runs stored yet");
    free(missing);
}

int main(void)
{
    char *dir = scratch_dir(), *path = path_in(dir, "memspy.db"), err[512];
    ms_db *db = NULL;
    CHECK_EQ_INT(ms_db_open(path, 0, &db, err, sizeof err), -1); /* not there, not created */
    CHECK_EQ_INT(ms_db_open(path, MS_DB_CREATE, &db, err, sizeof err), 0);
    if (db) {
        test_store_and_load(db, path);
        test_edits(db);
        ms_db_close(db);
        test_readonly(path);
    }
    scratch_remove(dir);
    free(path);
    free(dir);
    return check_result();
}
