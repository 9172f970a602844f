/* Shared declarations of the memspy command-line tool: the subcommands (one file each), the
 * cache options they share, and the error conventions (exit 2 for memspy's own errors). */
#ifndef MEMSPY_CLI_CLI_H
#define MEMSPY_CLI_CLI_H
#include <getopt.h>
#include <stddef.h>
#include <time.h>
#include "../model/model.h"
#include "../replay/replay.h"
#include "../sim/config.h"

#define MS_EXIT_USAGE 2 /* bad arguments, unusable files, memspy's own failures */

/* A subcommand: argv[0] is its name, options start at argv[1]. Returns the exit status. */
typedef int (*ms_cli_command)(int argc, char **argv);

int ms_cmd_run(int argc, char **argv);
int ms_cmd_resim(int argc, char **argv);
int ms_cmd_report(int argc, char **argv);
int ms_cmd_config(int argc, char **argv);
int ms_cmd_runs(int argc, char **argv);
int ms_cmd_show(int argc, char **argv);
int ms_cmd_fullname(int argc, char **argv);
int ms_cmd_rename(int argc, char **argv);
int ms_cmd_combine(int argc, char **argv);
int ms_cmd_export(int argc, char **argv);
int ms_cmd_annotate(int argc, char **argv);
int ms_cmd_diff(int argc, char **argv);
int ms_cmd_html(int argc, char **argv);
int ms_cmd_import(int argc, char **argv);
int ms_cmd_mtool(int argc, char **argv);
int ms_cmd_whatif(int argc, char **argv);

/* Print "memspy CMD: message" and "Try 'memspy CMD --help'." to stderr; returns MS_EXIT_USAGE. */
int ms_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print "memspy CMD: message" to stderr; returns MS_EXIT_USAGE. */
int ms_cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Options of a command that takes only --db and --help: parses them, leaving optind at the
 * first positional argument. *done is set after --help. Returns 0 or MS_EXIT_USAGE. */
int ms_cli_db_options(const char *cmd, int argc, char **argv, const char *usage, const char **db_opt, int *done);
/* Seconds elapsed since *t0 (CLOCK_MONOTONIC). */
double ms_cli_seconds_since(const struct timespec *t0);
/* The largest --top of the reports (matrix rows and columns, reference rows). */
#define MS_CLI_MAX_TOP 1000ul
/* Parse a positive decimal integer no larger than max; returns 0 or -1. */
int ms_cli_parse_positive(const char *s, unsigned long max, unsigned long *out);

/* ---- cache options (--preset, --cache, --mem-latency, --config), shared by run and config ---- */

#define MS_DEFAULT_PRESET "x86"

enum {
    MS_OPT_PRESET = 1000,
    MS_OPT_CACHE,
    MS_OPT_MEM_LATENCY,
    MS_OPT_CONFIG_FILE,
    MS_OPT_PROCS,
    MS_OPT_NODES,
    MS_OPT_UNIT,
    MS_OPT_PROTOCOL,
    MS_OPT_SHARED,
    MS_OPT_REMOTE_LATENCY,
    MS_OPT_INTERLEAVE,
    MS_OPT_DB,
    MS_OPT_JSON_FILE,
    MS_OPT_RESULT_FILE,
    MS_OPT_TOP_N,
    MS_OPT_NO_REPORT,
    MS_OPT_DB_TIMEOUT,
    MS_OPT_SIM_THREADS,
    MS_OPT_CODE_GRANULARITY,
    MS_OPT_LOOP_SHARE,
    MS_OPT_UTILISATION,
    MS_OPT_FIRST_FREE
};

/* Entries for a getopt_long option table. */
#define MS_CACHE_LONG_OPTIONS                                                                                          \
    { "preset", required_argument, NULL, MS_OPT_PRESET }, { "cache", required_argument, NULL, MS_OPT_CACHE },          \
        { "mem-latency", required_argument, NULL, MS_OPT_MEM_LATENCY },                                                \
        { "config", required_argument, NULL, MS_OPT_CONFIG_FILE }, { "procs", required_argument, NULL, MS_OPT_PROCS }, \
        { "nodes", required_argument, NULL, MS_OPT_NODES },                                                            \
        { "coherence-unit", required_argument, NULL, MS_OPT_UNIT },                                                    \
        { "protocol", required_argument, NULL, MS_OPT_PROTOCOL },                                                      \
        { "shared", required_argument, NULL, MS_OPT_SHARED },                                                          \
        { "remote-latency", required_argument, NULL, MS_OPT_REMOTE_LATENCY },                                          \
        { "interleave", required_argument, NULL, MS_OPT_INTERLEAVE },                                                  \
        { "sim-threads", required_argument, NULL, MS_OPT_SIM_THREADS },                                                \
        { "code-granularity", required_argument, NULL, MS_OPT_CODE_GRANULARITY },                                      \
        { "utilisation", no_argument, NULL, MS_OPT_UTILISATION },                                                      \
    {                                                                                                                  \
        "loop-share", required_argument, NULL, MS_OPT_LOOP_SHARE                                                       \
    }

/* Help text for those options, for the subcommands' --help. */
#define MS_CACHE_OPTIONS_HELP                                                                                       \
    "Cache options (applied in this order, later ones override earlier ones):\n"                                    \
    "  --preset NAME        start from a preset (default " MS_DEFAULT_PRESET "; see memspy config --list)\n"        \
    "  --config FILE        read 'key = value' lines: preset, cache, mem-latency, l1, l2, l3\n"                     \
    "  --cache SPEC         levels, e.g. L1=32K:8:64:4[:lru|plru|random],L2=1M:16:64:14\n"                          \
    "                       (size:ways:line bytes:latency cycles[:policy])\n"                                       \
    "  --mem-latency N      cycles of an access served by memory\n"                                                 \
    "  --utilisation        keep L1's spatial utilisation (bytes of each fetched line used) and\n"                  \
    "                       advise splitting or merging structures (a slower simulation)\n"                         \
    "Multiprocessor options (multithreaded programs; one processor per thread by default):\n"                       \
    "  --procs N            simulated processors (1.." MS_STR(                                                      \
        MS_MAX_PROCS) "); thread i runs on i mod N\n"                                                               \
                      "  --interleave MODE    order of the threads' accesses between synchronisations:\n"           \
                      "                       timed (the default with more than one thread: a clock per\n"          \
                      "                       processor, the earliest goes next; waiting-time analysis),\n"         \
                      "                       interleaved (ccSIM: round robin, one reference each; the\n"           \
                      "                       default with one thread) or piped (each thread's region in turn)\n"   \
                      "  --protocol P         mesi (default) or msi\n"                                              \
                      "  --coherence-unit S   bytes kept coherent as one unit: the line (default) or e.g. 4K\n"     \
                      "  --shared LEVEL       first level shared by all processors (L2, L3) or none (every level\n" \
                      "                       private); default: the preset's (x86: L3, 2M per processor)\n"        \
                      "  --nodes N            group the processors into N nodes; misses are local or remote\n"      \
                      "  --remote-latency N   cycles of a miss served by another node (default 2 x memory)\n"       \
                      "  --sim-threads N      threads simulating the replay of recorded streams (1..256; default\n" \
                      "                       1): the simulation is split by cache set; only the\n"                 \
                      "                       capacity/conflict split depends on N (interleaved and piped;\n"       \
                      "                       timed simulates in one partition, the run's notes say so)\n"          \
                      "Code bins (programs built with memspy's gcc plugin for loops):\n"                            \
                      "  --code-granularity G function (default), loop or line: a loop is a bin when it holds\n"    \
                      "                       at least --loop-share of its function's stall (FUNC:loop@A-B)\n"      \
                      "  --loop-share PCT     that share in percent (default 10)\n"

#define MS_STR_(x) #x
#define MS_STR(x) MS_STR_(x)

typedef struct {
    const char *preset, *config_file, *cache, *mem_latency; /* NULL when not given */
    const char *procs, *nodes, *unit, *protocol, *shared, *remote_latency;
    const char *interleave;
    const char *sim_threads;
    const char *code_granularity, *loop_share;
    int utilisation; /* --utilisation */
} ms_cache_opts;

/* Take option `opt` with argument arg if it is a cache option: returns 1 if taken, else 0. */
int ms_cache_opts_take(ms_cache_opts *o, int opt, const char *arg);

/* Build and validate the hierarchy the options describe. Returns 0, or -1 with err naming the
 * option and the bad field. */
int ms_cache_opts_resolve(const ms_cache_opts *o, ms_hier_config *cfg, char *err, size_t errlen);

/* True if an option choosing the hierarchy (--preset, --config, --cache, --mem-latency) was
 * given: multiprocessor options alone keep a recorded hierarchy. */
int ms_cache_opts_hier_given(const ms_cache_opts *o);

/* Apply only the multiprocessor options to cfg (e.g. over a recorded configuration) and
 * validate. Returns 0, or -1 with err naming the option. */
int ms_cache_opts_apply_mp(const ms_cache_opts *o, ms_hier_config *cfg, char *err, size_t errlen);

/* The replay options: the --interleave mode into *mode (MS_INTERLEAVE_DEFAULT when not given:
 * timed for more than one thread, replay.h) and
 * --sim-threads (1..256) into the drive's setting. 0, or -1 with err if bad. */
int ms_cache_opts_interleave(const ms_cache_opts *o, ms_interleave *mode, char *err, size_t errlen);

/* The analysis options (--code-granularity, --loop-share) into the drive's setting. 0, or -1
 * with err if bad. */
int ms_cache_opts_code_bins(const ms_cache_opts *o, char *err, size_t errlen);

/* ---- choosing the stored run a command reads ---- */

#define MS_DB_ENV "MEMSPY_DB"
#define MS_DB_DEFAULT "memspy.db"

/* getopt_long entry for --db PATH, accepted by every command. */
#define MS_DB_LONG_OPTION                        \
    {                                            \
        "db", required_argument, NULL, MS_OPT_DB \
    }
#define MS_DB_OPTION_HELP "  --db PATH            the run database (default $" MS_DB_ENV " or ./" MS_DB_DEFAULT ")\n"

/* The database path: the --db value if given, else $MEMSPY_DB, else ./memspy.db. */
const char *ms_cli_db_path(const char *db_opt);

/* The wait for a locked database (db_wait.c): --db-timeout SECONDS (opt, NULL if not given),
 * else $MEMSPY_DB_TIMEOUT, else 10 s; applies to the databases opened afterwards. Returns 0
 * or MS_EXIT_USAGE after a message. */
#define MS_DB_TIMEOUT_ENV "MEMSPY_DB_TIMEOUT"
#define MS_DB_TIMEOUT_LONG_OPTION                                \
    {                                                            \
        "db-timeout", required_argument, NULL, MS_OPT_DB_TIMEOUT \
    }
#define MS_DB_TIMEOUT_HELP                                                              \
    "  --db-timeout SECONDS wait this long for a database another process has locked\n" \
    "                       (default $" MS_DB_TIMEOUT_ENV " or 10)\n"
int ms_cli_db_wait(const char *cmd, const char *opt);

/* A run the database refused (unstored_run.c): save m as memspy-run-PID.result next to the
 * database (else in the current directory, else in $TMPDIR), never replacing a file, and
 * say where and how to import it. Returns MS_EXIT_USAGE. */
int ms_cli_keep_unstored(const char *cmd, const ms_model *m, const char *db_opt);

/* Load the run that `arg` names into m: a run number in the database (NULL = the latest
 * run), or the path of a saved result file (JSON). Prints "memspy CMD: ..." on error (an
 * unknown run lists the closest ones) and returns -1; else 0, with *run_id the run number
 * (0 for a result file). */
int ms_cli_load_run(const char *cmd, const char *db_opt, const char *arg, ms_model *m, int *run_id);

/* MS_EXIT_USAGE after "memspy CMD: ... is an MTOOL run" when m is one (it has no bins: the
 * commands that work on bins refuse it); 0 otherwise. */
int ms_cli_refuse_mtool(const char *cmd, const ms_model *m, const char *arg);

/* True if s is a run number (decimal digits only): how [RUN] arguments are told from names. */
int ms_cli_is_run_number(const char *s);

/* ---- choosing bins by name (bin_select.c): exact short name, exact full name or glob ---- */

/* The union of the code (code != 0) or data bins matching each pattern, without duplicates,
 * in *out (caller frees). An unknown pattern prints the closest names; a name that several
 * bins share (equal names, or the name and its "#N" variants) lists them and is an error;
 * the data name "other" takes every bin of kind OTHER (other, other:MAPPING). Returns 0 or
 * MS_EXIT_USAGE. */
int ms_cli_find_bins(const char *cmd, const ms_model *m, int code, char **patterns, size_t npatterns, uint32_t **out,
                     size_t *nout);
/* The same when the patterns may name code segments or data bins (all of one kind, *code
 * says which). */
int ms_cli_find_any_bins(const char *cmd, const ms_model *m, char **patterns, size_t npatterns, int *code,
                         uint32_t **out, size_t *nout);
/* "memspy CMD: no ... matches 'pattern'; closest: ..." for either kind. Returns MS_EXIT_USAGE. */
int ms_cli_unknown_bin(const char *cmd, const ms_model *m, const char *pattern);

/* MemSpy's detailed display (DisplayAll) of the combination of the named code segments and
 * data bins on stdout (cmd_show.c; also `report --code/--data`). Returns an exit status. */
int ms_cli_show_detail(const char *cmd, const ms_model *m, char **codes, size_t ncodes, char **datas, size_t ndatas);

#endif
