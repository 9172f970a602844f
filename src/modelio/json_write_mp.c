/* The JSON result's sections of a multiprocessor run: invalidations and their causes,
 * processors, references and access patterns. */
#include "json_write_internal.h"

#include <stdio.h>
#include <string.h>

/* The classes of received invalidations (derived): true/false sharing, in/across region,
 * with lock, followed by a miss; with the four exclusive classes too when `detailed`. */
static json_t *inval_classes_json(json_writer *w, const ms_inval_counters *v, int detailed)
{
    json_t *o = new_object(w);
    if (!o) return NULL;
    put(w, o, "true_sharing", u64_json(v->true_in + v->true_across));
    put(w, o, "false_sharing", u64_json(v->false_in + v->false_across));
    put(w, o, "in_region", u64_json(v->true_in + v->false_in));
    put(w, o, "across_region", u64_json(v->true_across + v->false_across));
    put(w, o, "with_lock", u64_json(v->with_lock));
    put(w, o, "followed_by_miss", u64_json(v->followed_by_miss));
    if (detailed) {
        put(w, o, "true_in", u64_json(v->true_in));
        put(w, o, "true_across", u64_json(v->true_across));
        put(w, o, "false_in", u64_json(v->false_in));
        put(w, o, "false_across", u64_json(v->false_across));
    }
    return o;
}

/* Invalidation classes plus "by": [{code, data, cpu, count}], the causes of invalidations. */
json_t *jw_invalidations(json_writer *w, const ms_inval_counters *v, const ms_invalidator *by, size_t n)
{
    json_t *o = inval_classes_json(w, v, 0), *arr = new_array(w);
    for (size_t i = 0; arr && i < n; i++) {
        json_t *e = new_object(w);
        if (!e) break;
        put(w, e, "code", json_integer(by[i].code));
        put(w, e, "data", json_integer(by[i].data));
        put(w, e, "cpu", json_integer(by[i].cpu));
        put(w, e, "count", u64_json(by[i].count));
        append(w, arr, e);
    }
    if (o)
        put(w, o, "by", arr);
    else
        json_decref(arr);
    return o;
}

/* Per data bin, the sum of its cells' invalidations and merged causes. */
void jw_put_data_invalidations(json_writer *w, json_t *o, const ms_model *m, uint32_t data)
{
    ms_selection_sum sel;
    if (ms_model_sum(m, NULL, 0, &data, 1, &sel) < 0) {
        w->failed = 1;
        return;
    }
    put(w, o, "invalidations", jw_invalidations(w, &sel.c.inval, sel.inval_by, sel.ninval_by));
    ms_selection_sum_free(&sel);
}

/* {uniprocessor, coherence} misses at L1 and, in "levels", at every level: a coherence miss
 * is one whose cause is an invalidation, every other miss would also happen on one processor. */
static json_t *miss_split_json(json_writer *w, const ms_counters *c)
{
    json_t *o = new_object(w), *levels = new_array(w);
    for (int k = 0; o && levels && k < w->nlevels; k++) {
        json_t *lo = new_object(w);
        if (!lo) break;
        uint64_t coh = c->level[k].cause[MS_CAUSE_INVAL];
        put(w, lo, "level", level_name_json(k));
        put(w, lo, "uniprocessor", u64_json(ms_counters_misses(c, k) - coh));
        put(w, lo, "coherence", u64_json(coh));
        append(w, levels, lo);
    }
    if (!o) {
        json_decref(levels);
        return NULL;
    }
    uint64_t coh = ms_counters_l1_coherence(c);
    put(w, o, "uniprocessor", u64_json(ms_counters_misses(c, 0) - coh));
    put(w, o, "coherence", u64_json(coh));
    put(w, o, "levels", levels);
    return o;
}

json_t *jw_threads(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nprocs_stat; i++) {
        const ms_proc_stat *p = &m->procs[i];
        json_t *o = new_object(w), *th = new_array(w);
        if (!o || !th) {
            json_decref(o);
            json_decref(th);
            break;
        }
        for (size_t t = 0; t < p->nthreads; t++) append(w, th, json_integer(p->threads[t]));
        put(w, o, "cpu", json_integer(p->cpu));
        put(w, o, "threads", th);
        put(w, o, "wait_turns", u64_json(p->wait_turns));
        put(w, o, "references", u64_json(ms_counters_refs(&p->c)));
        put(w, o, "misses", miss_split_json(w, &p->c));
        put(w, o, "invalidations", inval_classes_json(w, &p->c.inval, 1));
        put(w, o, "counters", jw_counters(w, &p->c));
        append(w, arr, o);
    }
    return arr;
}

/* "nbf.c:141": the basename of the file and the line. */
static json_t *location_json(const char *file, int line)
{
    const char *base = file ? strrchr(file, '/') : NULL;
    char buf[512];
    snprintf(buf, sizeof buf, "%s:%d", base ? base + 1 : file ? file : "??", line);
    return json_string(buf);
}

json_t *jw_references(json_writer *w, const ms_model *m)
{
    json_t *arr = new_array(w);
    for (size_t i = 0; arr && i < m->nrefs; i++) {
        const ms_reference_stat *r = &m->refs[i];
        const char *file = r->file < m->nfiles ? m->files[r->file] : NULL;
        const ms_inval_counters *v = &r->c.inval;
        uint64_t refs = ms_counters_refs(&r->c), misses = ms_counters_misses(&r->c, 0);
        uint64_t coh = ms_counters_l1_coherence(&r->c); /* at L1, like misses */
        json_t *o = new_object(w), *inv = new_object(w);
        if (!o || !inv) {
            json_decref(o);
            json_decref(inv);
            break;
        }
        put(w, o, "function", text_json(w, r->code < m->ncode ? m->code[r->code].name : NULL));
        put(w, o, "code", json_integer(r->code));
        put(w, o, "file", text_json(w, file));
        put(w, o, "line", json_integer(r->line));
        put(w, o, "location", location_json(file, r->line));
        put(w, o, "kind",
            json_string((unsigned)r->kind < MS_JSON_NELEM(ms_json_ref_kind_names) ? ms_json_ref_kind_names[r->kind]
                                                                                  : "Read"));
        put(w, o, "data", json_integer(r->data));
        put(w, o, "data_name", text_json(w, r->data < m->ndata ? m->data[r->data].name : NULL));
        put(w, o, "cpu", json_integer(r->cpu));
        put(w, o, "references", u64_json(refs));
        put(w, o, "misses", u64_json(misses));
        put(w, o, "miss_ratio", json_real(rate(misses, refs)));
        put(w, o, "coherence_misses", u64_json(coh));
        put(w, o, "coherence_pct", json_real(100.0 * rate(coh, misses)));
        put(w, inv, "total", u64_json(v->received));
        put(w, inv, "true_in", u64_json(v->true_in));
        put(w, inv, "true_across", u64_json(v->true_across));
        put(w, inv, "false_in", u64_json(v->false_in));
        put(w, inv, "false_across", u64_json(v->false_across));
        put(w, o, "invalidations", inv);
        put(w, o, "counters", jw_counters(w, &r->c));
        append(w, arr, o);
    }
    return arr;
}

/* Per data bin with communication misses (tot: the data bins' totals): the share of them
 * each access pattern explains. */
json_t *jw_patterns(json_writer *w, const ms_model *m, const ms_counters *tot)
{
    json_t *arr = new_array(w);
    if (!arr) return NULL;
    for (size_t i = 0; i < m->ndata; i++) {
        uint64_t comm = ms_counters_communication(&tot[i]);
        if (comm == 0) continue;
        json_t *o = new_object(w), *pats = new_array(w);
        if (!o || !pats) {
            json_decref(o);
            json_decref(pats);
            break;
        }
        for (int p = 0; p < MS_NPATTERNS; p++) {
            json_t *po = new_object(w);
            if (!po) break;
            put(w, po, "pattern", json_string(ms_pattern_name(p)));
            put(w, po, "misses", u64_json(tot[i].pattern[p]));
            put(w, po, "share", json_real(rate(tot[i].pattern[p], comm)));
            append(w, pats, po);
        }
        put(w, o, "data", json_integer((json_int_t)i));
        put(w, o, "name", text_json(w, m->data[i].name));
        put(w, o, "communication_misses", u64_json(comm));
        put(w, o, "patterns", pats);
        append(w, arr, o);
    }
    return arr;
}
