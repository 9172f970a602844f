/* Basic blocks, loops and call edges of the raw profile (MS_RAW_BLOCKS, MS_RAW_LOOPS,
 * MS_RAW_CALLS) into the model: each block and loop placed in its function and source lines
 * by the symbolizer, each call edge between two functions. */
#include "blocks.h"
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* The outermost frame of pc: the function whose code holds it, not one inlined there (a
 * block's pc is its first statement + 1, like a return address, so that pc - 1 lies in the
 * block). */
static const ms_frame *frame_of(ms_symbolizer *sym, uint64_t pc)
{
    const ms_sym *s = pc ? ms_symbolize(sym, pc, true) : NULL;
    return s && s->nframes ? &s->frames[s->nframes - 1] : NULL;
}

int ms_analyze_blocks(const ms_raw *raw, ms_symbolizer *sym, ms_model *m)
{
    if (!raw->nblocks) return 0;
    m->blocks = calloc(raw->nblocks, sizeof *m->blocks);
    m->loops = raw->nloops ? calloc(raw->nloops, sizeof *m->loops) : NULL;
    if (!m->blocks || (raw->nloops && !m->loops)) return -1;
    m->nblocks = raw->nblocks;
    m->nloops = raw->nloops;
    for (size_t i = 0; i < raw->nblocks; i++) {
        const ms_raw_block *rb = &raw->blocks[i];
        ms_block_stat *b = &m->blocks[i];
        const ms_frame *f = frame_of(sym, rb->pc);
        b->function = strdup(f && f->func ? ms_symbolizer_readable(sym, f->func) : "??");
        b->file = dup_or_null(f ? f->file : NULL);
        if (!b->function || (f && f->file && !b->file)) return -1;
        /* the plugin's statement lines are the source's; the pc's line is its first instruction's */
        b->line = rb->first_line ? (int)rb->first_line : f ? f->line : 0;
        b->end_line = rb->last_line >= (uint32_t)b->line ? (int)rb->last_line : b->line;
        b->loop = rb->loop < raw->nloops ? rb->loop : UINT32_MAX;
        b->memops = rb->memops;
        b->stmts = rb->stmts;
        b->count = rb->count;
    }
    for (size_t i = 0; i < raw->nloops; i++) {
        const ms_raw_loop *rl = &raw->loops[i];
        ms_loop_stat *l = &m->loops[i];
        const ms_frame *f = frame_of(sym, rl->pc);
        l->function = strdup(f && f->func ? ms_symbolizer_readable(sym, f->func) : "??");
        l->file = dup_or_null(f ? f->file : NULL);
        if (!l->function || (f && f->file && !l->file)) return -1;
        l->line = l->end_line = 0; /* from its blocks, below */
        l->parent = rl->parent < raw->nloops ? rl->parent : UINT32_MAX;
        l->depth = rl->depth;
        l->header = rl->header < raw->nblocks ? rl->header : UINT32_MAX;
        l->iterations = l->header != UINT32_MAX ? raw->blocks[l->header].count : 0;
    }
    /* a loop's lines: those of its blocks and of its nested loops' blocks, in its file */
    for (size_t i = 0; i < m->nblocks; i++) {
        const ms_block_stat *b = &m->blocks[i];
        if (!b->line || !b->file) continue;
        for (uint32_t li = b->loop, guard = 0; li != UINT32_MAX && guard < m->nloops;
             li = m->loops[li].parent, guard++) {
            ms_loop_stat *l = &m->loops[li];
            if (!l->file || strcmp(l->file, b->file) != 0) continue;
            if (!l->line || b->line < l->line) l->line = b->line;
            if (b->end_line > l->end_line) l->end_line = b->end_line;
        }
    }
    return 0;
}

static int strcmp_null(const char *a, const char *b)
{
    if (!a || !b) return (a != NULL) - (b != NULL);
    return strcmp(a, b);
}

/* Call edges by caller, callee, call site line and files: equal keys are summed. */
static int cmp_call(const void *a, const void *b)
{
    const ms_call_stat *x = a, *y = b;
    int c = strcmp(x->caller, y->caller);
    if (!c) c = strcmp(x->callee, y->callee);
    if (!c && x->line != y->line) c = x->line < y->line ? -1 : 1;
    if (!c) c = strcmp_null(x->caller_file, y->caller_file);
    if (!c) c = strcmp_null(x->callee_file, y->callee_file);
    return c;
}

static void free_call(ms_call_stat *c)
{
    free(c->caller);
    free(c->callee);
    free(c->caller_file);
    free(c->callee_file);
}

int ms_analyze_calls(const ms_raw *raw, ms_symbolizer *sym, ms_model *m)
{
    if (!raw->ncalls || raw->nblocks != m->nblocks) return 0;
    if (!(m->calls = calloc(raw->ncalls, sizeof *m->calls))) return -1;
    for (size_t i = 0; i < raw->ncalls; i++) {
        const ms_raw_call *rc = &raw->calls[i];
        if (rc->caller_block >= raw->nblocks) continue;
        const ms_frame *from = frame_of(sym, raw->blocks[rc->caller_block].pc);
        const ms_sym *s = ms_symbolize(sym, rc->callee_pc, false);
        const ms_frame *to = s && s->nframes ? &s->frames[s->nframes - 1] : NULL;
        if (!from || !to || !to->func || strcmp(to->func, "??") == 0) continue;
        ms_call_stat *c = &m->calls[m->ncalls++];
        c->caller = strdup(from->func ? from->func : "??");
        c->callee = strdup(to->func);
        c->caller_file = dup_or_null(from->decl_file);
        c->callee_file = dup_or_null(to->decl_file);
        c->line = m->blocks[rc->caller_block].line;
        c->callee_line = to->decl_line;
        c->count = rc->count;
        if (!c->caller || !c->callee || (from->decl_file && !c->caller_file) || (to->decl_file && !c->callee_file))
            return -1;
    }
    qsort(m->calls, m->ncalls, sizeof *m->calls, cmp_call);
    size_t n = 0;
    for (size_t i = 0; i < m->ncalls; i++) {
        if (n && cmp_call(&m->calls[n - 1], &m->calls[i]) == 0) {
            m->calls[n - 1].count += m->calls[i].count;
            free_call(&m->calls[i]);
        } else {
            m->calls[n++] = m->calls[i];
        }
    }
    m->ncalls = n;
    return 0;
}
