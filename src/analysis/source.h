/* Which paths are system sources. No name is read from source text: heap bins and OpenMP
 * regions are named from the compiler plugins' records. */
#ifndef MEMSPY_ANALYSIS_SOURCE_H
#define MEMSPY_ANALYSIS_SOURCE_H
#include <stdbool.h>

/* Is path a system header or library source (/usr/include, /usr/lib/gcc, ...)? */
bool ms_source_is_system(const char *path);

#endif
