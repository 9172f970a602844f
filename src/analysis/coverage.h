/* What the profile does not see: code built without memspy's instrumentation. */
#ifndef MEMSPY_ANALYSIS_COVERAGE_H
#define MEMSPY_ANALYSIS_COVERAGE_H
#include "../format/raw.h"

/* The run's note naming the modules whose code reached the profile only through the memory and
 * string functions it calls (memcpy, memset, ...: the runtime records their ranges), never
 * through its own loads and stores: modules with contexts but no instrumented block, in a run
 * whose program was built with the plugins (blocks recorded). A program that spends its time in
 * such a library (pbzip2 in libbz2) would otherwise get a confident profile of a small part of
 * its work. NULL if there is none (or out of memory); the caller frees it. */
char *ms_uninstrumented_note(const ms_raw *raw);

#endif
