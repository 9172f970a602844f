/* Reading allocation statements from source files (for naming heap bins). */
#ifndef MEMSPY_ANALYSIS_SOURCE_H
#define MEMSPY_ANALYSIS_SOURCE_H
#include <stdbool.h>
#include <stddef.h>

/* File contents cached by path (files that cannot be read are remembered as missing). */
typedef struct ms_source_cache ms_source_cache;

ms_source_cache *ms_source_cache_new(const char *source_root);
void ms_source_cache_free(ms_source_cache *c);

/* The text of the statement containing `line` of `path`: that line plus up to
 * MS_SOURCE_LOOKBACK earlier lines back to the end of the previous statement (';', '{', '}';
 * for Fortran, continuation lines ending in '&'), joined with '\n'. Returns a malloc'd
 * string, or NULL if the file or line is not available. */
#define MS_SOURCE_LOOKBACK 6
char *ms_source_statement(ms_source_cache *c, const char *path, int line);

/* A copy of line `line` of path (without its newline), or NULL if unavailable. */
char *ms_source_line(ms_source_cache *c, const char *path, int line);

/* Is path a system header or library source (/usr/include, /usr/lib/gcc, ...)? */
bool ms_source_is_system(const char *path);

#endif
