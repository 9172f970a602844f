/* The external tools MTOOL's block costs run (llvm-objdump, llvm-mca, memspy-mcdeps): started
 * with their standard streams on files, waited for, and scratch files for them. */
#ifndef MEMSPY_ANALYSIS_TOOLS_H
#define MEMSPY_ANALYSIS_TOOLS_H
#include <stddef.h>
#include <sys/types.h>

/* Start argv (found in $PATH unless it holds a '/') with stdin from in_path (NULL: /dev/null),
 * stdout to out_path, stderr to err_path (NULL: /dev/null). Returns its pid, or -1 if it could
 * not start. */
pid_t ms_tool_spawn(char *const argv[], const char *in_path, const char *out_path, const char *err_path);

/* Wait for an ms_tool_spawn's pid: its exit status (127: not found), 128 if killed, -1 if it
 * did not start. */
int ms_tool_wait(pid_t pid);

/* Run argv (as ms_tool_spawn) and wait for it: its exit status, or -1 if it could not start. */
int ms_tool_run(char *const argv[], const char *in_path, const char *out_path, const char *err_path);

/* A new empty scratch file $TMPDIR/memspy-WHAT-XXXXXX (default /tmp), its path into buf.
 * Returns 0, or -1 with errno. */
int ms_tool_scratch(char *buf, size_t len, const char *what);

/* The path of memspy-mcdeps (docs/mtool.md): $MEMSPY_MCDEPS if set, else <the directory of
 * this executable>/../lib/memspy/memspy-mcdeps; NULL when it is not there (not built: no
 * llvm-14-dev). Static storage. */
const char *ms_tool_mcdeps_path(void);

#endif
