/* MTOOL's mobjects (see mtool.h). Loops are selected innermost first: a loop with enough
 * samples is a mobject unless a loop nested in it already is; an innermost loop too short to
 * time is listed untimable and its parent is tried instead. Procedures are measured on their
 * own blocks (exclusive of their callees: samples are pcs and blocks belong to one function),
 * so the call-graph dominance test of the paper is not needed to make them timable. */
#include "mtool.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    double est_cycles;
    uint64_t samples, memops;
    int line, end_line;
} agg;

static void agg_block(agg *a, const ms_block_stat *b, double cycles, uint64_t samples)
{
    a->est_cycles += cycles * (double)b->count;
    a->samples += samples;
    a->memops += (uint64_t)b->memops * b->count;
    if (b->line > 0) {
        if (!a->line || b->line < a->line) a->line = b->line;
        if (b->line > a->end_line) a->end_line = b->line;
    }
}

static void fill(ms_mobject *m, const agg *a, const ms_mtool_input *in)
{
    m->estimated_s = in->clock_hz > 0 ? a->est_cycles / in->clock_hz : 0;
    m->measured_s = (double)a->samples * (double)in->period_ns * 1e-9;
    m->samples = a->samples;
    m->memops = a->memops;
    m->line = a->line;
    m->end_line = a->end_line;
    m->timable = a->samples >= MS_MTOOL_MIN_SAMPLES && m->estimated_s > 0;
    if (a->samples < MS_MTOOL_MIN_SAMPLES) m->warnings[m->nwarnings++] = MS_MOBJ_WARN_TOO_SHORT;
    if (m->estimated_s <= 0) m->warnings[m->nwarnings++] = MS_MOBJ_WARN_NO_ESTIMATE;
    if (m->timable) {
        m->overhead = (m->measured_s - m->estimated_s) / m->estimated_s;
        m->extra_cycles_per_memop = a->memops ? (m->measured_s - m->estimated_s) * in->clock_hz / (double)a->memops : 0;
    }
}

static int by_overhead(const void *a, const void *b)
{
    const ms_mobject *x = a, *y = b;
    if (x->timable != y->timable) return y->timable - x->timable;
    double dx = x->timable ? x->measured_s - x->estimated_s : x->measured_s;
    double dy = y->timable ? y->measured_s - y->estimated_s : y->measured_s;
    return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

static int same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

/* The loop that stands for loop l: the first one placed (canon[k] == k) in the same place
 * (function, file, lines, depth, and parents that stand for the same loop), else l itself. A
 * loop the compiler versioned or peeled into copies on the same lines is one mobject, as the
 * timing run's samples, placed by line, cannot tell the copies apart (clang's two copies of
 * one gather loop: half its memory operations were left untimable). Parents are placed
 * before their loops (canon[parent] set). */
static uint32_t canonical_loop(const ms_loop_stat *loops, size_t nl, const uint32_t *canon, uint32_t l)
{
    const ms_loop_stat *L = &loops[l];
    uint32_t lp = L->parent < nl ? canon[L->parent] : UINT32_MAX;
    /* A loop on its parent's very lines (a nest inlined into one call: every block carries the
     * call's line) cannot be told apart from it by samples placed by line: one mobject with it,
     * not an innermost loop credited with the whole nest's samples (lz4's inlined compressor). */
    if (lp != UINT32_MAX) {
        const ms_loop_stat *P = &loops[L->parent];
        if (P->line == L->line && P->end_line == L->end_line && same_text(P->function, L->function) &&
            same_text(P->file, L->file))
            return lp;
    }
    for (uint32_t k = 0; k < nl; k++) {
        const ms_loop_stat *K = &loops[k];
        if (canon[k] != k || K->depth != L->depth || K->line != L->line || K->end_line != L->end_line ||
            !same_text(K->function, L->function) || !same_text(K->file, L->file))
            continue;
        uint32_t kp = K->parent < nl ? canon[K->parent] : UINT32_MAX;
        if (kp == lp) return k;
    }
    return l;
}

/* Whether block b lies in loop l (canonical indices). */
static int block_in_loop(const ms_mtool_input *in, const uint32_t *canon, const ms_block_stat *b, uint32_t l)
{
    for (uint32_t k = b->loop, guard = 0; k < in->nloops && guard < in->nloops; k = in->loops[k].parent, guard++)
        if (canon[k] == l) return 1;
    return 0;
}

typedef struct {
    const char *fn;
    uint32_t loop;
} fn_loop;

static int cmp_fn_loop(const void *a, const void *b)
{
    const fn_loop *x = a, *y = b;
    int c = strcmp(x->fn ? x->fn : "", y->fn ? y->fn : "");
    return c ? c : x->loop < y->loop ? -1 : x->loop > y->loop;
}

/* placed[i]: the deepest loop of block i's function whose lines (in its file) hold the block's
 * first line, UINT32_MAX none: where samples placed by line would go. Loops are indexed by
 * function. Returns -1 when out of memory. */
static int place_by_line(const ms_mtool_input *in, uint32_t *placed)
{
    size_t nl = in->nloops;
    fn_loop *idx = malloc((nl ? nl : 1) * sizeof *idx);
    if (!idx) return -1;
    for (size_t l = 0; l < nl; l++) idx[l] = (fn_loop){ in->loops[l].function, (uint32_t)l };
    qsort(idx, nl, sizeof *idx, cmp_fn_loop);
    for (size_t i = 0; i < in->nblocks; i++) {
        const ms_block_stat *b = &in->blocks[i];
        placed[i] = UINT32_MAX;
        if (b->line <= 0) continue;
        size_t lo = 0, hi = nl;
        fn_loop key = { b->function, 0 };
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cmp_fn_loop(&idx[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < nl && same_text(idx[k].fn ? idx[k].fn : "", b->function ? b->function : ""); k++) {
            const ms_loop_stat *L = &in->loops[idx[k].loop];
            if (b->line < L->line || b->line > L->end_line || !same_text(b->file, L->file)) continue;
            if (placed[i] == UINT32_MAX || L->depth > in->loops[placed[i]].depth) placed[i] = idx[k].loop;
        }
    }
    free(idx);
    return 0;
}

/* outside[l]: the estimated cycles of executed blocks outside loop l whose samples go to l (or
 * a loop in it): code inlined into one call carries the call's line, and where the inline
 * scopes do not tell it apart (placed: per block), a sample there is credited to l. Each block
 * walks up from its loop of placement to the first loop that holds it. */
static void cycles_outside(const ms_mtool_input *in, const uint32_t *canon, const uint32_t *placed, const agg *la,
                           double *outside)
{
    for (size_t i = 0; i < in->nblocks; i++) {
        const ms_block_stat *b = &in->blocks[i];
        if (!b->count) continue;
        uint32_t last = UINT32_MAX;
        for (uint32_t k = placed[i], guard = 0; k < in->nloops && guard < in->nloops;
             k = in->loops[k].parent, guard++) {
            uint32_t l = canon[k];
            if (l == last) continue;
            if (block_in_loop(in, canon, b, l)) break;
            if (la[l].est_cycles) outside[l] += in->cycles[i] * (double)b->count;
            last = l;
        }
    }
}

int ms_mtool_analyze(const ms_mtool_input *in, ms_mtool_result *out)
{
    memset(out, 0, sizeof *out);
    out->clock_hz = in->clock_hz;
    out->period_ns = in->period_ns;
    out->system_s = in->system_s;
    out->runtime_s = (double)in->runtime_samples * (double)in->period_ns * 1e-9;
    size_t nl = in->nloops, nb = in->nblocks;
    uint32_t *canon = NULL; /* loop -> the first loop with its place (copies are one mobject) */
    double *outside = NULL; /* loop -> cycles on its lines outside it */
    uint32_t *by_line = NULL;
    agg *la = nl ? calloc(nl, sizeof *la) : NULL;
    int *selected = nl ? calloc(nl, sizeof *selected) : NULL, *sel_below = nl ? calloc(nl, sizeof *sel_below) : NULL,
        *has_child = nl ? calloc(nl, sizeof *has_child) : NULL;
    size_t *fn_of = nb ? calloc(nb, sizeof *fn_of) : NULL; /* block -> procedure index */
    agg *pa = nb ? calloc(nb, sizeof *pa) : NULL, *prest = nb ? calloc(nb, sizeof *prest) : NULL;
    const char **fnames = nb ? calloc(nb, sizeof *fnames) : NULL;
    const char **ffiles = nb ? calloc(nb, sizeof *ffiles) : NULL;
    out->mobjects = calloc(nl + nb + 1, sizeof *out->mobjects);
    int rc = -1;
    if ((nl && (!la || !selected || !sel_below || !has_child)) ||
        (nb && (!fn_of || !pa || !prest || !fnames || !ffiles)) || !out->mobjects)
        goto out;
    if (nl && !(canon = malloc(nl * sizeof *canon))) goto out;
    uint32_t maxdepth = 0;
    for (size_t l = 0; l < nl; l++) {
        canon[l] = UINT32_MAX;
        if (in->loops[l].depth > maxdepth) maxdepth = in->loops[l].depth;
    }
    for (uint32_t d = 0; d <= maxdepth; d++) /* outer loops first: a loop's parent is placed before it */
        for (size_t l = 0; l < nl; l++)
            if (in->loops[l].depth == d) canon[l] = canonical_loop(in->loops, nl, canon, (uint32_t)l);
    for (size_t l = 0; l < nl; l++)
        if (canon[l] == UINT32_MAX) canon[l] = (uint32_t)l; /* a depth out of order: its own */
    double total_cycles = 0;
    uint64_t total_samples = in->other_samples;
    for (size_t i = 0; i < nb; i++) {
        const ms_block_stat *b = &in->blocks[i];
        total_cycles += in->cycles[i] * (double)b->count;
        total_samples += in->block_samples[i];
        out->total_memops += (uint64_t)b->memops * b->count;
        uint32_t last = UINT32_MAX; /* a loop merged with its parent counts the block once */
        for (uint32_t l = b->loop, guard = 0; l < nl && guard < nl; l = in->loops[l].parent, guard++)
            if (canon[l] != last) agg_block(&la[last = canon[l]], b, in->cycles[i], in->block_samples[i]);
    }
    for (size_t l = 0; l < nl; l++)
        if (in->loops[l].parent < nl && canon[in->loops[l].parent] != canon[l])
            has_child[canon[in->loops[l].parent]] = 1;
    if (nl && !(outside = calloc(nl, sizeof *outside))) goto out;
    if (nl) {
        const uint32_t *placed = in->placed_loop;
        if (!placed) {
            if (!(by_line = malloc((nb ? nb : 1) * sizeof *by_line)) || place_by_line(in, by_line) < 0) goto out;
            placed = by_line;
        }
        cycles_outside(in, canon, placed, la, outside);
    }
    /* loops, deepest first */
    for (uint32_t d = maxdepth; d >= 1; d--) {
        for (size_t l = 0; l < nl; l++) {
            const ms_loop_stat *L = &in->loops[l];
            if (L->depth != d || canon[l] != l || !la[l].est_cycles) continue;
            int up = 0;
            if (sel_below[l]) {
                up = 1;
            } else {
                ms_mobject m = { 0 };
                fill(&m, &la[l], in);
                if (outside[l] > 0.25 * la[l].est_cycles) { /* its samples are not its own */
                    m.timable = 0;
                    m.overhead = m.extra_cycles_per_memop = 0;
                    if (m.nwarnings < MS_MOBJ_MAX_WARNINGS) m.warnings[m.nwarnings++] = MS_MOBJ_WARN_LINES;
                }
                if (m.timable || !has_child[l]) {
                    m.kind = MS_MOBJ_LOOP;
                    if (L->line > 0) { /* the loop's own lines (its blocks' last lines too): what --focus takes */
                        m.line = L->line;
                        m.end_line = L->end_line;
                    }
                    m.function = strdup(L->function ? L->function : "??");
                    m.file = dup_or_null(L->file);
                    if (!m.function) goto out;
                    out->mobjects[out->nmobjects++] = m;
                }
                if (m.timable) selected[l] = up = 1;
            }
            if (up && L->parent < nl) sel_below[canon[L->parent]] = 1;
        }
    }
    /* procedures: blocks grouped by function; prest = the part outside selected loops */
    size_t nf = 0;
    for (size_t i = 0; i < nb; i++) {
        const ms_block_stat *b = &in->blocks[i];
        const char *fn = b->function ? b->function : "??";
        size_t f;
        for (f = 0; f < nf; f++)
            if (!strcmp(fnames[f], fn)) break;
        if (f == nf) {
            fnames[nf] = fn;
            ffiles[nf++] = b->file;
        }
        fn_of[i] = f;
        agg_block(&pa[f], b, in->cycles[i], in->block_samples[i]);
        int in_sel = 0;
        for (uint32_t l = b->loop, guard = 0; l < nl && guard < nl && !in_sel; l = in->loops[l].parent, guard++)
            in_sel = selected[canon[l]];
        if (!in_sel) agg_block(&prest[f], b, in->cycles[i], in->block_samples[i]);
    }
    double explained = 0, covered = 0;
    for (size_t f = 0; f < nf; f++) {
        if (!pa[f].est_cycles && !pa[f].samples) continue;
        ms_mobject m = { 0 };
        fill(&m, &pa[f], in);
        m.kind = MS_MOBJ_PROCEDURE;
        m.function = strdup(fnames[f]);
        m.file = dup_or_null(ffiles[f]);
        if (!m.function) goto out;
        out->mobjects[out->nmobjects++] = m;
        ms_mobject rest = { 0 };
        fill(&rest, &prest[f], in);
        if (rest.timable) {
            explained += rest.measured_s - rest.estimated_s;
            covered += (double)prest[f].memops;
        }
    }
    for (size_t l = 0; l < nl; l++) {
        if (!selected[l]) continue;
        ms_mobject m = { 0 };
        fill(&m, &la[l], in);
        explained += m.measured_s - m.estimated_s;
        covered += (double)la[l].memops;
    }
    out->samples = total_samples;
    out->predicted_s = in->clock_hz > 0 ? total_cycles / in->clock_hz : 0;
    out->measured_s = (double)total_samples * (double)in->period_ns * 1e-9;
    out->memory_overhead_s = out->measured_s - out->predicted_s;
    out->covered_memops = out->total_memops ? covered / (double)out->total_memops : 0;
    out->unexplained = out->memory_overhead_s > 0 ? 1.0 - explained / out->memory_overhead_s : 0;
    qsort(out->mobjects, out->nmobjects, sizeof *out->mobjects, by_overhead);
    rc = 0;
out:
    free(canon);
    free(outside);
    free(by_line);
    free(la);
    free(selected);
    free(sel_below);
    free(has_child);
    free(fn_of);
    free(pa);
    free(prest);
    free((void *)fnames);
    free((void *)ffiles);
    if (rc < 0) ms_mtool_result_free(out);
    return rc;
}
