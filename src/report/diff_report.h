/* The comparison of two runs as reports: a side-by-side text table (memspy diff) and JSON
 * (memspy diff --json, and the data of the HTML comparison page). Both read an ms_diff. */
#ifndef MEMSPY_REPORT_DIFF_REPORT_H
#define MEMSPY_REPORT_DIFF_REPORT_H
#include <stdio.h>
#include <jansson.h>
#include "../model/model.h"

/* How each run is named in the headings ("run 3", "r1.result"), its hierarchy in one line
 * (ms_model_config_summary, NULL unknown) and how it was made ("run", "resim of DIR", NULL). */
typedef struct {
    const char *label[2];
    const char *config[2];
    const char *origin[2];
} ms_diff_labels;

/* Totals of both runs, then the cells, data bins and code bins whose stall changed most
 * (top of each, 0 = default 10), better and worse marked, and the bins that appeared or
 * vanished. Returns 0 or -1 on a write error. */
int ms_report_diff(FILE *out, const ms_diff *d, const ms_diff_labels *labels, int top);

/* The whole comparison as a JSON object (caller decrefs), NULL if out of memory. */
json_t *ms_diff_json(const ms_diff *d, const ms_diff_labels *labels);

/* Write ms_diff_json to out, indented, with the object gate (a regression gate's verdict,
 * borrowed; NULL: none) under "gate". Returns 0 or -1. */
int ms_json_write_diff(FILE *out, const ms_diff *d, const ms_diff_labels *labels, json_t *gate);

#endif
