/* libFuzzer target: the result file reader (src/modelio/json_read.c) on arbitrary text; a
 * model it accepts is written back in both forms, which must succeed, and its stored form
 * (version 4, names through the string table) must read back to the same report. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* m written by write into a malloc'ed buffer (aborts if writing fails). */
static char *written(int (*write)(FILE *, const ms_model *), const ms_model *m, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out) abort();
    int rc = write(out, m);
    if (fclose(out) != 0 || rc < 0) abort(); /* an accepted model must be writable */
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_model m, back;
    char err[512];
    if (ms_json_read_buffer("fuzz", (const char *)data, size, &m, err, sizeof err) == 0) {
        size_t rlen = 0, slen = 0, blen = 0;
        char *report = written(ms_json_write, &m, &rlen), *stored = written(ms_json_write_stored, &m, &slen);
        if (ms_json_read_buffer("stored", stored, slen, &back, err, sizeof err) < 0) abort();
        char *again = written(ms_json_write, &back, &blen);
        if (blen != rlen || memcmp(again, report, rlen) != 0) abort(); /* the string table lost nothing */
        free(report);
        free(stored);
        free(again);
        ms_model_free(&back);
        ms_model_free(&m);
    }
    return 0;
}
