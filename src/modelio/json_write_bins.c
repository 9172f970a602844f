/* The JSON result's bins: code bins, data bins (with their rows), the code x data cells and
 * the source lines, each with its counters. */
#include "json_write_internal.h"

#include <stdlib.h>

json_t *jw_code(json_writer *w, const ms_model *m)
{
    ms_counters *tot = NULL;
    json_t *arr = json_array();
    if (!arr || ms_model_code_totals(m, &tot) < 0) {
        json_decref(arr);
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->ncode; i++) {
        const ms_code_bin *b = &m->code[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, b->name));
        put(w, o, "file", text_json(w, b->file));
        put(w, o, "line", json_integer(b->line));
        jw_put_bin_totals(w, o, &tot[i]);
        append(w, arr, o);
    }
    free(tot);
    return arr;
}

/* The data bins, with their totals tot. */
json_t *jw_data(json_writer *w, const ms_model *m, const ms_counters *tot)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->ndata; i++) {
        const ms_data_bin *b = &m->data[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "id", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, b->name));
        put(w, o, "full_name", path_json(w, b->full_name));
        put(w, o, "kind",
            json_string((unsigned)b->kind < MS_JSON_NELEM(ms_json_kind_names) ? ms_json_kind_names[b->kind] : "other"));
        put(w, o, "site", text_json(w, b->site));
        put(w, o, "objects", u64_json(b->objects));
        put(w, o, "bytes", u64_json(b->bytes));
        put(w, o, "peak_bytes", u64_json(b->peak_bytes));
        if (b->row_bytes || b->row_none) { /* a matrix's rows (the advice's pad), bytes 0: none */
            json_t *row = json_object();
            if (!row) w->failed = 1;
            put(w, row, "bytes", u64_json(b->row_bytes));
            put(w, row, "width", u64_json(b->row_width));
            put(w, row, "pad", u64_json(b->row_pad));
            put(w, row, "pad_stall", u64_json(b->row_pad_stall));
            put(w, row, "pads_tried", u64_json(b->row_pads_tried));
            put(w, o, "row", row);
        }
        jw_put_bin_totals(w, o, &tot[i]);
        if (w->multiproc) jw_put_data_invalidations(w, o, m, (uint32_t)i);
        append(w, arr, o);
    }
    return arr;
}

json_t *jw_bins(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    uint64_t total_stall = ms_counters_stall(&m->totals);
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "code", json_integer(cell->code));
        put(w, o, "data", json_integer(cell->data));
        jw_put_counter_summary(w, o, &cell->c);
        put(w, o, "stall_share", json_real(rate(ms_counters_stall(&cell->c), total_stall)));
        if (cell->fields[0]) put(w, o, "fields", json_string(cell->fields));
        put(w, o, "evicted_by", jw_evictors(w, cell, 0));
        put(w, o, "levels", jw_levels(w, &cell->c, cell));
        if (w->multiproc)
            put(w, o, "invalidations", jw_invalidations(w, &cell->c.inval, cell->inval_by, cell->ninval_by));
        append(w, arr, o);
    }
    return arr;
}

json_t *jw_lines(json_writer *w, const ms_model *m)
{
    json_t *arr = json_array();
    if (!arr) {
        w->failed = 1;
        return NULL;
    }
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *ls = &m->lines[i];
        json_t *o = json_object();
        if (!o) {
            w->failed = 1;
            break;
        }
        put(w, o, "file", json_integer(ls->file));
        put(w, o, "line", json_integer(ls->line));
        put(w, o, "code", json_integer(ls->code));
        put(w, o, "data", json_integer(ls->data));
        jw_put_counter_summary(w, o, &ls->c);
        put(w, o, "levels", jw_levels(w, &ls->c, NULL));
        append(w, arr, o);
    }
    return arr;
}
