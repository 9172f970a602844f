/* The JSON result's program structure and timing: basic blocks, call edges, code parts,
 * loops and the waiting-time analysis. */
#include "json_write_internal.h"

/* "blocks": one object per basic block, in the raw file's id order. */
json_t *jw_blocks(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nblocks; i++) {
        const ms_block_stat *b = &m->blocks[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, b->function));
        put(w, o, "file", name_json(w, b->file));
        put(w, o, "line", json_integer(b->line));
        put(w, o, "end_line", json_integer(b->end_line));
        put(w, o, "loop", index_json(b->loop));
        put(w, o, "memops", json_integer(b->memops));
        put(w, o, "stmts", json_integer(b->stmts));
        put(w, o, "count", u64_json(b->count));
        append(w, arr, o);
    }
    return arr;
}

/* "calls": the call edges between functions (function and file names from "names"). */
json_t *jw_calls(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->ncalls; i++) {
        const ms_call_stat *c = &m->calls[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "caller", name_json(w, c->caller));
        put(w, o, "callee", name_json(w, c->callee));
        put(w, o, "caller_file", name_json(w, c->caller_file));
        put(w, o, "callee_file", name_json(w, c->callee_file));
        put(w, o, "line", json_integer(c->line));
        put(w, o, "callee_line", json_integer(c->callee_line));
        put(w, o, "count", u64_json(c->count));
        append(w, arr, o);
    }
    return arr;
}

/* "code_parts": each code bin's share per function compiled, with the counters of a line. */
json_t *jw_parts(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nparts; i++) {
        const ms_code_part *p = &m->parts[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, p->function));
        put(w, o, "file", name_json(w, p->file));
        put(w, o, "code", json_integer(p->code));
        jw_put_counter_summary(w, o, &p->c);
        put(w, o, "levels", jw_levels(w, &p->c, NULL));
        append(w, arr, o);
    }
    return arr;
}

/* "loops": one object per natural loop, in the raw file's id order (parents first within a
 * function). */
json_t *jw_loops(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nloops; i++) {
        const ms_loop_stat *l = &m->loops[i];
        json_t *o = new_object(w);
        if (!o) break;
        put(w, o, "function", name_json(w, l->function));
        put(w, o, "file", name_json(w, l->file));
        put(w, o, "line", json_integer(l->line));
        put(w, o, "end_line", json_integer(l->end_line));
        put(w, o, "parent", index_json(l->parent));
        put(w, o, "depth", json_integer(l->depth));
        put(w, o, "header", index_json(l->header));
        put(w, o, "iterations", u64_json(l->iterations));
        append(w, arr, o);
    }
    return arr;
}

/* "waiting": the timed replay's waiting-time analysis (Carnival's WT Map): total waiting,
 * every processor's time by kind, and per synchronisation point its waiting, share, classes
 * and explanation. */
json_t *jw_waiting(json_writer *w, const ms_model *m)
{
    const ms_waiting *wt = &m->waiting;
    json_t *o = new_object(w), *prof = new_array(w), *srcs = new_array(w);
    if (!o || !prof || !srcs) {
        json_decref(o);
        json_decref(prof);
        json_decref(srcs);
        return NULL;
    }
    put(w, o, "total_cycles", u64_json(wt->total_cycles));
    put(w, o, "approximate", json_boolean(wt->approximate));
    put(w, o, "work_cost", str_json(wt->work_cost));
    for (size_t i = 0; i < wt->nprofile; i++) {
        const ms_wait_profile *p = &wt->profile[i];
        json_t *e = new_object(w);
        if (!e) break;
        put(w, e, "cpu", json_integer(p->cpu));
        put(w, e, "compute", u64_json(p->compute));
        put(w, e, "stall", u64_json(p->stall));
        put(w, e, "waiting", u64_json(p->waiting));
        put(w, e, "sync", u64_json(p->sync));
        put(w, e, "idle", json_boolean(p->idle));
        append(w, prof, e);
    }
    for (size_t i = 0; i < wt->nsources; i++) {
        const ms_wait_source *src = &wt->sources[i];
        json_t *e = new_object(w), *cls = new_object(w), *ex = new_array(w);
        if (!e || !cls || !ex) {
            json_decref(e);
            json_decref(cls);
            json_decref(ex);
            break;
        }
        put(w, e, "kind", str_json(src->kind));
        put(w, e, "function", text_json(w, src->function));
        put(w, e, "file", text_json(w, src->file));
        put(w, e, "line", json_integer(src->line));
        put(w, e, "object", u64_json(src->object));
        put(w, e, "object_name", text_json(w, src->object_name));
        put(w, e, "via_function", text_json(w, src->via_function));
        put(w, e, "via_file", text_json(w, src->via_file));
        put(w, e, "via_line", json_integer(src->via_line));
        put(w, e, "instances", u64_json(src->instances));
        put(w, e, "cycles", u64_json(src->cycles));
        put(w, e, "share", json_real(rate(src->cycles, wt->total_cycles)));
        for (int c = 0; c < MS_WAITCLASSES; c++) put(w, cls, ms_waitclass_name(c), u64_json(src->classes[c]));
        put(w, e, "classes", cls);
        put(w, e, "extra_stall", u64_json(src->extra_stall));
        for (size_t j = 0; j < src->nexplanation; j++) {
            const ms_wait_explanation *x = &src->explanation[j];
            json_t *xe = new_object(w);
            if (!xe) break;
            put(w, xe, "function", text_json(w, x->function));
            put(w, xe, "file", text_json(w, x->file));
            put(w, xe, "line", json_integer(x->line));
            put(w, xe, "loop", text_json(w, x->loop));
            put(w, xe, "extra_count", u64_json(x->extra_count));
            put(w, xe, "extra_cycles", u64_json(x->extra_cycles));
            put(w, xe, "stall_cycles", u64_json(x->stall_cycles));
            append(w, ex, xe);
        }
        put(w, e, "explanation", ex);
        json_t *pa = new_array(w);
        for (size_t j = 0; pa && j < src->npaths; j++) {
            const ms_wait_path *q = &src->paths[j];
            json_t *pe = new_object(w);
            if (!pe) break;
            put(w, pe, "instances", u64_json(q->instances));
            put(w, pe, "cycles", u64_json(q->cycles));
            put(w, pe, "share", json_real(rate(q->cycles, src->cycles)));
            put(w, pe, "function", text_json(w, q->function));
            put(w, pe, "file", text_json(w, q->file));
            put(w, pe, "line", json_integer(q->line));
            put(w, pe, "loop", text_json(w, q->loop));
            append(w, pa, pe);
        }
        put(w, e, "paths", pa);
        append(w, srcs, e);
    }
    put(w, o, "profile", prof);
    put(w, o, "sources", srcs);
    return o;
}
