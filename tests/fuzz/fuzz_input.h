/* Shared by the fuzz targets whose reader takes a path: the input written to a scratch file
 * (one per process, removed at exit). Header-only. */
#ifndef MEMSPY_FUZZ_INPUT_H
#define MEMSPY_FUZZ_INPUT_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path[256];

static void fuzz_remove(void) { unlink(fuzz_path); }

/* The path holding data[0..size), or NULL if it cannot be written. */
static inline const char *fuzz_file(const uint8_t *data, size_t size, const char *suffix)
{
    if (!fuzz_path[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(fuzz_path, sizeof fuzz_path, "%s/memspy-fuzz-%d%s", tmp && *tmp ? tmp : "/tmp", (int)getpid(),
                 suffix);
        atexit(fuzz_remove);
    }
    FILE *f = fopen(fuzz_path, "wb");
    if (!f) return NULL;
    int ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok) return NULL;
    return fuzz_path;
}
#endif
