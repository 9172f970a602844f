/* The model's file format: the JSON result file (also the --json report), written and read
 * back here so that the run database and the reports share it without depending on each
 * other. */
#ifndef MEMSPY_MODELIO_MODELIO_H
#define MEMSPY_MODELIO_MODELIO_H
#include <stddef.h>
#include <stdio.h>
#include "../model/model.h"
#include "../model/mtool.h"

/* Write the model as JSON: the --json report, for people and tools (result version 3: names
 * inline, indented). Returns 0 or -1. */
int ms_json_write(FILE *out, const ms_model *m);

/* Write the model as the stored result (--result, the run database, memspy-run-PID.result):
 * version 4, every name once in the "names" table, no indentation. Returns 0 or -1. */
int ms_json_write_stored(FILE *out, const ms_model *m);

/* Read a result file written by ms_json_write or ms_json_write_stored. Returns 0, or -1 with err naming the problem
 * (not found, not a memspy result, newer version, truncated/corrupt at line:col). */
int ms_json_read(const char *path, ms_model *m, char *err, size_t errlen);

/* The same for len bytes of JSON text in memory (the run database keeps the model so);
 * `name` stands for the source in messages. */
int ms_json_read_buffer(const char *name, const char *text, size_t len, ms_model *m, char *err, size_t errlen);

/* Write MTOOL's result as {"mtool": {...}} (memspy mtool --json). Returns 0 or -1. */
int ms_mtool_json_write(FILE *out, const ms_mtool_result *r);

#endif
