/* OpenMP regions as programmers name them: the outlined function gcc makes of a parallel
 * construct (main._omp_fn.3) becomes "main: omp parallel for stream.c:305". */
#ifndef MEMSPY_ANALYSIS_OMPNAMES_H
#define MEMSPY_ANALYSIS_OMPNAMES_H
#include "source.h"

/* Whether func is a compiler-outlined OpenMP region (gcc's PARENT._omp_fn.N, clang's
 * .omp_outlined.). */
bool ms_omp_outlined(const char *func);

/* The name of the region outlined as func whose first source line in file is first_line: the
 * construct from the nearest "#pragma omp" (or "!$omp") line at or above it in the source,
 * "PARENT: omp CONSTRUCT FILE:LINE"; without the source, "PARENT: omp region FILE:FIRST_LINE".
 * Returns a malloc'd string, or NULL when out of memory. */
char *ms_omp_region_name(ms_source_cache *src, const char *func, const char *file, int first_line);

#endif
