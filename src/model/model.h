/* The format-neutral result model: what analyses produce and what every store and report
 * (text, JSON, later HTML/SQLite) reads. Plain data; helpers here only build, query and free it. */
#ifndef MEMSPY_MODEL_MODEL_H
#define MEMSPY_MODEL_MODEL_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"
#include "../format/raw.h"
#include "finding.h"
#include "mtool.h"

#define MS_MODEL_FORMAT "memspy-result"
#define MS_MODEL_VERSION 4 /* 2: threads, invalidations, references, patterns; 3: "names"; 4: every name in "names" */
#define MS_MODEL_REPORT_VERSION 3 /* the --json report: names inline (but blocks' and loops') */

typedef struct {
    char *name; /* function name (innermost inlined function when inlined) */
    char *file; /* source file, NULL if unknown */
    int line;   /* first line (decl line) of the function, 0 if unknown */
} ms_code_bin;

typedef struct {
    char *name;      /* short unique name, MemSpy style: "double*.Y", "M.nz", "grid", "stack:main" */
    char *full_name; /* with call path: "main:42>NewMatrix:17>double*.Y" */
    ms_bin_kind kind;
    char *site; /* HEAP: "file:line" of the allocation; GLOBAL: "file:line" if known; else NULL */
    uint64_t objects, bytes, peak_bytes; /* HEAP: allocations, bytes requested, peak live; GLOBAL: size in bytes */
    uint32_t raw_ref;                    /* the raw bin's id + 1 it was built from (0: none); in memory only, set by
                       * the analysis (memspy whatif finds a bin's contexts with it) */
    uint64_t row_bytes;      /* a matrix's row in bytes (its leading dimension), 0 unknown; in memory only: from
                         * DWARF for an array of static dimensions, from the recorded references'
                         * strides for a heap array (the advice's pad) */
    uint64_t row_width;      /* of each row, the bytes its references walk at a time (a block's width), 0 unknown */
    uint64_t row_pad;        /* the row length the advice's re-simulation of a few pads found best, 0 none */
    uint64_t row_pad_stall;  /* ... the total memory stall it predicts */
    uint32_t row_pads_tried; /* ... how many pads were re-simulated */
    uint8_t row_none;        /* it has no rows: DWARF gives it no second dimension, or its recorded references
                       * no dominant stride (the advice then pads nothing) */
} ms_data_bin;

/* One replacement cause: of the victim cell's replacement misses at `level`, `count` were
 * to lines last evicted by an access of (code, data). */
typedef struct {
    uint32_t code, data, level;
    uint64_t count;
} ms_evictor;

/* qsort order of replacement causes everywhere (analysis, sums, JSON): count descending,
 * then level, data, code, so that lists are deterministic. */
int ms_evictor_order(const void *a, const void *b);

/* One invalidation cause: of the cell's received invalidations, `count` came from writes
 * of (code, data) on processor cpu. */
typedef struct {
    uint32_t code, data, cpu;
    uint64_t count;
} ms_invalidator;

/* qsort order of invalidation causes: count descending, then data, code, cpu. */
int ms_invalidator_order(const void *a, const void *b);

/* One (code bin, data bin) cell of the matrix. */
typedef struct {
    uint32_t code, data;
    ms_counters c;
    ms_evictor *evicted_by;
    size_t nevicted_by; /* sorted by count, descending */
    ms_invalidator *inval_by;
    size_t ninval_by; /* sorted (ms_invalidator_order) */
    char fields[96];  /* with utilisation, on a bin of structures: the fields (DWARF members) its
                       * references touched, "sum_x, n" ("" unknown); JSON "fields" */
} ms_cell;

/* Sum a cell's replacement causes with equal (code, data, level) and its invalidation causes
 * with equal (code, data, cpu), and sort both lists in their shared orders (after bins were
 * renumbered or cells merged). */
void ms_cell_merge_causes(ms_cell *c);

/* One simulated processor of a multithreaded run: everything its threads referenced. */
typedef struct {
    uint32_t cpu;
    uint32_t *threads;
    size_t nthreads;     /* thread indices replayed on it, ascending */
    uint64_t wait_turns; /* replay steps its threads spent blocked */
    ms_counters c;
} ms_proc_stat;

/* Access kind of a source reference (ccSIM's "f Read nbf.c:141"). */
typedef enum { MS_REF_READ = 0, MS_REF_WRITE = 1, MS_REF_READWRITE = 2 } ms_ref_kind;

/* Per-reference statistics (ccSIM Table 3): one source location, access kind and data bin on
 * one processor. */
typedef struct {
    uint32_t file; /* index into model->files */
    int line;
    uint32_t code, data, cpu;
    ms_ref_kind kind;
    ms_counters c;
} ms_reference_stat;

/* qsort orders of per-reference rows: by key (file, line, code, data, kind, cpu), and the
 * model's order (L1 coherence misses plus invalidations received, then L1 misses,
 * descending; ties by key). */
int ms_reference_key_order(const void *a, const void *b);
int ms_reference_order(const void *a, const void *b);
/* Sort n rows by key and add up the rows with equal keys; returns the rows left (in key
 * order). */
size_t ms_references_fold(ms_reference_stat *rows, size_t n);

/* Statistics per source line and data bin (for annotate and per-line views). */
typedef struct {
    uint32_t file; /* index into model->files */
    int line;
    uint32_t code, data;
    ms_counters c;
} ms_line_stat;

/* A basic block of plugin-instrumented code and how often it ran (MTOOL's counting, the
 * waiting-time analysis's unit of work). */
typedef struct {
    char *function;     /* the function containing it ("??" unknown) */
    char *file;         /* source file of its first statement, NULL unknown */
    int line, end_line; /* its statements' lines (end_line = line when only one is known) */
    uint32_t loop;      /* index into model->loops of its innermost loop, UINT32_MAX none */
    uint32_t memops, stmts;
    uint64_t count; /* executions, all threads */
} ms_block_stat;

/* A natural loop: its place (the lines of its blocks, nested loops' included, in the header's
 * file), nesting and how often its header ran. */
typedef struct {
    char *function, *file;
    int line, end_line;
    uint32_t parent;     /* index into model->loops, UINT32_MAX: outermost */
    uint32_t depth;      /* 1 = outermost */
    uint32_t header;     /* index into model->blocks, UINT32_MAX unknown */
    uint64_t iterations; /* executions of the header block */
} ms_loop_stat;

/* A call edge of plugin-instrumented code (MS_RAW_CALLS) between functions, named as code
 * bins name functions (the function whose code makes the call, not one inlined there): the
 * callgrind export's call graph. */
typedef struct {
    char *caller, *callee;
    char *caller_file, *callee_file; /* their declaration files, NULL unknown */
    int line;                        /* the call site: the first line of the calling basic block */
    int callee_line;                 /* the callee's declaration line, 0 unknown */
    uint64_t count;                  /* calls, all threads */
} ms_call_stat;

/* The share of a code bin executed in the code of one function (the function compiled, not
 * one inlined into it): a function's own code, its loops (loop code bins), a function inlined
 * into it. Only for runs with call edges. */
typedef struct {
    char *function; /* as in ms_call_stat */
    char *file;     /* its declaration file, NULL unknown */
    uint32_t code;
    ms_counters c;
} ms_code_part;

/* Waiting-time analysis of a timed replay (Carnival's WT Map and Characterization Map;
 * analysis/waiting.c). Classes: Carnival's load imbalance, insufficient parallelism and
 * communication/contention among the threads that work, and apart the waiting of an idle
 * thread (one that did almost no work of its own in the whole run: a watchdog, a writer
 * waiting for output, a main thread that only creates and joins; MS_WAIT_IDLE_SHARE). */
enum {
    MS_WAITCLASS_LOAD_IMBALANCE,
    MS_WAITCLASS_INSUFFICIENT_PARALLELISM,
    MS_WAITCLASS_COMMUNICATION,
    MS_WAITCLASS_IDLE_THREAD,
    MS_WAITCLASSES
};
/* A thread is idle when its compute and stall over the whole run are below 1/MS_WAIT_IDLE_SHARE
 * of the busiest thread's. */
#define MS_WAIT_IDLE_SHARE 100

/* One processor's simulated time by kind (cycles; their sum is its finishing time). idle: its
 * thread did almost no work (its waiting is class idle_thread). */
typedef struct {
    uint32_t cpu;
    uint64_t compute, stall, waiting, sync;
    bool idle;
} ms_wait_profile;

/* A code location the late processors executed more than the waiting ones. */
typedef struct {
    char *function, *file, *loop; /* loop: "FUNC:loop@A-B", NULL outside loops */
    int line;
    uint64_t extra_count, extra_cycles, stall_cycles;
} ms_wait_explanation;

/* An equivalence class of a point's wait instances (the same set of blocks executed extra),
 * placed at its lead block (most extra cycles; function "-" when the paths did not differ). */
typedef struct {
    char *function, *file, *loop;
    int line;
    uint64_t instances, cycles;
} ms_wait_path;

/* A synchronisation point: a kind of wait at one object and code location. */
typedef struct {
    char *kind; /* "barrier", "lock", "join", "cond", "semaphore", "fork" */
    char *function, *file;
    int line;
    uint64_t object;   /* the lock's or barrier's address / id */
    char *object_name; /* the data bin holding the object (a mutex in a heap block, a global), NULL unknown */
    char *via_function, *via_file; /* the location is in a function inlined (a synchronisation wrapper): the
                                    * function compiled around it and the line of the call there; NULL when
                                    * not inlined */
    int via_line;
    uint64_t instances, cycles;
    uint64_t classes[MS_WAITCLASSES]; /* cycles by class */
    uint64_t extra_stall;             /* the late paths' memory stall beyond the waiters' */
    ms_wait_explanation *explanation; /* by extra cycles, descending */
    size_t nexplanation;
    ms_wait_path *paths; /* by cycles, descending */
    size_t npaths;
} ms_wait_source;

typedef struct {
    bool present;     /* the run was replayed in the timed order */
    bool approximate; /* no block counts: compute time estimated per reference */
    char *work_cost;  /* how block cycles were estimated, NULL unknown */
    uint64_t total_cycles;
    ms_wait_profile *profile;
    size_t nprofile;
    ms_wait_source *sources; /* by cycles, descending */
    size_t nsources;
} ms_waiting;

/* The name of a waiting class ("load_imbalance", ...), as JSON and reports spell it. */
const char *ms_waitclass_name(int cls);

typedef struct {
    int version; /* MS_MODEL_VERSION of the writer */
    /* run metadata */
    char *program; /* path as given */
    char **argv;
    int argc;
    char *cwd;
    int64_t time; /* unix seconds when the run started */
    char *memspy_version;
    char *git_commit; /* HEAD of the git tree holding the program, NULL if none */
    char *origin;     /* how the run was made: "run", or "resim of DIR"; NULL: not recorded */
    uint32_t pid;
    uint32_t exit_kind;
    int32_t exit_value;      /* MS_EXIT_* and status/signal */
    bool incomplete;         /* crash, abort, _exit or truncated raw data */
    char *incomplete_reason; /* human text, NULL if complete */
    double wall_seconds;     /* elapsed time of the profiled run */
    int parent_run;          /* the stored run of the image that exec'd this program, 0 if none */
    char **notes;
    size_t nnotes; /* warnings from runtime and analysis */

    ms_hier_config config;
    ms_counters totals;

    ms_code_bin *code;
    size_t ncode;
    ms_data_bin *data;
    size_t ndata;
    ms_cell *cells;
    size_t ncells;
    char **files;
    size_t nfiles;
    ms_line_stat *lines;
    size_t nlines;

    /* Multithreaded runs (nprocs > 1), else empty: */
    uint32_t nprocs;
    char *interleave; /* "interleaved" or "piped", NULL if not replayed */
    ms_proc_stat *procs;
    size_t nprocs_stat;
    ms_reference_stat *refs;
    size_t nrefs; /* sorted (ms_reference_order): coherence
                                             * misses + invalidations, then misses */

    /* Basic blocks and loops (plugin-instrumented programs), by the raw file's ids: */
    ms_block_stat *blocks;
    size_t nblocks;
    ms_loop_stat *loops;
    size_t nloops;
    /* Call edges and the code bins' shares per function (runs with call edges only): */
    ms_call_stat *calls;
    size_t ncalls;
    ms_code_part *parts;
    size_t nparts;
    /* MTOOL then MemSpy (docs/mtool.md): the run's ideal-memory cycles (its blocks' counts x
     * llvm-mca's cycles, every load an L1 hit) for CPU model ideal_cpu; 0 / NULL when unknown.
     * With the simulated stall, the estimated execution time. */
    double ideal_cycles;
    char *ideal_cpu;

    /* An MTOOL run (`memspy mtool`, origin "mtool"): its result, owned; NULL for the runs that
     * simulate the hierarchy (they have bins; an MTOOL run has none). */
    ms_mtool_result *mtool;

    /* Waiting time (timed replays only; present false otherwise) */
    ms_waiting waiting;

    /* The headline (analysis/findings.c), largest share first; set after analysis and after
     * loading or editing a run, never read from a file. */
    ms_finding findings[MS_FINDINGS_MAX];
    size_t nfindings;
} ms_model;

/* The hierarchy in one short line, e.g. "x86: L1 32K/8 L2 1M/16 L3 2M/16, 64B lines", and for a
 * multiprocessor run "x86: L1 32K/8 L2 1M/16 L3 8M/16 shared, 64B lines, 4 cpus, MESI, 64B unit"
 * (sizes as 32K/1M, ways after the slash, "fa" fully associative, "dm" direct mapped, each
 * level shared by the processors marked). Not whether utilisation was kept (--utilisation: JSON
 * config.utilisation): the hierarchy is the same, and `diff` compares these lines. Truncated to
 * fit buf. */
void ms_model_config_summary(const ms_model *m, char *buf, size_t len);

/* Initialise to an empty model. */
void ms_model_init(ms_model *m);
/* Free everything the model owns. */
void ms_model_free(ms_model *m);
/* Renumber the bins every part of m refers to (cells, their causes, lines, reference rows, code parts):
 * code bin i becomes code_map[i], data bin i data_map[i]; a NULL map keeps that dimension.
 * Rows that come to share a key are not merged here. */
void ms_model_remap_bins(ms_model *m, const uint32_t *code_map, const uint32_t *data_map);

/* Derived numbers shared by every report, so that all of them agree. */
uint64_t ms_counters_refs(const ms_counters *c);                    /* reads + writes */
uint64_t ms_counters_misses(const ms_counters *c, int level);       /* read + write misses at level */
uint64_t ms_counters_stall(const ms_counters *c);                   /* read + write stall */
uint64_t ms_counters_replacements(const ms_counters *c, int level); /* capacity + conflict */
uint64_t ms_counters_coherence_misses(const ms_counters *c);        /* cause INVAL, summed over levels
                                                                   * (a reference missing at two
                                                                   * levels counts at each) */
uint64_t ms_counters_communication(const ms_counters *c);           /* sum of pattern[] */
uint64_t ms_counters_l1_coherence(const ms_counters *c);            /* cause INVAL at L1 */
/* Names used in every report and in the JSON: "single-producer/single-consumer", ...,
 * "migratory", "cold-start". */
const char *ms_pattern_name(int pattern);

/* A selection of cells (MemSpy's DisplayAll on a bin or combination): the sum of their
 * counters and their merged replacement causes (by evicting data bin, level 0 unless asked). */
typedef struct {
    ms_counters c;
    ms_evictor *evicted_by;
    size_t nevicted_by; /* merged per (data, level), sorted desc */
    ms_invalidator *inval_by;
    size_t ninval_by; /* merged per (code, data, cpu), sorted */
    size_t ncells;
} ms_selection_sum;

/* Sum the cells whose code index is in codes (all if ncodes == 0) and whose data index is in
 * datas (all if ndatas == 0). Returns 0 or -1 (out of memory). */
int ms_model_sum(const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas, size_t ndatas,
                 ms_selection_sum *out);
void ms_selection_sum_free(ms_selection_sum *s);

/* Per code bin and per data bin totals (arrays of ncode / ndata counters, caller frees). */
int ms_model_code_totals(const ms_model *m, ms_counters **out);
int ms_model_data_totals(const ms_model *m, ms_counters **out);

/* Find bins by name: exact short name, then exact full name, then glob (fnmatch). Fills idx
 * (up to cap) and returns how many matched; 0 if none. */
size_t ms_model_find_code(const ms_model *m, const char *pattern, uint32_t *idx, size_t cap);
size_t ms_model_find_data(const ms_model *m, const char *pattern, uint32_t *idx, size_t cap);

/* ---- user edits of the bins (src/model/transform.c): renames and combinations, which the
 * run database records and replays on every later run of the same program ---- */

/* The name a bin is recorded under: a data bin's full name (its short name if it has none),
 * a code bin's name. */
const char *ms_model_bin_full_name(const ms_model *m, bool code, uint32_t i);

/* Give every bin (code or data) whose full name is full_name the short name new_name; its
 * full name stays, so later edits and runs still find it. Returns how many were renamed, or
 * -1 (out of memory). */
int ms_model_rename_bin(ms_model *m, const char *full_name, const char *new_name);

/* Merge the n code (code == true) or data bins idx[] into one bin named new_name (short and
 * full name), at the place of the lowest index: counters of cells and lines that become one
 * are summed, replacement causes merged; totals do not change and readers recompute rates.
 * Returns 0 or -1 (out of memory, or an index out of range). */
int ms_model_combine_bins(ms_model *m, bool code, const uint32_t *idx, size_t n, const char *new_name);

/* ---- comparison of two runs (memspy diff, the HTML comparison page) ---- */

/* Whether a bin or cell exists in both runs, only in the second (appeared) or only in the
 * first (vanished). */
typedef enum { MS_DIFF_BOTH = 0, MS_DIFF_APPEARED, MS_DIFF_VANISHED } ms_diff_presence;

/* One row of a comparison: a (code, data) cell, a code bin or a data bin. Index [0] is the
 * first run, [1] the second; an index is -1 and the counters are zero where the bin is absent.
 * Names are borrowed from the models (the second run's when it has the bin). */
typedef struct {
    long code[2], data[2]; /* bin indices in each run (data = -1 in code rows and v.v.) */
    const char *code_name, *code_file, *data_name, *data_full_name;
    ms_counters c[2];
    int64_t stall_change; /* stall(second) - stall(first), cycles */
    ms_diff_presence presence;
} ms_diff_row;

/* Every cell, code bin and data bin of either run, each list sorted by the absolute change in
 * stall, largest first (ties: larger stall first, then by name, so the order is deterministic).
 * Bins are matched by full name (data) and by name and source file (code). */
typedef struct {
    ms_counters totals[2];
    ms_diff_row *cells;
    size_t ncells;
    ms_diff_row *code;
    size_t ncode;
    ms_diff_row *data;
    size_t ndata;
} ms_diff;

/* Compare run a (first) with run b (second). The result borrows names from both models, which
 * must outlive it. Returns 0 or -1 (out of memory). */
int ms_model_diff(const ms_model *a, const ms_model *b, ms_diff *out);
void ms_diff_free(ms_diff *d);

#endif
