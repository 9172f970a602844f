/* libFuzzer target: the raw profile reader (src/format/raw_read.c) on arbitrary bytes. It must
 * return 0 or -1 with a message, never crash, leak or read out of bounds. */
#include "format/raw.h"
#include "fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file(data, size, ".raw");
    if (!path) return 0;
    ms_raw raw;
    char err[512];
    if (ms_raw_read(path, &raw, err, sizeof err) == 0) ms_raw_free(&raw);
    return 0;
}
