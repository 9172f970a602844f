/* The runs in the database: storing a model (its JSON, zstd-compressed, next to the columns
 * `memspy runs` lists), loading it back with the user's bin edits replayed, listing, and
 * recording renames and combinations for a program. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "../modelio/modelio.h"
#include "store_internal.h"

#define ZSTD_LEVEL 3
#define MAX_CLOSEST_RUNS 5

/* ---- encoding the model ---- */

/* The model as zstd-compressed JSON in a malloc'ed buffer. */
static int encode_model(const ms_model *m, void **blob, size_t *len)
{
    char *json = NULL;
    size_t json_len = 0;
    FILE *f = open_memstream(&json, &json_len);
    if (!f) return -1;
    int rc = ms_json_write_stored(f, m);
    if (fclose(f) != 0) rc = -1;
    if (rc == 0) {
        size_t cap = ZSTD_compressBound(json_len);
        *blob = malloc(cap ? cap : 1);
        size_t n = *blob ? ZSTD_compress(*blob, cap, json, json_len, ZSTD_LEVEL) : 0;
        if (!*blob || ZSTD_isError(n)) {
            free(*blob);
            rc = -1;
        } else {
            *len = n;
        }
    }
    free(json);
    return rc;
}

/* The JSON text of a stored model (decompressed when encoding is "zstd"); NULL if damaged. */
static char *decode_model(const void *blob, size_t len, const char *encoding, size_t *json_len)
{
    if (strcmp(encoding, "json") == 0) {
        char *text = malloc(len + 1);
        if (!text) return NULL;
        if (len) memcpy(text, blob, len);
        text[len] = '\0';
        *json_len = len;
        return text;
    }
    if (strcmp(encoding, "zstd") != 0) return NULL;
    unsigned long long size = ZSTD_getFrameContentSize(blob, len);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > (1ull << 34)) return NULL;
    char *text = malloc((size_t)size + 1);
    if (!text) return NULL;
    size_t n = ZSTD_decompress(text, (size_t)size, blob, len);
    if (ZSTD_isError(n) || n != size) {
        free(text);
        return NULL;
    }
    text[n] = '\0';
    *json_len = n;
    return text;
}

/* ---- the listing columns ---- */

/* The program a run's edits are keyed by: its path made absolute with the run's directory
 * ("./prog" in /w -> "/w/prog"); a bare name found on PATH stays as it is. */
static char *program_key(const ms_model *m)
{
    const char *p = m->program ? m->program : "";
    char *key = NULL;
    if (!strchr(p, '/') || p[0] == '/' || !m->cwd) return strdup(p);
    while (p[0] == '.' && p[1] == '/') p += 2;
    if (asprintf(&key, "%s/%s", m->cwd, p) < 0) return NULL;
    return key;
}

static bool needs_quotes(const char *s)
{
    if (!*s) return true;
    for (; *s; s++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+-@%", *s)) return true;
    return false;
}

/* The arguments after the program, joined with spaces and quoted for a POSIX shell. */
static char *join_args(const ms_model *m)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f) return NULL;
    for (int i = 1; i < m->argc; i++) {
        const char *a = m->argv[i] ? m->argv[i] : "";
        if (i > 1) fputc(' ', f);
        if (!needs_quotes(a)) {
            fputs(a, f);
            continue;
        }
        fputc('\'', f);
        for (const char *c = a; *c; c++) {
            if (*c == '\'')
                fputs("'\\''", f);
            else
                fputc(*c, f);
        }
        fputc('\'', f);
    }
    if (fclose(f) != 0) {
        free(out);
        return NULL;
    }
    return out;
}

static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
    return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

/* Run one prepared INSERT to completion. */
static int write_step(sqlite3_stmt *st)
{
    if (sqlite3_step(st) != SQLITE_DONE) return -1;
    return 0;
}

static int writable(const ms_db *db, const char *what, char *err, size_t errlen)
{
    if (db->readonly) {
        snprintf(err, errlen, "%s %s: the database is read-only", what, db->path);
        return -1;
    }
    return 0;
}

/* err = "WHAT PATH: <sqlite's message>"; returns -1. */
static int write_failed(const ms_db *db, const char *what, char *err, size_t errlen)
{
    char prefix[1024];
    snprintf(prefix, sizeof prefix, "%s %s", what, db->path);
    return ms_db_fail(db, prefix, err, errlen);
}

/* Run numbers are ints (1..INT_MAX): once AUTOINCREMENT has handed out the largest, say so
 * (SQLite itself would report "database or disk is full"). 1 with err set, else 0. */
static int run_numbers_exhausted(ms_db *db, const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    sqlite3_int64 last = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT max(seq) FROM sqlite_sequence WHERE name = 'runs'", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        last = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (last < INT_MAX) return 0;
    snprintf(err, errlen,
             "%s %s: no run number left (run %lld is taken; runs are numbered up to %d): "
             "store new runs in another database (--db)",
             what, db->path, (long long)last, INT_MAX);
    return 1;
}

int ms_db_store(ms_db *db, const ms_model *m, int *run_id, char *err, size_t errlen)
{
    static const char *const WHAT = "cannot store the run in";
    static const char SQL[] = "INSERT INTO runs (time, program, args, cwd, memspy_version, wall_seconds, refs, misses,"
                              " stall_cycles, incomplete, model, git_commit, program_key, model_encoding,"
                              " hierarchy, origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'zstd', ?, ?)";
    if (writable(db, WHAT, err, errlen) < 0) return -1;
    void *blob = NULL;
    size_t blob_len = 0;
    char *args = join_args(m), *key = program_key(m);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (!args || !key || encode_model(m, &blob, &blob_len) < 0) {
        snprintf(err, errlen, "%s %s: out of memory", WHAT, db->path);
        goto out;
    }
    int sql_rc = sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (sql_rc != SQLITE_OK) {
        ms_db_explain(db, sql_rc, WHAT, err, errlen);
        goto out;
    }
    if (run_numbers_exhausted(db, WHAT, err, errlen)) {
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
        goto out;
    }
    if ((sql_rc = sqlite3_prepare_v2(db->h, SQL, -1, &st, NULL)) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, m->time);
        bind_text(st, 2, m->program ? m->program : "");
        bind_text(st, 3, args);
        bind_text(st, 4, m->cwd);
        bind_text(st, 5, m->memspy_version);
        sqlite3_bind_double(st, 6, m->wall_seconds);
        sqlite3_bind_int64(st, 7, (sqlite3_int64)ms_counters_refs(&m->totals));
        sqlite3_bind_int64(st, 8, (sqlite3_int64)ms_counters_misses(&m->totals, 0));
        sqlite3_bind_int64(st, 9, (sqlite3_int64)ms_counters_stall(&m->totals));
        sqlite3_bind_int(st, 10, m->incomplete);
        sqlite3_bind_blob(st, 11, blob, (int)blob_len, SQLITE_STATIC);
        bind_text(st, 12, m->git_commit);
        bind_text(st, 13, key);
        char hierarchy[256];
        ms_model_config_summary(m, hierarchy, sizeof hierarchy);
        bind_text(st, 14, hierarchy);
        bind_text(st, 15, m->origin);
        if ((sql_rc = sqlite3_step(st)) == SQLITE_DONE) {
            *run_id = (int)sqlite3_last_insert_rowid(db->h);
            rc = 0;
        }
    }
    if (rc == 0 && (sql_rc = sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) rc = -1;
    if (rc < 0) {
        ms_db_explain(db, sql_rc, WHAT, err, errlen);
        sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    }
out:
    sqlite3_finalize(st);
    free(blob);
    free(args);
    free(key);
    return rc;
}

/* ---- reading ---- */

/* All run ids, oldest first. */
static int run_ids(ms_db *db, int **ids, size_t *n)
{
    sqlite3_stmt *st = NULL;
    size_t cap = 0;
    *ids = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, "SELECT id FROM runs ORDER BY id", -1, &st, NULL) != SQLITE_OK) return -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 64;
            int *p = realloc(*ids, cap * sizeof *p);
            if (!p) break;
            *ids = p;
        }
        (*ids)[(*n)++] = sqlite3_column_int(st, 0);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* qsort_r order: nearest to the wanted run first, the lower of two equally near ones first. */
static int cmp_closeness(const void *a, const void *b, void *wanted)
{
    int x = *(const int *)a, y = *(const int *)b, w = *(const int *)wanted;
    int dx = abs(x - w), dy = abs(y - w);
    if (dx != dy) return dx < dy ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* "no run N in PATH; closest: a, b, c" (or "PATH holds no runs"). */
static int unknown_run(ms_db *db, int run_id, char *err, size_t errlen)
{
    int *ids = NULL;
    size_t n = 0;
    if (run_ids(db, &ids, &n) < 0) {
        free(ids);
        return ms_db_fail(db, db->path, err, errlen);
    }
    if (n == 0) {
        snprintf(err, errlen, "no run %d: %s holds no runs yet", run_id, db->path);
    } else {
        qsort_r(ids, n, sizeof *ids, cmp_closeness, &run_id);
        int len = snprintf(err, errlen, "no run %d in %s; closest:", run_id, db->path);
        for (size_t i = 0; i < n && i < MAX_CLOSEST_RUNS && len > 0 && (size_t)len < errlen; i++)
            len += snprintf(err + len, errlen - (size_t)len, "%s %d", i ? "," : "", ids[i]);
    }
    free(ids);
    return -1;
}

/* Replay one recorded edit on m: a rename of names[0], or a combination of the bins named. */
static int apply_edit(ms_model *m, const char *kind, const char *new_name, char **names, size_t n)
{
    if (strcmp(kind, "rename") == 0) return n ? (ms_model_rename_bin(m, names[0], new_name) < 0 ? -1 : 0) : 0;
    for (int code = 0; code < 2; code++) {
        size_t nbins = code ? m->ncode : m->ndata, nsel = 0;
        uint32_t *sel = malloc((nbins ? nbins : 1) * sizeof *sel);
        if (!sel) return -1;
        for (uint32_t i = 0; i < nbins; i++) {
            const char *full = ms_model_bin_full_name(m, code, i);
            for (size_t k = 0; k < n; k++) {
                if (strcmp(full, names[k]) == 0) {
                    sel[nsel++] = i;
                    break;
                }
            }
        }
        int rc = nsel ? ms_model_combine_bins(m, code, sel, nsel, new_name) : 0;
        free(sel);
        if (rc < 0) return -1;
    }
    return 0;
}

/* The edits recorded for run_id's program from run_id or earlier, replayed in order. */
static int apply_edits(ms_db *db, int run_id, const char *key, ms_model *m, char *err, size_t errlen)
{
    static const char SQL[] = "SELECT e.id, e.kind, e.new_name, b.full_name FROM bin_edits e"
                              " JOIN bin_edit_members b ON b.edit_id = e.id"
                              " WHERE e.program_key = ? AND e.from_run <= ? ORDER BY e.id, b.position";
    if (db->version < 2 || !key) return 0;
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, SQL, -1, &st, NULL) != SQLITE_OK) return ms_db_fail(db, db->path, err, errlen);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, run_id);
    char **names = NULL, *kind = NULL, *new_name = NULL;
    size_t n = 0, cap = 0;
    sqlite3_int64 current = -1;
    int rc = 0, step = SQLITE_DONE;
    while (rc == 0) {
        step = sqlite3_step(st);
        sqlite3_int64 id = step == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -2;
        if (id != current && current != -1) { /* the previous edit is complete */
            rc = apply_edit(m, kind, new_name, names, n);
            for (size_t i = 0; i < n; i++) free(names[i]);
            free(kind);
            free(new_name);
            kind = new_name = NULL;
            n = 0;
        }
        if (step != SQLITE_ROW) break;
        if (id != current) {
            current = id;
            kind = strdup((const char *)sqlite3_column_text(st, 1));
            new_name = strdup((const char *)sqlite3_column_text(st, 2));
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                rc = -1;
                break;
            }
            names = p;
        }
        names[n] = strdup((const char *)sqlite3_column_text(st, 3));
        if (!kind || !new_name || !names[n++]) rc = -1;
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    free(kind);
    free(new_name);
    if (rc == 0 && step != SQLITE_DONE)
        rc = ms_db_fail(db, db->path, err, errlen);
    else if (rc < 0)
        snprintf(err, errlen, "%s: run %d: cannot apply the recorded renames and combinations", db->path, run_id);
    sqlite3_finalize(st);
    return rc;
}

int ms_db_load(ms_db *db, int run_id, ms_model *m, char *err, size_t errlen)
{
    const char *sql = db->version >= 2 ? "SELECT model, model_encoding, program_key FROM runs WHERE id = ?"
                                       : "SELECT model, 'json', NULL FROM runs WHERE id = ?";
    ms_model_init(m);
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return ms_db_fail(db, db->path, err, errlen);
    sqlite3_bind_int(st, 1, run_id);
    int step = sqlite3_step(st), rc = -1;
    if (step == SQLITE_DONE) {
        sqlite3_finalize(st);
        return unknown_run(db, run_id, err, errlen);
    }
    if (step != SQLITE_ROW) {
        ms_db_fail(db, db->path, err, errlen);
        sqlite3_finalize(st);
        return -1;
    }
    char name[1024];
    snprintf(name, sizeof name, "%s run %d", db->path, run_id);
    size_t json_len = 0;
    const char *encoding = (const char *)sqlite3_column_text(st, 1);
    char *json = decode_model(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), encoding ? encoding : "",
                              &json_len);
    const char *key = (const char *)sqlite3_column_text(st, 2);
    if (!json)
        snprintf(err, errlen, "%s: the stored model is damaged", name);
    else if (ms_json_read_buffer(name, json, json_len, m, err, errlen) == 0)
        rc = apply_edits(db, run_id, key, m, err, errlen);
    if (rc < 0) ms_model_free(m);
    free(json);
    sqlite3_finalize(st);
    return rc;
}

int ms_db_latest(ms_db *db, int *run_id, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db->h, "SELECT max(id) FROM runs", -1, &st, NULL) != SQLITE_OK)
        return ms_db_fail(db, db->path, err, errlen);
    int rc = -1;
    if (sqlite3_step(st) != SQLITE_ROW)
        ms_db_fail(db, db->path, err, errlen);
    else if (sqlite3_column_type(st, 0) == SQLITE_NULL)
        snprintf(err, errlen, "%s: no runs stored yet", db->path);
    else {
        *run_id = sqlite3_column_int(st, 0);
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static char *column_strdup(sqlite3_stmt *st, int col)
{
    const unsigned char *s = sqlite3_column_text(st, col);
    return s ? strdup((const char *)s) : NULL;
}

int ms_db_list(ms_db *db, ms_run_info **runs, size_t *n, char *err, size_t errlen)
{
    const char *sql =
        db->version >= 3   ? "SELECT id, time, program, args, cwd, git_commit, memspy_version, wall_seconds,"
                             " refs, misses, stall_cycles, incomplete, hierarchy, origin FROM runs ORDER BY id"
        : db->version >= 2 ? "SELECT id, time, program, args, cwd, git_commit, memspy_version, wall_seconds,"
                             " refs, misses, stall_cycles, incomplete, NULL, NULL FROM runs ORDER BY id"
                           : "SELECT id, time, program, args, cwd, NULL, memspy_version, wall_seconds,"
                             " refs, misses, stall_cycles, incomplete, NULL, NULL FROM runs ORDER BY id";
    sqlite3_stmt *st = NULL;
    *runs = NULL;
    *n = 0;
    if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) return ms_db_fail(db, db->path, err, errlen);
    size_t cap = 0;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
            cap = cap ? cap * 2 : 32;
            ms_run_info *p = realloc(*runs, cap * sizeof *p);
            if (!p) break;
            *runs = p;
        }
        ms_run_info *r = &(*runs)[(*n)++];
        r->id = sqlite3_column_int(st, 0);
        r->time = sqlite3_column_int64(st, 1);
        r->program = column_strdup(st, 2);
        r->args = column_strdup(st, 3);
        r->cwd = column_strdup(st, 4);
        r->git_commit = column_strdup(st, 5);
        r->memspy_version = column_strdup(st, 6);
        r->wall_seconds = sqlite3_column_double(st, 7);
        r->refs = (uint64_t)sqlite3_column_int64(st, 8);
        r->misses = (uint64_t)sqlite3_column_int64(st, 9);
        r->stall_cycles = (uint64_t)sqlite3_column_int64(st, 10);
        r->incomplete = sqlite3_column_int(st, 11) != 0;
        r->hierarchy = column_strdup(st, 12);
        r->origin = column_strdup(st, 13);
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        ms_run_infos_free(*runs, *n);
        *runs = NULL;
        *n = 0;
        return ms_db_fail(db, db->path, err, errlen);
    }
    return 0;
}

void ms_run_infos_free(ms_run_info *runs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(runs[i].program);
        free(runs[i].args);
        free(runs[i].cwd);
        free(runs[i].git_commit);
        free(runs[i].memspy_version);
        free(runs[i].hierarchy);
        free(runs[i].origin);
    }
    free(runs);
}

/* ---- recording edits ---- */

/* Insert one edit (and its member full names) for the program of run_id. */
static int record_edit(ms_db *db, int run_id, const char *kind, const char *new_name, const char *const *full_names,
                       size_t n, char *err, size_t errlen)
{
    static const char *const WHAT = "cannot record the change in";
    if (writable(db, WHAT, err, errlen) < 0) return -1;
    if (sqlite3_exec(db->h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return write_failed(db, WHAT, err, errlen);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db->h,
                           "INSERT INTO bin_edits (program_key, from_run, kind, new_name)"
                           " SELECT program_key, id, ?, ? FROM runs WHERE id = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, new_name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, run_id);
        if (write_step(st) == 0) rc = sqlite3_changes(db->h) == 1 ? 0 : -2;
    }
    sqlite3_finalize(st);
    st = NULL;
    sqlite3_int64 edit_id = sqlite3_last_insert_rowid(db->h);
    if (rc == 0 &&
        sqlite3_prepare_v2(db->h, "INSERT INTO bin_edit_members (edit_id, position, full_name) VALUES (?, ?, ?)", -1,
                           &st, NULL) != SQLITE_OK)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        sqlite3_reset(st);
        sqlite3_bind_int64(st, 1, edit_id);
        sqlite3_bind_int(st, 2, (int)i);
        sqlite3_bind_text(st, 3, full_names[i], -1, SQLITE_STATIC);
        if (write_step(st) < 0) rc = -1;
    }
    sqlite3_finalize(st);
    if (rc == 0 && sqlite3_exec(db->h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) rc = -1;
    if (rc == -1) write_failed(db, WHAT, err, errlen);
    if (rc < 0) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
    if (rc == -2) return unknown_run(db, run_id, err, errlen);
    return rc;
}

int ms_db_rename(ms_db *db, int run_id, const char *full_name, const char *new_name, char *err, size_t errlen)
{
    return record_edit(db, run_id, "rename", new_name, &full_name, 1, err, errlen);
}

int ms_db_combine(ms_db *db, int run_id, const char *new_name, const char *const *full_names, size_t n, char *err,
                  size_t errlen)
{
    if (n == 0) {
        snprintf(err, errlen, "nothing to combine");
        return -1;
    }
    return record_edit(db, run_id, "combine", new_name, full_names, n, err, errlen);
}
