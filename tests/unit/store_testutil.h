/* Helpers of the run-database tests: a scratch directory, the model as JSON text (to compare
 * models exactly) and data-bin lookups. Header-only. */
#ifndef MEMSPY_TEST_STORE_TESTUTIL_H
#define MEMSPY_TEST_STORE_TESTUTIL_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "report/report.h"

/* A new directory under $TMPDIR (or /tmp); the caller removes it with scratch_remove. */
static inline char *scratch_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = NULL;
    if (asprintf(&dir, "%s/memspy-store-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0 || !mkdtemp(dir)) {
        perror("scratch directory");
        exit(2);
    }
    return dir;
}

static inline void scratch_remove(const char *dir)
{
    char *cmd = NULL;
    if (asprintf(&cmd, "rm -rf '%s'", dir) >= 0 && system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
    free(cmd);
}

static inline char *path_in(const char *dir, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "%s/%s", dir, name) < 0) exit(2);
    return p;
}

/* The model as its JSON text (caller frees). */
static inline char *model_json(const ms_model *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || ms_json_write(f, m) < 0) exit(2);
    fclose(f);
    return text;
}

/* Index of the data bin with this short name, or -1. */
static inline int data_index(const ms_model *m, const char *name)
{
    for (size_t i = 0; i < m->ndata; i++)
        if (strcmp(m->data[i].name, name) == 0) return (int)i;
    return -1;
}

/* The whole file (for "nothing was written" checks); *len receives its size. */
static inline char *file_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    *len = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)n + 1);
    if (buf) *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

#endif
