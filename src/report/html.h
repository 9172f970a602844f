/* HTML reports: one self-contained file each (inline CSS and JavaScript, the data embedded as
 * JSON, no network access), to be opened in any browser, also offline. */
#ifndef MEMSPY_REPORT_HTML_H
#define MEMSPY_REPORT_HTML_H
#include <stddef.h>
#include <stdio.h>
#include "../model/model.h"
#include "diff_report.h"

/* The report of one run: totals, the matrix as a heat map, the detailed display of any cell
 * or bin, the source view and per-thread charts when the model has threads. The source files
 * named in the model's per-line statistics are read now and embedded (a relative path is also
 * tried against the run's working directory); those that cannot be read are listed as
 * unavailable. `title` names the run in the page heading. Returns 0, or -1 with err. */
int ms_report_html(FILE *out, const ms_model *m, const char *title, char *err, size_t errlen);

/* The comparison page of two runs (see ms_model_diff). Returns 0, or -1 with err. */
int ms_report_html_diff(FILE *out, const ms_diff *d, const ms_diff_labels *labels, char *err, size_t errlen);

/* Text for element content or a quoted attribute value, HTML-escaped. */
void ms_html_put_escaped(FILE *out, const char *s);

#endif
