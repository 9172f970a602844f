/* MemSpy's initial display (Figure 2 of the paper): the application totals, then the share of
 * total memory stall time of every (code segment, data bin) pair as a matrix whose rows and
 * columns are sorted so that the largest share is in the top-left corner. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "text_fmt.h"
#include "../util/util.h"

#define DEFAULT_TOP_CODE 8
#define DEFAULT_TOP_DATA 6
#define LABEL_WIDTH 14
#define CELL_WIDTH 8

/* What the matrix ranks by: stall cycles, or L1 misses when nothing stalled. */
static uint64_t metric(const ms_counters *c, int by_misses)
{
    return by_misses ? ms_counters_misses(c, 0) : ms_counters_stall(c);
}

/* The bins of one axis in display order. slot[bin] is the bin's row/column, `shown` for the
 * "others" row/column, -1 for bins that contributed nothing. */
typedef struct {
    uint32_t *order; /* ranked bins (nonzero metric), largest first */
    uint64_t *value; /* their metric, same order */
    size_t nranked, shown;
    long *slot;
} axis;

typedef struct {
    uint64_t value;
    uint32_t bin;
} ranked_bin;

static int cmp_ranked_desc(const void *a, const void *b)
{
    const ranked_bin *x = a, *y = b;
    if (x->value != y->value) return x->value < y->value ? 1 : -1;
    return x->bin < y->bin ? -1 : x->bin > y->bin;
}

static void axis_free(axis *ax)
{
    free(ax->order);
    free(ax->value);
    free(ax->slot);
}

/* Rank nbins bins by metric of their totals; keep `top` of them, the rest go to "others". */
static int axis_build(axis *ax, const ms_counters *totals, size_t nbins, int top, int by_misses)
{
    memset(ax, 0, sizeof *ax);
    size_t alloc_n = nbins ? nbins : 1;
    ranked_bin *rb = malloc(alloc_n * sizeof *rb);
    ax->order = malloc(alloc_n * sizeof *ax->order);
    ax->value = malloc(alloc_n * sizeof *ax->value);
    ax->slot = malloc(alloc_n * sizeof *ax->slot);
    if (!rb || !ax->order || !ax->value || !ax->slot) {
        free(rb);
        axis_free(ax);
        return -1;
    }
    for (size_t i = 0; i < nbins; i++) {
        ax->slot[i] = -1;
        uint64_t v = metric(&totals[i], by_misses);
        if (v) rb[ax->nranked++] = (ranked_bin){ v, (uint32_t)i };
    }
    qsort(rb, ax->nranked, sizeof *rb, cmp_ranked_desc);
    ax->shown = ax->nranked < (size_t)top ? ax->nranked : (size_t)top;
    for (size_t i = 0; i < ax->nranked; i++) {
        ax->order[i] = rb[i].bin;
        ax->value[i] = rb[i].value;
        ax->slot[rb[i].bin] = (long)(i < ax->shown ? i : ax->shown);
    }
    free(rb);
    return 0;
}

/* Sum of the metric of the bins folded into "others". */
static uint64_t axis_others(const axis *ax)
{
    uint64_t sum = 0;
    for (size_t i = ax->shown; i < ax->nranked; i++) sum += ax->value[i];
    return sum;
}

static int axis_has_others(const axis *ax) { return ax->nranked > ax->shown; }

static void print_program(FILE *out, const ms_model *m)
{
    fputs("Program:", out);
    if (m->argc > 0) {
        for (int i = 0; i < m->argc; i++) fprintf(out, " %s", m->argv[i] ? ms_term(m->argv[i]) : "");
    } else {
        fprintf(out, " %s", m->program ? ms_term(m->program) : "(unknown)");
    }
    fputc('\n', out);
    if (m->exit_kind == MS_EXIT_SIGNAL)
        fprintf(out, "Exit: killed by signal %d (%s)\n", m->exit_value, strsignal(m->exit_value));
    else if (m->exit_kind == MS_EXIT_UNDERSCORE)
        fprintf(out, "Exit: _exit(%d)\n", m->exit_value);
    else if (m->exit_kind == MS_EXIT_EXEC)
        fprintf(out, "Exit: executed another program (final status %d)\n", m->exit_value);
    else
        fprintf(out, "Exit: status %d\n", m->exit_value);
    if (m->wall_seconds > 0) fprintf(out, "Wall Time of the run: %.2f s\n", m->wall_seconds);
}

/* The multiprocessor lines of the header: processors, coherence misses, local/remote misses
 * when processors form nodes, and the received invalidations by class. */
static void print_coherence_totals(FILE *out, const ms_model *m)
{
    const ms_counters *t = &m->totals;
    uint64_t misses = ms_counters_misses(t, 0), coh = ms_counters_l1_coherence(t);
    fputs("Multiprocessor: ", out);
    ms_fmt_multiprocessor(out, &m->config, m->nprocs, m->interleave, "");
    fprintf(out, "Coherence Misses (L1): %s (%.1f%% of L1 misses)\n", ms_fmt_count(coh).s, ms_pct(coh, misses));
    if (m->config.nnodes > 1) {
        uint64_t lr = t->local_misses + t->remote_misses;
        fprintf(out, "  -Local: %s (%.1f%%)  -Remote: %s (%.1f%%)\n", ms_fmt_count(t->local_misses).s,
                ms_pct(t->local_misses, lr), ms_fmt_count(t->remote_misses).s, ms_pct(t->remote_misses, lr));
    }
    fprintf(out, "Invalidations Received: %s\n", ms_fmt_count(t->inval.received).s);
    ms_fmt_invalidations(out, &t->inval, "  -");
}

static void print_totals(FILE *out, const ms_model *m)
{
    const ms_counters *t = &m->totals;
    uint64_t refs = ms_counters_refs(t), misses = ms_counters_misses(t, 0);
    fputs("TOTAL APPLICATION STATISTICS\n", out);
    if (m->incomplete)
        fprintf(out, "*** INCOMPLETE: %s ***\n",
                m->incomplete_reason ? ms_term(m->incomplete_reason) : "the run did not finish normally");
    print_program(out, m);
    char summary[256];
    ms_model_config_summary(m, summary, sizeof summary);
    fprintf(out, "Hierarchy: %s", ms_term(summary));
    if (m->origin) fprintf(out, " (memspy %s)", ms_term(m->origin));
    fputc('\n', out);
    fprintf(out, "Cache%s%s:\n", m->config.preset[0] ? " preset " : "", ms_term(m->config.preset));
    ms_fmt_hierarchy(out, &m->config, "  ");
    fprintf(out, "Total Memory Stall Time: %s cycles\n", ms_fmt_count(ms_counters_stall(t)).s);
    if (m->ideal_cycles > 0) { /* MTOOL then MemSpy: ideal-memory cycles + simulated stall */
        double stall = (double)ms_counters_stall(t), est = m->ideal_cycles + stall;
        fprintf(out, "Estimated Execution Time: %s cycles (ideal memory %s on %s + stall); memory stall %.1f%%\n",
                ms_fmt_count((uint64_t)est).s, ms_fmt_count((uint64_t)m->ideal_cycles).s,
                m->ideal_cpu ? m->ideal_cpu : "?", est > 0 ? 100.0 * stall / est : 0);
    }
    fprintf(out, "Overall Miss Rate (L1): %.1f%%\n", ms_pct(misses, refs));
    fprintf(out, "Total References: %s\n", ms_fmt_count(refs).s);
    fprintf(out, "  -Reads: %s (%.1f%%)  -Writes: %s (%.1f%%)\n", ms_fmt_count(t->reads).s, ms_pct(t->reads, refs),
            ms_fmt_count(t->writes).s, ms_pct(t->writes, refs));
    fprintf(out, "Total Misses (L1): %s\n", ms_fmt_count(misses).s);
    fprintf(out, "  -Reads: %s (%.1f%%)  -Writes: %s (%.1f%%)\n", ms_fmt_count(t->level[0].read_misses).s,
            ms_pct(t->level[0].read_misses, misses), ms_fmt_count(t->level[0].write_misses).s,
            ms_pct(t->level[0].write_misses, misses));
    fputs("  -Causes: ", out);
    ms_fmt_causes(out, &t->level[0]);
    for (int k = 1; k < m->config.nlevels && k < MS_MAX_LEVELS; k++) {
        uint64_t lm = ms_counters_misses(t, k);
        fprintf(out, "L%d Misses: %s (local miss rate %.1f%%, %.2f%% of references)\n", k + 1, ms_fmt_count(lm).s,
                ms_pct(lm, ms_counters_misses(t, k - 1)), ms_pct(lm, refs));
        fputs("  -Causes: ", out);
        ms_fmt_causes(out, &t->level[k]);
    }
    if (m->nprocs > 1) print_coherence_totals(out, m);
    for (size_t i = 0; i < m->nnotes; i++)
        if (m->notes[i]) fprintf(out, "Note: %s\n", ms_term(m->notes[i]));
}

static void print_legend(FILE *out, const char *title, const axis *ax, const char *const *names, uint64_t whole,
                         const char *what)
{
    fprintf(out, "%s\n", title);
    for (size_t i = 0; i < ax->shown; i++) {
        char first[32];
        snprintf(first, sizeof first, "  %3zu : ", i);
        ms_fmt_name(out, first, names[ax->order[i]], ms_fmt_width(out));
    }
    if (axis_has_others(ax))
        fprintf(out, "  others : %zu more %s (%.1f%%)\n", ax->nranked - ax->shown, what,
                ms_pct(axis_others(ax), whole));
}

/* A percentage cell, blank when its value is 0. */
static void print_cell(FILE *out, uint64_t part, uint64_t whole)
{
    if (part == 0)
        fprintf(out, "%*s", CELL_WIDTH, "");
    else
        fprintf(out, "%*.1f", CELL_WIDTH, ms_pct(part, whole));
}

static void print_row_label(FILE *out, size_t row, size_t shown)
{
    if (row < shown)
        fprintf(out, "%*zu", LABEL_WIDTH, row);
    else
        fprintf(out, "%*s", LABEL_WIDTH, "others");
}

/* grid is (rows+1) x (cols+1): the last row/column are "others". */
static void print_table(FILE *out, const axis *rows, const axis *cols, const uint64_t *grid, uint64_t whole)
{
    size_t ncols = cols->shown + (axis_has_others(cols) ? 1 : 0);
    size_t nrows = rows->shown + (axis_has_others(rows) ? 1 : 0);
    size_t stride = cols->shown + 1;
    uint64_t all = 0;
    for (size_t c = 0; c < cols->nranked; c++) all += cols->value[c];

    fprintf(out, "%*s%s\n", LABEL_WIDTH + 2 * CELL_WIDTH, "", "Data Bins");
    fprintf(out, "%-*s%*s", LABEL_WIDTH, "Code Segments", CELL_WIDTH, "Tot.%");
    for (size_t c = 0; c < ncols; c++) {
        if (c < cols->shown)
            fprintf(out, "%*zu", CELL_WIDTH, c);
        else
            fprintf(out, "%*s", CELL_WIDTH, "others");
    }
    fputc('\n', out);

    fprintf(out, "%*s", LABEL_WIDTH, "Tot.%");
    print_cell(out, all, whole);
    for (size_t c = 0; c < ncols; c++) print_cell(out, c < cols->shown ? cols->value[c] : axis_others(cols), whole);
    fputc('\n', out);

    for (size_t r = 0; r < nrows; r++) {
        print_row_label(out, r, rows->shown);
        print_cell(out, r < rows->shown ? rows->value[r] : axis_others(rows), whole);
        for (size_t c = 0; c < ncols; c++) print_cell(out, grid[r * stride + c], whole);
        fputc('\n', out);
    }
}

static int print_matrix(FILE *out, const ms_model *m, int top_code, int top_data, int by_misses)
{
    ms_counters *code_tot = NULL, *data_tot = NULL;
    axis rows, cols;
    int rc = -1;
    if (ms_model_code_totals(m, &code_tot) < 0 || ms_model_data_totals(m, &data_tot) < 0) {
        free(code_tot);
        return -1;
    }
    if (axis_build(&rows, code_tot, m->ncode, top_code, by_misses) < 0) goto out_totals;
    if (axis_build(&cols, data_tot, m->ndata, top_data, by_misses) < 0) goto out_rows;

    size_t stride = cols.shown + 1;
    uint64_t *grid = calloc((rows.shown + 1) * stride, sizeof *grid);
    if (!grid) goto out_cols;
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        if (cell->code >= m->ncode || cell->data >= m->ndata) continue;
        long r = rows.slot[cell->code], c = cols.slot[cell->data];
        if (r >= 0 && c >= 0) grid[(size_t)r * stride + (size_t)c] += metric(&cell->c, by_misses);
    }

    uint64_t whole = metric(&m->totals, by_misses);
    const char **data_names = malloc((m->ndata ? m->ndata : 1) * sizeof *data_names);
    const char **code_names = malloc((m->ncode ? m->ncode : 1) * sizeof *code_names);
    if (data_names && code_names) {
        for (size_t i = 0; i < m->ndata; i++) data_names[i] = m->data[i].name ? m->data[i].name : "?";
        for (size_t i = 0; i < m->ncode; i++) code_names[i] = m->code[i].name ? m->code[i].name : "?";
        fprintf(out, "\nPercentage of Total %s, broken down by data and code\n\n",
                by_misses ? "L1 Misses" : "Memory Stall Time");
        print_legend(out, "Data Bins:", &cols, data_names, whole, "data bins");
        print_legend(out, "Code Segments:", &rows, code_names, whole, "code segments");
        fputc('\n', out);
        print_table(out, &rows, &cols, grid, whole);
        rc = 0;
    }
    free(data_names);
    free(code_names);
    free(grid);
out_cols:
    axis_free(&cols);
out_rows:
    axis_free(&rows);
out_totals:
    free(code_tot);
    free(data_tot);
    return rc;
}

int ms_report_matrix(FILE *out, const ms_model *m, const ms_matrix_opts *opts)
{
    int top_code = opts && opts->top_code > 0 ? opts->top_code : DEFAULT_TOP_CODE;
    int top_data = opts && opts->top_data > 0 ? opts->top_data : DEFAULT_TOP_DATA;
    ms_fmt_findings(out, m, NULL, 0, NULL, 0);
    print_totals(out, m);
    int rc = 0;
    if (ms_counters_stall(&m->totals) > 0) {
        rc = print_matrix(out, m, top_code, top_data, 0);
    } else if (ms_counters_misses(&m->totals, 0) > 0) {
        fputs("\nThe total memory stall time is 0: ranking by L1 misses instead.\n", out);
        rc = print_matrix(out, m, top_code, top_data, 1);
    } else {
        fputs("\nNo memory stall and no misses: every reference hit in the first-level cache.\n", out);
    }
    return rc < 0 || ferror(out) ? -1 : 0;
}
