/* OpenMP regions as programmers name them, from the records the compiler plugins made of
 * each region they saw outlined (MSPLUG_OMP_RECORD in src/rt/msplug_abi.h; never from the
 * source text): gcc's main._omp_fn.3 or clang's .omp_outlined. becomes
 * "main: omp parallel for @305" (FUNCTION: omp CONSTRUCT @PRAGMA_LINE). */
#ifndef MEMSPY_ANALYSIS_OMPNAMES_H
#define MEMSPY_ANALYSIS_OMPNAMES_H
#include <stdbool.h>
#include <stddef.h>
#include "../format/raw.h"
#include "symbolize.h"

/* Whether func is a compiler-outlined OpenMP region by its name alone (gcc's
 * PARENT._omp_fn.N, clang's .omp_outlined.): the fallback where no record was made. */
bool ms_omp_outlined(const char *func);

/* What a region's record says. */
typedef struct {
    char parent[1024]; /* the function the construct is written in (cut beyond) */
    char kind[64];     /* "parallel", "parallel for", "task", ... */
    int line;          /* the pragma's line */
} ms_omp_region;

/* The record of the region whose body holds the code symbolized as code, at its frame of
 * function func: the record whose label lies in the same function (ms_sym.entry), func that
 * function itself or one inlined into it that the record lists (clang's _debug__). Without a symbolizer or a function start,
 * by name: the record listing func (a DWARF name), the one from file (the code's source
 * file, may be NULL) where several units outline a function of one name. The parent is
 * made readable by sym (a C++ linkage name demangled). Returns whether there is one. */
bool ms_omp_region_find(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                        ms_omp_region *out);

/* The code bin name of outlined function func (code, file: as for ms_omp_region_find) whose
 * first line is first_line: from its record "PARENT: omp KIND @LINE"; without one (a binary
 * built before the records, or without memspy's plugins), "PARENT: omp region @FIRST_LINE"
 * (gcc's PARENT from the name), "omp region @FIRST_LINE" (clang). malloc'd, NULL when out of
 * memory. */
char *ms_omp_region_name(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                         int first_line);

/* The function the programmer wrote func in, for naming its loops (FUNC:loop@A-B) into buf:
 * the region's parent (its record, else gcc's name before "._omp_fn."), func itself if it is
 * no region. */
void ms_omp_function(const ms_raw *raw, ms_symbolizer *sym, const ms_sym *code, const char *func, const char *file,
                     char *buf, size_t size);

#endif
