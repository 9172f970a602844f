/* Reports: they only read the model. Text (MemSpy's matrix and detailed displays) and JSON
 * (also the saved result file, read back by `memspy report`). */
#ifndef MEMSPY_REPORT_REPORT_H
#define MEMSPY_REPORT_REPORT_H
#include <stdio.h>
#include "../model/model.h"

typedef struct {
    int top_code, top_data;    /* rows / columns shown before "others" (default 8 / 6) */
} ms_matrix_opts;

/* MemSpy Figure 2: totals header, then % of total stall per (code, data), largest top-left. */
int ms_report_matrix(FILE *out, const ms_model *m, const ms_matrix_opts *opts);

/* MemSpy Figure 3 for a selection (any code bins x any data bins; empty = all). */
int ms_report_detail(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes,
                     const uint32_t *datas, size_t ndatas);

/* Write the model as JSON (the --json report and the saved result file). Returns 0 or -1. */
int ms_json_write(FILE *out, const ms_model *m);

/* Read a result file written by ms_json_write. Returns 0, or -1 with err naming the problem
 * (not found, not a memspy result, newer version, truncated/corrupt at line:col). */
int ms_json_read(const char *path, ms_model *m, char *err, size_t errlen);

#endif
