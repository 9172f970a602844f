/* libFuzzer target: the result file reader (src/report/json_read.c) on arbitrary text; a
 * model it accepts is written back, which must succeed. */
#include <stdio.h>
#include <stdlib.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ms_model m;
    char err[512];
    if (ms_json_read_buffer("fuzz", (const char *)data, size, &m, err, sizeof err) == 0) {
        FILE *out = fopen("/dev/null", "w");
        if (out && ms_json_write(out, &m) < 0) abort();   /* an accepted model must be writable */
        if (out) fclose(out);
        ms_model_free(&m);
    }
    return 0;
}
