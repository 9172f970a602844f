/* Number and configuration formatting shared by the text reports (and `memspy config`), so
 * that every display writes counts, percentages and cache descriptions the same way. */
#ifndef MEMSPY_REPORT_TEXT_FMT_H
#define MEMSPY_REPORT_TEXT_FMT_H
#include <stdint.h>
#include <stdio.h>
#include "../sim/sim.h"
#include "../model/model.h"

/* A formatted number, returned by value so it can be used inline in printf arguments. */
typedef struct {
    char s[32];
} ms_num;

/* MemSpy-style count: exact below 100000, else "26.93M", "509.5M", "1.27G". */
ms_num ms_fmt_count(uint64_t v);

/* A size in bytes as the config grammar writes it: "32K", "1M", "1536". */
ms_num ms_fmt_size(uint64_t bytes);

/* An MTOOL mobject's extra cycles per memory operation as the text reports show it: "18.38",
 * or "<0" where the estimate exceeds the measured time (no cycles lost to memory: the model's
 * misfit or the sampling's error; the overhead beside it says by how much, and the JSON keeps
 * the number). */
ms_num ms_fmt_extra_cycles(double per_memop);

/* Print text (escaped for a terminal) wrapped at width columns on word boundaries: the first
 * line starts with first (e.g. "  1. "), the others with as many spaces. */
void ms_fmt_wrapped(FILE *out, const char *first, const char *text, int width);

/* The width text reports wrap long names at: $COLUMNS when set (40 or more), else the
 * terminal's width when out is a terminal, else MS_TEXT_WIDTH. */
#define MS_TEXT_WIDTH 100
int ms_fmt_width(FILE *out);

/* Print first, then name (escaped for a terminal) wrapped at width columns, never cut: each
 * line holds as much as fits, broken after a space, a comma or a '>' or before a "::", '.',
 * '/', '<' or '(' (never before a space) in the last two thirds of the line, else at the width; the
 * continuation lines start with strlen(first) + 4 spaces. Nothing is added or dropped: the
 * continuation lines without those spaces, joined to the first line without first, give the
 * name. */
void ms_fmt_name(FILE *out, const char *first, const char *name, int width);

/* The run's findings (its headline), numbered, under "FINDINGS", then a blank line, then
 * under "ADVICE" each finding's advice with its number and, for a layout fix, the `memspy
 * whatif` command that checks it ("check it: ..."), once under all the numbers of findings that
 * share it ("  1, 2. "); nothing when it has none. Only those in the selection when codes/datas are given (NULL/0: all). */
void ms_fmt_findings(FILE *out, const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas,
                     size_t ndatas);

/* 100 * part / whole, 0 when whole is 0. */
double ms_pct(uint64_t part, uint64_t whole);

/* part / whole, 0 when whole is 0. */
double ms_ratio(uint64_t part, uint64_t whole);

/* One line per level ("L1: 32K, 8-way, 64-byte lines, 4 cycles, lru") and the memory latency,
 * each line starting with indent. */
void ms_fmt_hierarchy(FILE *out, const ms_hier_config *cfg, const char *indent);

/* "cold 10.0%  capacity 50.0%  conflict 40.0%  invalidation 0.0%" of one level's misses. */
void ms_fmt_causes(FILE *out, const ms_level_counters *l);

/* The classes of received invalidations (ccSIM 3.2), one line each: true sharing and false
 * sharing with their in-region / across-region split, in-region ones with a lock held, and
 * those followed by a coherence miss, as counts and shares. */
void ms_fmt_invalidations(FILE *out, const ms_inval_counters *v, const char *indent);

/* One line describing a multiprocessor run: processors, interleaving, private and shared
 * levels, protocol, coherence unit and nodes. */
void ms_fmt_multiprocessor(FILE *out, const ms_hier_config *cfg, uint32_t nprocs, const char *interleave,
                           const char *indent);

#endif
