/* Reports: they only read the model. Text (MemSpy's matrix and detailed displays), exports
 * and HTML; JSON, which is also the saved result file, is the model's own format
 * (src/modelio, included here for the reports' users). */
#ifndef MEMSPY_REPORT_REPORT_H
#define MEMSPY_REPORT_REPORT_H
#include <stdio.h>
#include "../model/model.h"
#include "../modelio/modelio.h"

typedef struct {
    int top_code, top_data; /* rows / columns shown before "others" (default 8 / 6) */
} ms_matrix_opts;

/* MemSpy Figure 2: totals header, then % of total stall per (code, data), largest top-left. */
int ms_report_matrix(FILE *out, const ms_model *m, const ms_matrix_opts *opts);

/* MemSpy Figure 3 for a selection (any code bins x any data bins; empty = all). */
int ms_report_detail(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas,
                     size_t ndatas);

/* ---- multithreaded runs (threads.c) ---- */

/* The per-processor table: references, L1 misses split into uniprocessor and coherence
 * misses, received invalidations by class (true/false x in/across region, with a lock held,
 * followed by a miss) and replay waits, one row per simulated processor plus their sum.
 * For a one-processor run, a line saying so. Returns 0 or -1. */
int ms_report_procs(FILE *out, const ms_model *m);

typedef struct {
    int top;    /* rows shown (default 20) */
    int by_cpu; /* 1: one row per processor; 0: rows summed over processors */
} ms_refs_opts;

/* ccSIM Table 3: per source line, data bin and access kind ("f Read"), L1 misses, miss ratio,
 * % coherence misses and received invalidations (total, true in/across, false in/across),
 * most coherence misses first. Returns 0 or -1. */
int ms_report_references(FILE *out, const ms_model *m, const ms_refs_opts *opts);

/* ---- waiting time (waiting.c) ---- */

/* `memspy whatif`: the header (changes, then one line per changed bin from layouts), the
 * recorded run (before) against the predicted one (after) in total (stall, L1 misses,
 * conflict misses; invalidations and false sharing when multiprocessor) and for each changed
 * data bin names[0..n) (a NULL name: a line of layouts with no bin), then the predicted
 * findings. 0, or -1 if writing failed. */
int ms_report_whatif(FILE *out, const ms_model *before, const ms_model *after, const char *changes,
                     const char *const *names, const char *const *layouts, size_t n);

/* Carnival's WT Map of a timed replay: every processor's compute / stall / waiting / sync
 * cycles, then the `top` synchronisation points (0: 20) with their waits, cycles, share,
 * classes and the code with most extra work. A line saying so for runs without it. 0 or -1. */
int ms_report_waiting(FILE *out, const ms_model *m, int top);

/* The characterization of the synchronisation points matching location ("#N" by rank,
 * FUNCTION, FUNCTION:LINE, FILE:LINE): classes and the longer path's code with extra counts,
 * cycles and shares. Returns 0, or -1 with err (no timed replay, nothing matches, write). */
int ms_report_wait_detail(FILE *out, const ms_model *m, const char *location, char *err, size_t errlen);

/* ---- exports (export_csv.c, export_callgrind.c) ---- */

/* CSV: a header row naming the columns (code, data, file, line, refs, reads, writes, misses
 * and causes per level, stall; for runs with nprocs > 1 also coherence_misses and the
 * invalidations received, all, true and false sharing), then one row per (code, data) cell.
 * Returns 0 or -1. */
int ms_export_csv(FILE *out, const ms_model *m);

/* Callgrind format version 1 (KCachegrind, callgrind_annotate): per source file and code
 * segment, a cost line per source line with references, misses per level, miss causes and
 * stall cycles as events, Stall first (plus Coh, Inv, InvTrue, InvFalse when nprocs > 1);
 * summary/totals are the run's totals. A run with call edges (m->calls, m->parts) also gets its
 * call graph: each call with its callee's inclusive costs by gprof's rule (model/callgraph.h).
 * Returns 0 or -1. */
int ms_export_callgrind(FILE *out, const ms_model *m);

/* ---- annotated source (annotate.c) ---- */

typedef struct {
    int color; /* 1: shade lines by stall share with ANSI 256-colour backgrounds;
                    * 0: plain text with a stall-share percentage column */
    int hot;   /* > 0: only the `hot` lines with the most stall, with `context` lines
                    * around each (the rest elided); 0: the whole file */
    int context;
} ms_annotate_opts;

/* Print the source of `file` with each line's references, L1 misses and stall cycles
 * (summed over code and data bins) and its share of the run's stall. `file` names one of the
 * run's source files by path, path suffix or basename; the text is read from `file` if it
 * exists, else from the path recorded in the run. With opts->hot, only the hottest lines and
 * their context are shown; `file` may then be NULL: the hottest lines of the whole run, file
 * by file (the hottest first). Returns 0, or -1 with err saying why (no or several matching
 * files, unreadable source, write error). */
int ms_report_annotate(FILE *out, const ms_model *m, const char *file, const ms_annotate_opts *opts, char *err,
                       size_t errlen);

/* MTOOL's result as text: Figure 2's summary, coverage, then the first top mobjects by
 * memory overhead (untimable ones marked so, with no overhead). Returns 0 or -1. */
int ms_report_mtool(FILE *out, const ms_mtool_result *r, size_t top);
/* MTOOL's Figure 4 as a self-contained HTML page: the mobjects' histogram, each bar split into
 * estimated time and memory overhead, linking to its source lines highlighted. 0 or -1. */
int ms_report_mtool_html(FILE *out, const ms_mtool_result *r, const char *title);
/* An MTOOL run's annotated source: the first `hot` mobjects by memory overhead (all when hot
 * is 0) whose source is `file` (any file when NULL: then only timable ones), each with its
 * times and its lines marked, `context` lines around. Returns 0, or -1 with err (none found). */
int ms_report_mtool_annotate(FILE *out, const ms_mtool_result *r, const char *file, int hot, int context, char *err,
                             size_t errlen);

#endif
