/* Comparison of two runs: bins of both models are matched by name (data bins by full name,
 * code bins by name and source file), then every cell, code bin and data bin of either run
 * becomes a row with both runs' counters and the change in stall time. Matching sorts the
 * keys of both runs together, so it costs O(n log n) however many bins there are. */
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* A sortable key of one bin or cell of one run. */
typedef struct {
    const char *key1, *key2; /* names (bins) */
    size_t n1, n2;           /* unified indices (cells) */
    int run;
    size_t index; /* in that run's bins or cells */
} diff_key;

static int cmp_str(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

static int cmp_key(const void *pa, const void *pb)
{
    const diff_key *a = pa, *b = pb;
    int c = cmp_str(a->key1, b->key1);
    if (c == 0) c = cmp_str(a->key2, b->key2);
    if (c == 0 && a->n1 != b->n1) c = a->n1 < b->n1 ? -1 : 1;
    if (c == 0 && a->n2 != b->n2) c = a->n2 < b->n2 ? -1 : 1;
    if (c == 0 && a->run != b->run) c = a->run - b->run;
    if (c == 0 && a->index != b->index) c = a->index < b->index ? -1 : 1;
    return c;
}

static int same_key(const diff_key *a, const diff_key *b)
{
    return cmp_str(a->key1, b->key1) == 0 && cmp_str(a->key2, b->key2) == 0 && a->n1 == b->n1 && a->n2 == b->n2;
}

/* Pair the keys of run 0 and run 1 that are equal: after sorting, a group of equal keys holds
 * run 0's entries, then run 1's; the i-th of each pair up, the rest stand alone. Calls
 * add(pair index in run 0 or -1, in run 1 or -1, ud) once per row. */
static int pair_keys(diff_key *keys, size_t n, int (*add)(long i0, long i1, void *ud), void *ud)
{
    qsort(keys, n, sizeof *keys, cmp_key);
    size_t start = 0;
    while (start < n) {
        size_t end = start + 1, first1;
        while (end < n && same_key(&keys[start], &keys[end])) end++;
        for (first1 = start; first1 < end && keys[first1].run == 0; first1++) {}
        size_t n0 = first1 - start, n1 = end - first1;
        size_t pairs = n0 > n1 ? n0 : n1;
        for (size_t i = 0; i < pairs; i++) {
            long i0 = i < n0 ? (long)keys[start + i].index : -1;
            long i1 = i < n1 ? (long)keys[first1 + i].index : -1;
            if (add(i0, i1, ud) < 0) return -1;
        }
        start = end;
    }
    return 0;
}

/* Rows under construction, with the unified index of every bin of both runs. */
typedef struct {
    const ms_model *m[2];
    ms_diff_row *rows;
    size_t nrows;
    size_t *unified[2]; /* bin index in run r -> row index */
    int code;           /* building code rows (else data rows) */
} row_builder;

static ms_diff_presence presence_of(long i0, long i1)
{
    if (i0 < 0) return MS_DIFF_APPEARED;
    if (i1 < 0) return MS_DIFF_VANISHED;
    return MS_DIFF_BOTH;
}

static void set_code_names(ms_diff_row *r, const ms_model *const m[2])
{
    int run = r->code[1] >= 0 ? 1 : 0;
    const ms_code_bin *b = &m[run]->code[r->code[run]];
    r->code_name = b->name;
    r->code_file = b->file;
}

static void set_data_names(ms_diff_row *r, const ms_model *const m[2])
{
    int run = r->data[1] >= 0 ? 1 : 0;
    const ms_data_bin *b = &m[run]->data[r->data[run]];
    r->data_name = b->name;
    r->data_full_name = b->full_name;
}

static int add_bin_row(long i0, long i1, void *ud)
{
    row_builder *rb = ud;
    ms_diff_row *r = &rb->rows[rb->nrows];
    memset(r, 0, sizeof *r);
    r->code[0] = r->code[1] = r->data[0] = r->data[1] = -1;
    long *idx = rb->code ? r->code : r->data;
    idx[0] = i0;
    idx[1] = i1;
    r->presence = presence_of(i0, i1);
    if (rb->code)
        set_code_names(r, rb->m);
    else
        set_data_names(r, rb->m);
    if (i0 >= 0) rb->unified[0][i0] = rb->nrows;
    if (i1 >= 0) rb->unified[1][i1] = rb->nrows;
    rb->nrows++;
    return 0;
}

/* One row per code bin (or data bin) of either run; fills rb->unified. */
static int build_bin_rows(row_builder *rb, int code)
{
    size_t n[2], total;
    for (int r = 0; r < 2; r++) n[r] = code ? rb->m[r]->ncode : rb->m[r]->ndata;
    total = n[0] + n[1];
    diff_key *keys = malloc((total ? total : 1) * sizeof *keys);
    rb->rows = malloc((total ? total : 1) * sizeof *rb->rows);
    for (int r = 0; r < 2; r++) rb->unified[r] = malloc((n[r] ? n[r] : 1) * sizeof *rb->unified[r]);
    rb->nrows = 0;
    rb->code = code;
    if (!keys || !rb->rows || !rb->unified[0] || !rb->unified[1]) {
        free(keys);
        return -1;
    }
    size_t k = 0;
    for (int r = 0; r < 2; r++) {
        for (size_t i = 0; i < n[r]; i++, k++) {
            diff_key *key = &keys[k];
            memset(key, 0, sizeof *key);
            if (code) {
                key->key1 = rb->m[r]->code[i].name;
                key->key2 = rb->m[r]->code[i].file;
            } else {
                const ms_data_bin *b = &rb->m[r]->data[i];
                key->key1 = b->full_name ? b->full_name : b->name;
            }
            key->run = r;
            key->index = i;
        }
    }
    int rc = pair_keys(keys, total, add_bin_row, rb);
    free(keys);
    return rc;
}

/* Cells are keyed by the unified (code, data) rows; their names come from the bin rows. */
typedef struct {
    const ms_model *m[2];
    const ms_diff_row *code_rows, *data_rows;
    const size_t *code_of[2], *data_of[2];
    ms_diff_row *rows;
    size_t nrows;
} cell_builder;

static int add_cell_row(long i0, long i1, void *ud)
{
    cell_builder *cb = ud;
    ms_diff_row *r = &cb->rows[cb->nrows++];
    int run = i1 >= 0 ? 1 : 0;
    const ms_cell *cell = &cb->m[run]->cells[run ? i1 : i0];
    const ms_diff_row *code = &cb->code_rows[cb->code_of[run][cell->code]];
    const ms_diff_row *data = &cb->data_rows[cb->data_of[run][cell->data]];
    memset(r, 0, sizeof *r);
    for (int k = 0; k < 2; k++) {
        r->code[k] = code->code[k];
        r->data[k] = data->data[k];
    }
    r->code_name = code->code_name;
    r->code_file = code->code_file;
    r->data_name = data->data_name;
    r->data_full_name = data->data_full_name;
    if (i0 >= 0) r->c[0] = cb->m[0]->cells[i0].c;
    if (i1 >= 0) r->c[1] = cb->m[1]->cells[i1].c;
    r->presence = presence_of(i0, i1);
    return 0;
}

static int build_cell_rows(cell_builder *cb)
{
    size_t total = cb->m[0]->ncells + cb->m[1]->ncells, k = 0;
    diff_key *keys = malloc((total ? total : 1) * sizeof *keys);
    cb->rows = malloc((total ? total : 1) * sizeof *cb->rows);
    cb->nrows = 0;
    if (!keys || !cb->rows) {
        free(keys);
        return -1;
    }
    for (int r = 0; r < 2; r++) {
        const ms_model *m = cb->m[r];
        for (size_t i = 0; i < m->ncells; i++) {
            if (m->cells[i].code >= m->ncode || m->cells[i].data >= m->ndata) continue;
            diff_key *key = &keys[k++];
            memset(key, 0, sizeof *key);
            key->n1 = cb->code_of[r][m->cells[i].code];
            key->n2 = cb->data_of[r][m->cells[i].data];
            key->run = r;
            key->index = i;
        }
    }
    int rc = pair_keys(keys, k, add_cell_row, cb);
    free(keys);
    return rc;
}

/* Per-bin totals of both runs into the bin rows. */
static int fill_bin_totals(const ms_model *const m[2], ms_diff_row *rows, size_t nrows, int code)
{
    for (int r = 0; r < 2; r++) {
        ms_counters *tot = NULL;
        if ((code ? ms_model_code_totals(m[r], &tot) : ms_model_data_totals(m[r], &tot)) < 0) return -1;
        for (size_t i = 0; i < nrows; i++) {
            long idx = code ? rows[i].code[r] : rows[i].data[r];
            if (idx >= 0) rows[i].c[r] = tot[idx];
        }
        free(tot);
    }
    return 0;
}

static uint64_t abs_change(const ms_diff_row *r)
{
    return r->stall_change < 0 ? (uint64_t)0 - (uint64_t)r->stall_change : (uint64_t)r->stall_change;
}

static uint64_t larger_stall(const ms_diff_row *r)
{
    uint64_t a = ms_counters_stall(&r->c[0]), b = ms_counters_stall(&r->c[1]);
    return a > b ? a : b;
}

static int cmp_row(const void *pa, const void *pb)
{
    const ms_diff_row *a = pa, *b = pb;
    uint64_t x = abs_change(a), y = abs_change(b);
    if (x != y) return x < y ? 1 : -1;
    x = larger_stall(a);
    y = larger_stall(b);
    if (x != y) return x < y ? 1 : -1;
    int c = cmp_str(a->code_name, b->code_name);
    if (c == 0) c = cmp_str(a->code_file, b->code_file);
    if (c == 0)
        c = cmp_str(a->data_full_name ? a->data_full_name : a->data_name,
                    b->data_full_name ? b->data_full_name : b->data_name);
    if (c == 0 && a->stall_change != b->stall_change) c = a->stall_change < b->stall_change ? -1 : 1;
    return c;
}

static void finish_rows(ms_diff_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rows[i].stall_change = (int64_t)ms_counters_stall(&rows[i].c[1]) - (int64_t)ms_counters_stall(&rows[i].c[0]);
    qsort(rows, n, sizeof *rows, cmp_row);
}

int ms_model_diff(const ms_model *a, const ms_model *b, ms_diff *out)
{
    row_builder code = { { a, b }, NULL, 0, { NULL, NULL }, 1 };
    row_builder data = { { a, b }, NULL, 0, { NULL, NULL }, 0 };
    cell_builder cells;
    int rc = -1;
    memset(out, 0, sizeof *out);
    memset(&cells, 0, sizeof cells);
    if (build_bin_rows(&code, 1) < 0 || build_bin_rows(&data, 0) < 0) goto done;
    cells.m[0] = a;
    cells.m[1] = b;
    cells.code_rows = code.rows;
    cells.data_rows = data.rows;
    for (int r = 0; r < 2; r++) {
        cells.code_of[r] = code.unified[r];
        cells.data_of[r] = data.unified[r];
    }
    if (build_cell_rows(&cells) < 0) goto done;
    if (fill_bin_totals(code.m, code.rows, code.nrows, 1) < 0 || fill_bin_totals(data.m, data.rows, data.nrows, 0) < 0)
        goto done;
    /* Sort only now: cell rows were built from the bin rows' unified positions. */
    finish_rows(cells.rows, cells.nrows);
    finish_rows(code.rows, code.nrows);
    finish_rows(data.rows, data.nrows);
    out->totals[0] = a->totals;
    out->totals[1] = b->totals;
    out->cells = cells.rows;
    out->ncells = cells.nrows;
    out->code = code.rows;
    out->ncode = code.nrows;
    out->data = data.rows;
    out->ndata = data.nrows;
    cells.rows = code.rows = data.rows = NULL;
    rc = 0;
done:
    free(cells.rows);
    free(code.rows);
    free(data.rows);
    for (int r = 0; r < 2; r++) {
        free(code.unified[r]);
        free(data.unified[r]);
    }
    return rc;
}

void ms_diff_free(ms_diff *d)
{
    free(d->cells);
    free(d->code);
    free(d->data);
    memset(d, 0, sizeof *d);
}
