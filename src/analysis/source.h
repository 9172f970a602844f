/* Reading source lines (for naming OpenMP regions after their pragma, ompnames.c); which
 * paths are system sources. Heap bins are never named from source text. */
#ifndef MEMSPY_ANALYSIS_SOURCE_H
#define MEMSPY_ANALYSIS_SOURCE_H
#include <stdbool.h>
#include <stddef.h>

/* File contents cached by path (files that cannot be read are remembered as missing). */
typedef struct ms_source_cache ms_source_cache;

ms_source_cache *ms_source_cache_new(const char *source_root);
void ms_source_cache_free(ms_source_cache *c);

/* A copy of line `line` of path (without its newline), or NULL if unavailable. */
char *ms_source_line(ms_source_cache *c, const char *path, int line);

/* Is path a system header or library source (/usr/include, /usr/lib/gcc, ...)? */
bool ms_source_is_system(const char *path);

#endif
