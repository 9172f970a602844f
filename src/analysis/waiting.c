/* The waiting-time analysis into the model (waiting.h). */
#include "waiting.h"
#include "source.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/stream.h"

const char *ms_wait_kind_name(uint32_t kind)
{
    switch (kind) {
    case MS_SYNC_BARRIER: return "barrier";
    case MS_SYNC_ACQUIRE: return "lock";
    case MS_SYNC_JOIN: return "join";
    case MS_SYNC_COND_WAIT: return "cond";
    case MS_SYNC_SEM_WAIT: return "semaphore";
    case MS_SYNC_BEGIN: return "fork";
    case MS_SYNC_ATOMIC: return "spin"; /* an acquire waiting for a release's value */
    default: return "other";
    }
}

static char *dup_or_null(const char *s) { return s ? strdup(s) : NULL; }

/* Where a synchronisation point's function, inlined, was called: the function compiled around
 * it and the line there (its outermost frame). */
typedef struct {
    char *function, *file;
    int line;
} via_frame;

/* The code location of context ctx: function and file malloc'd. The outermost frame of its pc
 * (like blocks), or with via set the innermost one outside system headers (a
 * synchronisation point: the call itself, in a function inlined or not, and not inside an
 * inlined library wrapper such as std::mutex::lock; the outermost if all are), and in *via
 * the outermost frame when that is another (a program's own wrapper inlined at several calls,
 * also through another inlined function: each is a point of its own, told apart by it), all
 * NULL when it was not inlined. Returns 0 or -1 (out of memory). */
static int place_ctx(const ms_raw *raw, ms_symbolizer *sym, uint32_t ctx, via_frame *via, char **function, char **file,
                     int *line)
{
    const int innermost = via != NULL;
    uint64_t pc = 0;
    for (size_t i = 0; i < raw->ncontexts && !pc; i++)
        if (raw->contexts[i].ctx == ctx) pc = raw->contexts[i].pc;
    const ms_sym *s = pc ? ms_symbolize(sym, pc, true) : NULL;
    size_t k = s && s->nframes ? s->nframes - 1 : 0;
    if (s && innermost)
        for (size_t i = 0; i < s->nframes; i++)
            if (s->frames[i].file && !ms_source_is_system(s->frames[i].file)) {
                k = i;
                break;
            }
    const ms_frame *f = s && s->nframes ? &s->frames[k] : NULL;
    *function = strdup(f && f->func ? ms_symbolizer_readable(sym, f->func) : "??");
    *file = dup_or_null(f ? f->file : NULL);
    *line = f ? f->line : 0;
    if (!*function || (f && f->file && !*file)) return -1;
    const ms_frame *v = via && s && k + 1 < s->nframes ? &s->frames[s->nframes - 1] : NULL;
    /* through nested inlining: its line tells the calls apart; none when it is the same
     * function (its part split off by the compiler, pbzip2's terminatorThreadProc) */
    if (v && v->func && f->func && strcmp(v->func, f->func) == 0) v = NULL;
    if (v) {
        via->function = strdup(v->func ? ms_symbolizer_readable(sym, v->func) : "??");
        via->file = dup_or_null(v->file);
        via->line = v->line;
        if (!via->function || (v->file && !via->file)) return -1;
    }
    return 0;
}

/* "FUNC:loop@A-B" of the innermost loop holding block b, NULL when none. */
static char *loop_name(const ms_model *m, const ms_block_stat *b)
{
    if (b->loop >= m->nloops) return NULL;
    const ms_loop_stat *l = &m->loops[b->loop];
    char buf[512];
    snprintf(buf, sizeof buf, "%s:loop@%d-%d", l->function ? l->function : "??", l->line, l->end_line);
    return strdup(buf);
}

static int same_place(const ms_wait_explanation *a, const ms_wait_explanation *b)
{
    return a->line == b->line && strcmp(a->function, b->function) == 0 &&
           (a->file == b->file || (a->file && b->file && strcmp(a->file, b->file) == 0)) &&
           (a->loop == b->loop || (a->loop && b->loop && strcmp(a->loop, b->loop) == 0));
}

static int cmp_explanation(const void *a, const void *b)
{
    const ms_wait_explanation *x = a, *y = b;
    uint64_t cx = x->extra_cycles + x->stall_cycles, cy = y->extra_cycles + y->stall_cycles;
    if (cx != cy) return cx < cy ? 1 : -1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    return strcmp(x->function, y->function);
}

/* Blocks of one source line in one loop are one step of the path: merge them (counts and
 * cycles added; the count is the largest block's, the line's executions). */
static void merge_places(ms_wait_source *w)
{
    size_t n = 0;
    for (size_t i = 0; i < w->nexplanation; i++) {
        ms_wait_explanation *e = &w->explanation[i];
        size_t j = 0;
        while (j < n && !same_place(&w->explanation[j], e)) j++;
        if (j == n) {
            w->explanation[n++] = *e;
            continue;
        }
        ms_wait_explanation *k = &w->explanation[j];
        if (e->extra_count > k->extra_count) k->extra_count = e->extra_count;
        k->extra_cycles += e->extra_cycles;
        k->stall_cycles += e->stall_cycles;
        free(e->function);
        free(e->file);
        free(e->loop);
    }
    w->nexplanation = n;
    if (n > 1) qsort(w->explanation, n, sizeof *w->explanation, cmp_explanation);
}

/* The late paths' extra stall at ctx's line: added to the step of that function and line (in
 * whatever loop), or a step of its own. */
static int explain_stall(const ms_raw *raw, ms_symbolizer *sym, const ms_raw_wait_stall *st, ms_wait_source *w)
{
    ms_wait_explanation e = { 0 };
    e.stall_cycles = st->cycles;
    if (place_ctx(raw, sym, st->ctx, NULL, &e.function, &e.file, &e.line) < 0) {
        free(e.function);
        return -1;
    }
    for (size_t i = 0; i < w->nexplanation; i++) {
        ms_wait_explanation *k = &w->explanation[i];
        if (k->line == e.line && strcmp(k->function, e.function) == 0 &&
            (k->file == e.file || (k->file && e.file && strcmp(k->file, e.file) == 0))) {
            k->stall_cycles += e.stall_cycles;
            free(e.function);
            free(e.file);
            return 0;
        }
    }
    w->explanation[w->nexplanation++] = e;
    return 0;
}

static int explain(const ms_raw *raw, ms_symbolizer *sym, const ms_raw_wait_point *p, const ms_model *m,
                   ms_wait_source *w)
{
    if (!p->nextra && !p->nstall) return 0;
    if (!(w->explanation = calloc(p->nextra + p->nstall, sizeof *w->explanation))) return -1;
    for (size_t i = 0; i < p->nextra; i++) {
        const ms_raw_wait_extra *x = &p->extra[i];
        ms_wait_explanation *e = &w->explanation[w->nexplanation++];
        e->extra_count = x->extra_count;
        e->extra_cycles = x->extra_cycles;
        if (x->block < m->nblocks) {
            const ms_block_stat *b = &m->blocks[x->block];
            e->function = strdup(b->function);
            e->file = dup_or_null(b->file);
            e->line = b->line;
            if (b->loop < m->nloops && !(e->loop = loop_name(m, b))) return -1;
            if (!e->function || (b->file && !e->file)) return -1;
        } else if (!(e->function = strdup("??"))) {
            return -1;
        }
    }
    merge_places(w);
    for (size_t i = 0; i < p->nstall; i++)
        if (explain_stall(raw, sym, &p->stall[i], w) < 0) return -1;
    merge_places(w); /* sorted again with the stall */
    return 0;
}

/* The point's classes of paths, each placed at its lead block. */
static int place_paths(const ms_raw_wait_point *p, const ms_model *m, ms_wait_source *w)
{
    if (!p->npaths) return 0;
    if (!(w->paths = calloc(p->npaths, sizeof *w->paths))) return -1;
    for (size_t i = 0; i < p->npaths; i++) {
        const ms_raw_wait_path *rp = &p->paths[i];
        ms_wait_path *q = &w->paths[w->npaths++];
        q->instances = rp->instances;
        q->cycles = rp->cycles;
        const ms_block_stat *b = rp->lead < m->nblocks ? &m->blocks[rp->lead] : NULL;
        q->function = strdup(b ? b->function : "-");
        q->file = dup_or_null(b ? b->file : NULL);
        q->line = b ? b->line : 0;
        if (!q->function || (b && b->file && !q->file)) return -1;
        if (b && b->loop < m->nloops && !(q->loop = loop_name(m, b))) return -1;
    }
    return 0;
}

/* Carnival's classes compare threads that share the work since they last synchronised. A
 * thread that did almost no work in the whole run (below 1/MS_WAIT_IDLE_SHARE of the busiest
 * thread's compute and stall: a watchdog waiting for the run's end, a writer waiting for output,
 * a main thread that only creates and joins) has no share of it, so its waiting is not load
 * imbalance nor any other class of the work: it is reported apart, as idle_thread. */
_Static_assert((int)MS_WAIT_LOAD_IMBALANCE == (int)MS_WAITCLASS_LOAD_IMBALANCE &&
                   (int)MS_WAIT_COMMUNICATION == (int)MS_WAITCLASS_COMMUNICATION &&
                   (int)MS_WAIT_NCLASSES == (int)MS_WAITCLASS_IDLE_THREAD,
               "the replay's classes are the model's first ones");

static void mark_idle(ms_waiting *wt)
{
    uint64_t most = 0;
    for (size_t c = 0; c < wt->nprofile; c++)
        if (wt->profile[c].compute + wt->profile[c].stall > most) most = wt->profile[c].compute + wt->profile[c].stall;
    for (size_t c = 0; c < wt->nprofile; c++) {
        const ms_wait_profile *p = &wt->profile[c];
        wt->profile[c].idle = p->waiting && (p->compute + p->stall) * MS_WAIT_IDLE_SHARE < most;
    }
}

/* The point's cycles by class: its waiters' classes, an idle processor's all idle_thread. */
static void split_classes(const ms_raw_wait_point *p, const ms_waiting *wt, uint64_t *classes)
{
    for (int c = 0; c < MS_WAITCLASSES; c++) classes[c] = c < MS_WAIT_NCLASSES ? p->classes[c] : 0;
    for (unsigned cpu = 0; p->by_cpu && cpu < p->ncpus && cpu < wt->nprofile; cpu++) {
        if (!wt->profile[cpu].idle) continue;
        for (int c = 0; c < MS_WAIT_NCLASSES; c++) {
            uint64_t v = p->by_cpu[(size_t)cpu * MS_WAIT_NCLASSES + c];
            classes[c] -= v;
            classes[MS_WAITCLASS_IDLE_THREAD] += v;
        }
    }
}

int ms_analyze_waiting(const ms_raw *raw, ms_symbolizer *sym, ms_model *m, ms_wait_object_fn object, void *ud)
{
    ms_waiting *wt = &m->waiting;
    if (!raw->timed) return 0;
    wt->present = true;
    wt->approximate = raw->timed_approximate != 0;
    if (raw->work_cost && !(wt->work_cost = strdup(raw->work_cost))) return -1;
    unsigned nprocs = raw->nprocs ? raw->nprocs : 1;
    if (!(wt->profile = calloc(nprocs, sizeof *wt->profile))) return -1;
    wt->nprofile = nprocs;
    for (unsigned c = 0; c < nprocs; c++) wt->profile[c].cpu = c;
    for (size_t i = 0; i < raw->nthreads_replayed; i++) {
        const ms_raw_thread *t = &raw->threads[i];
        if (t->cpu >= nprocs) continue;
        ms_wait_profile *p = &wt->profile[t->cpu];
        p->compute += t->compute;
        p->stall += t->stall;
        p->waiting += t->waiting;
        p->sync += t->sync;
    }
    mark_idle(wt);
    if (raw->nwait_points && !(wt->sources = calloc(raw->nwait_points, sizeof *wt->sources))) return -1;
    for (size_t i = 0; i < raw->nwait_points; i++) {
        const ms_raw_wait_point *p = &raw->wait_points[i];
        ms_wait_source *w = &wt->sources[wt->nsources++];
        if (!(w->kind = strdup(ms_wait_kind_name(p->kind)))) return -1;
        w->object = p->obj;
        w->instances = p->instances;
        w->cycles = p->cycles;
        w->extra_stall = p->extra_stall;
        split_classes(p, wt, w->classes);
        wt->total_cycles += p->cycles;
        via_frame via = { NULL, NULL, 0 };
        int rc = place_ctx(raw, sym, p->ctx, &via, &w->function, &w->file, &w->line);
        w->via_function = via.function;
        w->via_file = via.file;
        w->via_line = via.line;
        const char *on = object ? object(ud, p->ctx) : NULL;
        if (rc < 0 || (on && !(w->object_name = strdup(on))) || explain(raw, sym, p, m, w) < 0 ||
            place_paths(p, m, w) < 0)
            return -1;
    }
    return 0;
}
