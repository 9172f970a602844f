/* Reading a whole file: raw profiles, result files, sources to annotate, config files. */
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

ms_read_status ms_read_file(const char *path, size_t max_bytes, char **out, size_t *len)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return MS_READ_OPEN;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ms_read_status status = MS_READ_OK;
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f); /* room for the NUL stays free */
        if (max_bytes && n > max_bytes) {
            status = MS_READ_TOO_BIG;
            break;
        }
        if (n < cap - 1) break;
        /* Never hold more than max_bytes + 1 bytes: one past the limit proves it is exceeded. */
        size_t want = cap * 2;
        if (max_bytes && want > max_bytes + 2) want = max_bytes + 2;
        char *bigger = realloc(buf, want);
        if (!bigger) break;
        buf = bigger;
        cap = want;
    }
    if (status == MS_READ_OK && (!buf || n == cap - 1))
        status = MS_READ_NOMEM; /* malloc or a realloc failed */
    else if (status == MS_READ_OK && ferror(f))
        status = MS_READ_IO;
    fclose(f);
    if (status != MS_READ_OK) {
        free(buf);
        return status;
    }
    buf[n] = '\0';
    *out = buf;
    if (len) *len = n;
    return MS_READ_OK;
}
