/* Findings (findings.h): the cells with the largest share of the stall, each explained by the
 * evidence that dominates it.
 *
 * For each cell, the level whose misses cost most of its stall is chosen (memory's share of
 * the stall decides between the last level and L1), and at that level the dominant cause:
 * replacement (capacity + conflict), first reference, or invalidation. Replacements are
 * explained by the data bin that evicted most of the lines (the cell's own data: self-
 * interference; another: cross-interference); invalidations by the share of false sharing
 * among those the cell received, with the processors that wrote the data and the dominant
 * access pattern. The source range is the smallest set of the cell's lines (in its hottest
 * file) that carries 90% of its stall. */
#include "findings.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double ratio(uint64_t a, uint64_t b) { return b ? (double)a / (double)b : 0.0; }

static int cmp_cell_stall(const void *pa, const void *pb)
{
    const ms_cell *a = *(const ms_cell *const *)pa, *b = *(const ms_cell *const *)pb;
    uint64_t sa = ms_counters_stall(&a->c), sb = ms_counters_stall(&b->c);
    if (sa != sb) return sa > sb ? -1 : 1;
    if (a->code != b->code) return a->code < b->code ? -1 : 1;
    return a->data < b->data ? -1 : a->data > b->data;
}

/* The level whose causes explain the cell: the last one when misses served by memory cost
 * at least half of the stall, else L1. */
int ms_finding_level(const ms_model *m, const ms_counters *c)
{
    int last = m->config.nlevels - 1;
    if (last <= 0) return 0;
    uint32_t l1 = m->config.level[0].latency;
    uint64_t mem_cost = m->config.mem_latency > l1 ? m->config.mem_latency - l1 : 0;
    uint64_t mem_stall = ms_counters_misses(c, last) * mem_cost;
    return 2 * mem_stall >= ms_counters_stall(c) && ms_counters_misses(c, last) ? last : 0;
}

typedef struct {
    uint32_t file;
    int line;
    uint64_t stall;
} line_cost;

static int cmp_place(const void *pa, const void *pb)
{
    const line_cost *a = pa, *b = pb;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

static int cmp_line_cost(const void *pa, const void *pb)
{
    const line_cost *a = pa, *b = pb;
    if (a->stall != b->stall) return a->stall > b->stall ? -1 : 1;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* Add (file, line, stall) to v if it belongs to cell and names a known line. */
static void add_line(const ms_model *m, const ms_cell *cell, line_cost *v, size_t *n, uint32_t code, uint32_t data,
                     uint32_t file, int line, const ms_counters *c)
{
    uint64_t s = ms_counters_stall(c);
    if (code == cell->code && data == cell->data && s && line > 0 && file < m->nfiles && m->files[file])
        v[(*n)++] = (line_cost){ file, line, s };
}

/* The cell's source range: its lines (per-line statistics, else the per-reference rows of a
 * multiprocessor run) in the file of its hottest line, hottest first, until 90% of the
 * cell's stall there is covered. Returns -1 if out of memory. */
static int source_range(const ms_model *m, const ms_cell *cell, ms_finding *f)
{
    size_t n = 0, cap = m->nlines > m->nrefs ? m->nlines : m->nrefs;
    line_cost *v = malloc((cap ? cap : 1) * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < m->nlines; i++) {
        const ms_line_stat *l = &m->lines[i];
        add_line(m, cell, v, &n, l->code, l->data, l->file, l->line, &l->c);
    }
    for (size_t i = 0; !n && i < m->nrefs; i++) {
        const ms_reference_stat *r = &m->refs[i];
        add_line(m, cell, v, &n, r->code, r->data, r->file, r->line, &r->c);
    }
    /* Rows of one line (several processors or kinds) count once, summed. */
    qsort(v, n, sizeof *v, cmp_place);
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && v[w - 1].file == v[i].file && v[w - 1].line == v[i].line)
            v[w - 1].stall += v[i].stall;
        else
            v[w++] = v[i];
    }
    n = w;
    qsort(v, n, sizeof *v, cmp_line_cost);
    uint64_t total = 0, covered = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].file == v[0].file) total += v[i].stall;
    for (size_t i = 0; i < n && 10 * covered < 9 * total; i++) {
        if (v[i].file != v[0].file) continue;
        covered += v[i].stall;
        if (!f->first_line || v[i].line < f->first_line) f->first_line = v[i].line;
        if (v[i].line > f->last_line) f->last_line = v[i].line;
        f->file = v[i].file;
    }
    free(v);
    return 0;
}

/* The data bin that evicted most of the cell's lines at level, and its share of them. */
static int64_t top_evictor(const ms_cell *cell, uint32_t level, double *share)
{
    uint64_t total = 0, best = 0;
    int64_t best_data = -1;
    for (size_t i = 0; i < cell->nevicted_by; i++)
        if (cell->evicted_by[i].level == level) total += cell->evicted_by[i].count;
    for (size_t i = 0; i < cell->nevicted_by; i++) {
        const ms_evictor *e = &cell->evicted_by[i];
        if (e->level != level) continue;
        uint64_t sum = 0; /* over every code bin of this evicting data bin */
        for (size_t j = 0; j < cell->nevicted_by; j++)
            if (cell->evicted_by[j].level == level && cell->evicted_by[j].data == e->data)
                sum += cell->evicted_by[j].count;
        if (sum > best || (sum == best && best_data >= 0 && e->data < (uint32_t)best_data)) {
            best = sum;
            best_data = e->data;
        }
    }
    *share = ratio(best, total);
    return best_data;
}

/* Processors that wrote data bin d (per-reference rows, else the cell's invalidators). */
static unsigned writers(const ms_model *m, const ms_cell *cell)
{
    uint64_t seen = 0;
    for (size_t i = 0; i < m->nrefs; i++)
        if (m->refs[i].data == cell->data && m->refs[i].kind != MS_REF_READ && m->refs[i].cpu < 64)
            seen |= 1ull << m->refs[i].cpu;
    for (size_t i = 0; !seen && i < cell->ninval_by; i++)
        if (cell->inval_by[i].cpu < 64) seen |= 1ull << cell->inval_by[i].cpu;
    return (unsigned)__builtin_popcountll(seen);
}

/* The finding's sentence (cut at the end of f->text if the names are very long). */
__attribute__((format(printf, 2, 3))) static void say(ms_finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->text, sizeof f->text, fmt, ap);
    va_end(ap);
}

static void pct(char *buf, size_t len, double share)
{
    snprintf(buf, len, share < 0.01 && share > 0 ? "%.1f%%" : "%.0f%%", 100.0 * share);
}

/* Fill f's kind, cause, evidence and sentence for cell. */
static void explain(const ms_model *m, const ms_cell *cell, ms_finding *f)
{
    int level = ms_finding_level(m, &cell->c);
    const ms_level_counters *lc = &cell->c.level[level];
    uint64_t cold = lc->cause[MS_CAUSE_COLD], cap = lc->cause[MS_CAUSE_CAPACITY];
    uint64_t conf = lc->cause[MS_CAUSE_CONFLICT], inval = lc->cause[MS_CAUSE_INVAL];
    uint64_t misses = cold + cap + conf + inval;
    const char *code = m->code[cell->code].name, *data = m->data[cell->data].name;
    char where[300] = "", share[16], ev[16], lvl[16] = "";
    if (f->first_line) {
        const char *file = m->files[f->file], *slash = strrchr(file, '/');
        if (f->first_line == f->last_line)
            snprintf(where, sizeof where, " (%s:%d)", slash ? slash + 1 : file, f->first_line);
        else
            snprintf(where, sizeof where, " (%s:%d-%d)", slash ? slash + 1 : file, f->first_line, f->last_line);
    }
    if (m->config.nlevels > 1) snprintf(lvl, sizeof lvl, "L%d ", level + 1);
    pct(share, sizeof share, f->share);
    f->evictor = -1;
    if (inval >= cold && inval >= cap + conf && inval) {
        const ms_inval_counters *v = &cell->c.inval;
        uint64_t false_sh = v->false_in + v->false_across;
        unsigned nw = writers(m, cell);
        f->cause = MS_CAUSE_INVAL;
        if (v->received && 2 * false_sh > v->received) {
            f->kind = MS_FINDING_FALSE_SHARING;
            f->evidence = ratio(false_sh, v->received);
            pct(ev, sizeof ev, f->evidence);
            say(f,
                "%s of memory stall: false sharing on %s in %s%s: %u processor%s different words of "
                "the same %u-byte lines (%s of its invalidations)",
                share, data, code, where, nw, nw == 1 ? " writes" : "s write", ms_config_coherence_unit(&m->config),
                ev);
        } else {
            int pat = -1;
            for (int p = 0; p < MS_NPATTERNS; p++)
                if (cell->c.pattern[p] && (pat < 0 || cell->c.pattern[p] > cell->c.pattern[pat])) pat = p;
            f->kind = MS_FINDING_TRUE_SHARING;
            f->evidence = v->received ? ratio(v->true_in + v->true_across, v->received) : ratio(inval, misses);
            pct(ev, sizeof ev, f->evidence);
            char lock[64] = "", pattern[80] = "";
            if (v->with_lock) {
                char l[16];
                pct(l, sizeof l, ratio(v->with_lock, v->received));
                snprintf(lock, sizeof lock, ", %s of them under a lock", l);
            }
            if (pat >= 0) snprintf(pattern, sizeof pattern, "; access pattern: %s", ms_pattern_name(pat));
            say(f,
                "%s of memory stall: true sharing on %s in %s%s: the words it uses are written by %u processor%s "
                "(%s of its invalidations%s)%s",
                share, data, code, where, nw, nw == 1 ? "" : "s", ev, lock, pattern);
        }
        return;
    }
    if (cold >= cap + conf) {
        f->kind = MS_FINDING_COLD;
        f->cause = MS_CAUSE_COLD;
        f->evidence = ratio(cold, misses);
        pct(ev, sizeof ev, f->evidence);
        say(f,
            "%s of memory stall: %s in %s%s, first-reference (cold) %smisses (%s of its misses): each line "
            "is missed the first time it is touched",
            share, data, code, where, lvl, ev);
        return;
    }
    char capacity[16], conflict[16];
    pct(capacity, sizeof capacity, ratio(cap, cap + conf));
    pct(conflict, sizeof conflict, ratio(conf, cap + conf));
    f->cause = cap >= conf ? MS_CAUSE_CAPACITY : MS_CAUSE_CONFLICT;
    double es;
    int64_t e = top_evictor(cell, (uint32_t)level, &es);
    f->evidence = es;
    pct(ev, sizeof ev, es);
    if (e < 0 || (size_t)e >= m->ndata) {
        f->kind = MS_FINDING_REPLACEMENT;
        f->evidence = ratio(cap + conf, misses);
        say(f, "%s of memory stall: %s in %s%s, %sreplacement misses (%s capacity, %s conflict)", share, data, code,
            where, lvl, capacity, conflict);
    } else if ((uint32_t)e == cell->data) {
        f->kind = MS_FINDING_SELF_INTERFERENCE;
        f->evictor = e;
        say(f,
            "%s of memory stall: %s in %s%s, %sreplacement misses (%s capacity, %s conflict) caused by %s "
            "itself (self-interference, %s of them)",
            share, data, code, where, lvl, capacity, conflict, data, ev);
    } else {
        f->kind = MS_FINDING_CROSS_INTERFERENCE;
        f->evictor = e;
        say(f,
            "%s of memory stall: %s in %s%s, %sreplacement misses (%s capacity, %s conflict) caused by %s "
            "(cross-interference, %s of them)",
            share, data, code, where, lvl, capacity, conflict, m->data[e].name, ev);
    }
}

int ms_findings(const ms_model *m, ms_finding *out)
{
    uint64_t total = ms_counters_stall(&m->totals);
    if (!total || !m->ncells) return 0;
    const ms_cell **order = malloc(m->ncells * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < m->ncells; i++) order[i] = &m->cells[i];
    qsort(order, m->ncells, sizeof *order, cmp_cell_stall);
    int n = 0;
    for (size_t i = 0; i < m->ncells && n < MS_FINDINGS_MAX; i++) {
        const ms_cell *cell = order[i];
        double share = ratio(ms_counters_stall(&cell->c), total);
        if (share < MS_FINDINGS_MIN_SHARE && !(i == 0 && share >= 0.01)) break;
        if (cell->code >= m->ncode || cell->data >= m->ndata) continue;
        ms_finding *f = &out[n];
        memset(f, 0, sizeof *f);
        f->share = share;
        f->code = cell->code;
        f->data = cell->data;
        if (source_range(m, cell, f) < 0) {
            free(order);
            return -1;
        }
        explain(m, cell, f);
        ms_finding_advise(m, cell, ms_finding_level(m, &cell->c), f);
        n++;
    }
    free(order);
    return n;
}

int ms_model_set_findings(ms_model *m)
{
    int n = ms_findings(m, m->findings);
    m->nfindings = n > 0 ? (size_t)n : 0;
    return n < 0 ? -1 : 0;
}
