/* Code bins by function, loop or line (codebins.h).
 *
 * A context's loop comes from the plugin's block records: the block whose first pc is the
 * closest at or below the context's pc, in the same function, is the block holding the access
 * (each block's pc label precedes its code, and a function's blocks keep their own code
 * together); its innermost loop is the context's. Stall is MemSpy's measure: the contexts'
 * stall cycles summed over processors. */
#define _GNU_SOURCE /* asprintf */
#include "codebins.h"
#include "ompnames.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ms_code_granularity_parse(const char *name, ms_code_granularity *out)
{
    static const char *const names[] = { "function", "loop", "line" };
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *out = (ms_code_granularity)i;
            return 0;
        }
    return -1;
}

typedef struct {
    uint64_t pc;
    uint32_t block;
} block_pc;

static int cmp_block_pc(const void *a, const void *b)
{
    const block_pc *x = a, *y = b;
    if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
    return (x->block > y->block) - (x->block < y->block);
}

/* The innermost loop of the block holding pc in function func, UINT32_MAX if none. */
static uint32_t loop_of(const block_pc *bp, size_t n, const ms_model *m, uint64_t pc, const char *func)
{
    size_t lo = 0, hi = n; /* first entry with pc > the context's */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (bp[mid].pc <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0) return UINT32_MAX;
    const ms_block_stat *b = &m->blocks[bp[lo - 1].block];
    return strcmp(b->function, func) == 0 ? b->loop : UINT32_MAX;
}

/* Stall per function name, summed over contexts (a small linear table: functions with
 * stall are few next to contexts). */
typedef struct {
    const char *func;
    uint64_t stall;
} func_stall;

static uint64_t *function_stall(func_stall *fs, size_t *nfs, const char *func)
{
    for (size_t i = 0; i < *nfs; i++)
        if (strcmp(fs[i].func, func) == 0) return &fs[i].stall;
    fs[*nfs] = (func_stall){ func, 0 };
    return &fs[(*nfs)++].stall;
}

/* The function whose code holds the context (its outermost frame: a loop belongs to the
 * function it was compiled in, whatever was inlined into it), readable. */
static const char *outer_function(ms_symbolizer *sym, const ms_code_place *p)
{
    const ms_sym *s = p->pc ? ms_symbolize(sym, p->pc, true) : NULL;
    const ms_frame *f = s && s->nframes ? &s->frames[s->nframes - 1] : p->frame;
    return ms_symbolizer_readable(sym, f->func);
}

/* "FUNC:loop@FIRST-LAST"; a loop of an outlined OpenMP region is named after the function
 * the programmer wrote it in (ompnames.h: gcc's PARENT._omp_fn.N, clang's .omp_outlined.). */
static char *loop_name(const ms_raw *raw, ms_symbolizer *sym, const ms_code_place *p, const char *func,
                       const ms_loop_stat *l)
{
    char fn[1024];
    ms_omp_function(raw, sym, p->pc ? ms_symbolize(sym, p->pc, true) : NULL, func, l->file, fn, sizeof fn);
    char *s = NULL;
    int rc = l->end_line > l->line ? asprintf(&s, "%s:loop@%d-%d", fn, l->line, l->end_line)
                                   : asprintf(&s, "%s:loop@%d", fn, l->line);
    return rc < 0 ? NULL : s;
}

static int place_loops(const ms_raw *raw, ms_symbolizer *sym, const ms_model *m, double share, ms_code_place *places,
                       size_t n)
{
    block_pc *bp = malloc((m->nblocks ? m->nblocks : 1) * sizeof *bp);
    uint32_t *loop = malloc((n ? n : 1) * sizeof *loop);
    uint64_t *incl = calloc(m->nloops ? m->nloops : 1, sizeof *incl);
    func_stall *fs = malloc((n ? n : 1) * sizeof *fs);
    uint32_t max_ctx = 0;
    for (size_t i = 0; i < raw->ncounters; i++)
        if (raw->counters[i].ctx > max_ctx) max_ctx = raw->counters[i].ctx;
    uint64_t *stall = calloc((size_t)max_ctx + 1, sizeof *stall);
    int rc = bp && loop && incl && fs && stall ? 0 : -1;
    size_t nbp = 0, nfs = 0;
    for (size_t i = 0; rc == 0 && i < m->nblocks; i++)
        if (raw->nblocks == m->nblocks && raw->blocks[i].pc) bp[nbp++] = (block_pc){ raw->blocks[i].pc, (uint32_t)i };
    if (rc == 0) qsort(bp, nbp, sizeof *bp, cmp_block_pc);
    for (size_t i = 0; rc == 0 && i < raw->ncounters; i++)
        stall[raw->counters[i].ctx] += raw->counters[i].c.stall_read + raw->counters[i].c.stall_write;
    /* each context's innermost loop; stall per loop (nested loops included) and per function */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *func = outer_function(sym, &places[i]);
        loop[i] = loop_of(bp, nbp, m, places[i].pc, func);
        uint64_t s = places[i].ctx <= max_ctx ? stall[places[i].ctx] : 0;
        *function_stall(fs, &nfs, func) += s;
        for (uint32_t l = loop[i], guard = 0; l != UINT32_MAX && guard < m->nloops; l = m->loops[l].parent, guard++)
            incl[l] += s;
    }
    /* the innermost loop holding at least `share` of its function's stall */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *func = outer_function(sym, &places[i]);
        uint64_t fstall = *function_stall(fs, &nfs, func);
        uint32_t chosen = UINT32_MAX;
        for (uint32_t l = loop[i], guard = 0; l != UINT32_MAX && guard < m->nloops; l = m->loops[l].parent, guard++)
            if ((double)incl[l] >= share * (double)fstall) {
                chosen = l;
                break;
            }
        if (chosen == UINT32_MAX) {
            places[i].name = strdup(places[i].frame->func);
            places[i].line = places[i].frame->decl_line;
        } else {
            places[i].name = loop_name(raw, sym, &places[i], func, &m->loops[chosen]);
            places[i].line = m->loops[chosen].line;
        }
        if (!places[i].name) rc = -1;
    }
    free(bp);
    free(loop);
    free(incl);
    free(fs);
    free(stall);
    return rc;
}

int ms_code_places(const ms_raw *raw, ms_symbolizer *sym, const ms_model *m, ms_code_granularity g, double share,
                   ms_code_place *places, size_t n)
{
    if (g == MS_CODE_LOOP && m->nloops) return place_loops(raw, sym, m, share, places, n);
    for (size_t i = 0; i < n; i++) {
        const ms_frame *f = places[i].frame;
        if (g == MS_CODE_LINE && f->line > 0) {
            if (asprintf(&places[i].name, "%s:%d", f->func, f->line) < 0) places[i].name = NULL;
            places[i].line = f->line;
        } else {
            places[i].name = strdup(f->func);
            places[i].line = f->decl_line;
        }
        if (!places[i].name) return -1;
    }
    return 0;
}
