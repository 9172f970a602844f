/* Checks on the program `memspy run` starts (see program_check.c). */
#ifndef MEMSPY_CLI_PROGRAM_CHECK_H
#define MEMSPY_CLI_PROGRAM_CHECK_H
#include <stddef.h>

typedef enum {
    MS_PROGRAM_ERROR = -1,       /* unreadable: err says why */
    MS_PROGRAM_NOT_ELF = 0,      /* a script or other file the kernel can run: run it anyway */
    MS_PROGRAM_PLAIN_ELF = 1,    /* ELF without memspy's runtime: refuse */
    MS_PROGRAM_INSTRUMENTED = 2, /* ELF built with memspy-cc */
} ms_program_kind;

/* The path execv should use for name: name itself when it contains '/', else the first
 * executable regular file in $PATH. Returns a malloc'd path or NULL if not found. */
char *ms_find_program(const char *name);

/* The symbol the runtime defines when its thread interposers are linked in because the
 * program itself calls pthread_create (src/rt/marker). */
#define MS_THREADS_MARKER "__memspy_threads_linked"

/* Classify the executable at path, and say in *starts_threads whether it may start threads:
 * memspy's threads marker, OpenMP entry points, thrd_create or std::thread among its imports,
 * or an OpenMP runtime among its needed libraries. `memspy run` then records per-thread
 * streams from the start, so that the whole run is replayed on the simulated multiprocessor.
 * 0 when unsure: a thread that starts anyway is still handled (the runtime switches over). */
ms_program_kind ms_check_program(const char *path, int *starts_threads, char *err, size_t errlen);

/* Resolve PROG for command cmd and refuse ELF executables that lack memspy's runtime (the
 * refusal `memspy run` and `memspy mtool` share); say whether it may start threads and whether
 * it is a script (*script). Returns 0 with *path (malloc'd), or MS_EXIT_USAGE after the
 * message. */
int ms_cli_check_program(const char *cmd, const char *name, char **path, int *starts_threads, int *script);

#endif
