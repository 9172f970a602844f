/* MTOOL's result as a JSON object, shared by `memspy mtool --json` (mtool_json.c) and the
 * result file of an MTOOL run (json_write.c / json_read.c: its "mtool" member). */
#ifndef MEMSPY_MODELIO_MTOOL_JSON_H
#define MEMSPY_MODELIO_MTOOL_JSON_H
#include <jansson.h>
#include <stddef.h>
#include "../model/mtool.h"

/* The object {"cpu_model", ..., "mobjects": [...]}, new reference; NULL when out of memory. */
json_t *ms_mtool_json(const ms_mtool_result *r);

/* Read such an object (o, found at `where` in file `name`) into r (zeroed first; freed on
 * failure). Returns 0, or -1 with err naming the field that is missing or wrong. */
int ms_mtool_json_parse(const char *name, const char *where, json_t *o, ms_mtool_result *r, char *err, size_t errlen);

#endif
