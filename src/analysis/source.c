/* Source line reading (OpenMP region names) and system paths; file contents are cached per path. */
#include "source.h"
#include "../util/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *path;      /* as recorded in DWARF */
    char *text;      /* NULL if unreadable */
    size_t *line_at; /* offset of each line's start, nlines + 1 entries */
    size_t nlines;
} source_file;

struct ms_source_cache {
    char *root;
    source_file *files;
    size_t nfiles;
};

ms_source_cache *ms_source_cache_new(const char *source_root)
{
    ms_source_cache *c = calloc(1, sizeof *c);
    if (c && source_root && !(c->root = strdup(source_root))) {
        free(c);
        return NULL;
    }
    return c;
}

void ms_source_cache_free(ms_source_cache *c)
{
    if (!c) return;
    for (size_t i = 0; i < c->nfiles; i++) {
        free(c->files[i].path);
        free(c->files[i].text);
        free(c->files[i].line_at);
    }
    free(c->files);
    free(c->root);
    free(c);
}

static char *slurp(const char *path)
{
    char *text;
    return ms_read_file(path, 0, &text, NULL) == MS_READ_OK ? text : NULL;
}

static void index_lines(source_file *f)
{
    size_t n = 1;
    for (const char *p = f->text; *p; p++) n += *p == '\n';
    f->line_at = malloc((n + 1) * sizeof *f->line_at);
    if (!f->line_at) return;
    size_t line = 0;
    f->line_at[line++] = 0;
    for (size_t i = 0; f->text[i]; i++)
        if (f->text[i] == '\n') f->line_at[line++] = i + 1;
    f->line_at[line] = strlen(f->text) + 1; /* one past the last line's terminator */
    f->nlines = n;
}

static source_file *load(ms_source_cache *c, const char *path)
{
    for (size_t i = 0; i < c->nfiles; i++)
        if (strcmp(c->files[i].path, path) == 0) return &c->files[i];
    source_file *grown = realloc(c->files, (c->nfiles + 1) * sizeof *grown);
    if (!grown) return NULL;
    c->files = grown;
    source_file *f = &c->files[c->nfiles];
    memset(f, 0, sizeof *f);
    if (!(f->path = strdup(path))) return NULL;
    c->nfiles++;
    if (c->root && path[0] != '/') {
        size_t n = strlen(c->root) + strlen(path) + 2;
        char *full = malloc(n);
        if (full) {
            snprintf(full, n, "%s/%s", c->root, path);
            f->text = slurp(full);
            free(full);
        }
    } else {
        f->text = slurp(path);
    }
    if (f->text) index_lines(f);
    return f;
}

char *ms_source_line(ms_source_cache *c, const char *path, int line)
{
    source_file *f = path ? load(c, path) : NULL;
    if (!f || !f->text || !f->line_at || line < 1 || (size_t)line > f->nlines) return NULL;
    size_t b = f->line_at[line - 1], e = f->line_at[line] - 1;
    if (e < b) e = b;
    char *out = malloc(e - b + 1);
    if (!out) return NULL;
    memcpy(out, f->text + b, e - b);
    out[e - b] = '\0';
    if (e > b && out[e - b - 1] == '\r') out[e - b - 1] = '\0';
    return out;
}

bool ms_source_is_system(const char *path)
{
    static const char *const prefixes[] = { "/usr/include/", "/usr/local/include/", "/usr/src/debug/", "/build/glibc",
                                            "./csu/",        "../sysdeps/" };
    /* Compilers also spell headers through their own directories, e.g. clang's
     * "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/vector.tcc". */
    static const char *const parts[] = { "/include/c++/", "/lib/gcc/", "/lib/llvm", "/lib/clang/" };
    if (!path) return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0) return true;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strstr(path, parts[i])) return true;
    return false;
}
