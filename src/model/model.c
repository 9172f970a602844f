/* The result model: construction, destruction, derived counters, selections and name lookup. */
#include "model.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ms_model_init(ms_model *m)
{
    memset(m, 0, sizeof *m);
    m->version = MS_MODEL_VERSION;
}

static void free_strings(char **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void ms_model_free(ms_model *m)
{
    free(m->program);
    free_strings(m->argv, m->argc > 0 ? (size_t)m->argc : 0);
    free(m->cwd);
    free(m->memspy_version);
    free(m->git_commit);
    free(m->origin);
    free(m->incomplete_reason);
    free_strings(m->notes, m->nnotes);
    for (size_t i = 0; i < m->ncode; i++) {
        free(m->code[i].name);
        free(m->code[i].file);
    }
    free(m->code);
    for (size_t i = 0; i < m->ndata; i++) {
        free(m->data[i].name);
        free(m->data[i].full_name);
        free(m->data[i].site);
    }
    free(m->data);
    for (size_t i = 0; i < m->ncells; i++) {
        free(m->cells[i].evicted_by);
        free(m->cells[i].inval_by);
    }
    free(m->cells);
    free_strings(m->files, m->nfiles);
    free(m->lines);
    free(m->interleave);
    for (size_t i = 0; i < m->nprocs_stat; i++) free(m->procs[i].threads);
    free(m->procs);
    free(m->refs);
    for (size_t i = 0; i < m->nblocks; i++) {
        free(m->blocks[i].function);
        free(m->blocks[i].file);
    }
    free(m->blocks);
    for (size_t i = 0; i < m->nloops; i++) {
        free(m->loops[i].function);
        free(m->loops[i].file);
    }
    for (size_t i = 0; i < m->ncalls; i++) {
        free(m->calls[i].caller);
        free(m->calls[i].callee);
        free(m->calls[i].caller_file);
        free(m->calls[i].callee_file);
    }
    free(m->calls);
    for (size_t i = 0; i < m->nparts; i++) {
        free(m->parts[i].function);
        free(m->parts[i].file);
    }
    free(m->parts);
    for (size_t i = 0; i < m->waiting.nsources; i++) {
        ms_wait_source *w = &m->waiting.sources[i];
        free(w->kind);
        free(w->function);
        free(w->file);
        free(w->object_name);
        free(w->via_function);
        free(w->via_file);
        for (size_t j = 0; j < w->nexplanation; j++) {
            free(w->explanation[j].function);
            free(w->explanation[j].file);
            free(w->explanation[j].loop);
        }
        free(w->explanation);
        for (size_t j = 0; j < w->npaths; j++) {
            free(w->paths[j].function);
            free(w->paths[j].file);
            free(w->paths[j].loop);
        }
        free(w->paths);
    }
    free(m->waiting.sources);
    free(m->waiting.profile);
    free(m->waiting.work_cost);
    free(m->loops);
    free(m->ideal_cpu);
    if (m->mtool) ms_mtool_result_free(m->mtool);
    free(m->mtool);
    ms_model_init(m);
}

uint64_t ms_counters_refs(const ms_counters *c) { return c->reads + c->writes; }

uint64_t ms_counters_misses(const ms_counters *c, int level)
{
    if (level < 0 || level >= MS_MAX_LEVELS) return 0;
    return c->level[level].read_misses + c->level[level].write_misses;
}

uint64_t ms_counters_stall(const ms_counters *c) { return c->stall_read + c->stall_write; }

uint64_t ms_counters_replacements(const ms_counters *c, int level)
{
    if (level < 0 || level >= MS_MAX_LEVELS) return 0;
    return c->level[level].cause[MS_CAUSE_CAPACITY] + c->level[level].cause[MS_CAUSE_CONFLICT];
}

uint64_t ms_counters_l1_coherence(const ms_counters *c) { return c->level[0].cause[MS_CAUSE_INVAL]; }

uint64_t ms_counters_coherence_misses(const ms_counters *c)
{
    uint64_t n = 0;
    for (int k = 0; k < MS_MAX_LEVELS; k++) n += c->level[k].cause[MS_CAUSE_INVAL];
    return n;
}

uint64_t ms_counters_communication(const ms_counters *c)
{
    uint64_t n = 0;
    for (int p = 0; p < MS_NPATTERNS; p++) n += c->pattern[p];
    return n;
}

const char *ms_pattern_name(int pattern)
{
    static const char *const names[MS_NPATTERNS] = {
#define MS_PATTERN(id, name) name,
#include "../sim/counters.def"
    };
    return pattern >= 0 && pattern < MS_NPATTERNS ? names[pattern] : "unknown";
}

static int index_selected(uint32_t v, const uint32_t *set, size_t n)
{
    if (n == 0) return 1;
    for (size_t i = 0; i < n; i++)
        if (set[i] == v) return 1;
    return 0;
}

/* Add one evictor into the merged list (keyed by data bin and level). Codes that disagree
 * collapse to UINT32_MAX ("several code bins"). */
static int merge_evictor(ms_selection_sum *s, size_t *cap, const ms_evictor *e)
{
    for (size_t i = 0; i < s->nevicted_by; i++) {
        ms_evictor *x = &s->evicted_by[i];
        if (x->data == e->data && x->level == e->level) {
            x->count += e->count;
            if (x->code != e->code) x->code = UINT32_MAX;
            return 0;
        }
    }
    if (s->nevicted_by == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        ms_evictor *p = realloc(s->evicted_by, ncap * sizeof *p);
        if (!p) return -1;
        s->evicted_by = p;
        *cap = ncap;
    }
    s->evicted_by[s->nevicted_by++] = *e;
    return 0;
}

int ms_evictor_order(const void *a, const void *b)
{
    const ms_evictor *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    if (x->level != y->level) return x->level < y->level ? -1 : 1;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return 0;
}

int ms_invalidator_order(const void *a, const void *b)
{
    const ms_invalidator *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

static int cmp_evictor_key(const void *a, const void *b)
{
    const ms_evictor *x = a, *y = b;
    if (x->level != y->level) return x->level < y->level ? -1 : 1;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    return x->code < y->code ? -1 : x->code > y->code;
}

/* Sum evictors with the same (code, data, level), then restore the shared order. */
static void merge_evictors(ms_cell *c)
{
    if (c->nevicted_by < 2) return;
    qsort(c->evicted_by, c->nevicted_by, sizeof *c->evicted_by, cmp_evictor_key);
    size_t out = 0;
    for (size_t i = 0; i < c->nevicted_by; i++) {
        if (out && cmp_evictor_key(&c->evicted_by[out - 1], &c->evicted_by[i]) == 0)
            c->evicted_by[out - 1].count += c->evicted_by[i].count;
        else
            c->evicted_by[out++] = c->evicted_by[i];
    }
    c->nevicted_by = out;
    qsort(c->evicted_by, c->nevicted_by, sizeof *c->evicted_by, ms_evictor_order);
}

static int cmp_invalidator_key(const void *a, const void *b)
{
    const ms_invalidator *x = a, *y = b;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* Sum invalidation causes with the same (code, data, cpu), then restore the shared order. */
static void merge_invalidators(ms_cell *c)
{
    if (c->ninval_by < 2) return;
    if (c->ninval_by) qsort(c->inval_by, c->ninval_by, sizeof *c->inval_by, cmp_invalidator_key);
    size_t out = 0;
    for (size_t i = 0; i < c->ninval_by; i++) {
        if (out && cmp_invalidator_key(&c->inval_by[out - 1], &c->inval_by[i]) == 0)
            c->inval_by[out - 1].count += c->inval_by[i].count;
        else
            c->inval_by[out++] = c->inval_by[i];
    }
    c->ninval_by = out;
    if (c->ninval_by) qsort(c->inval_by, c->ninval_by, sizeof *c->inval_by, ms_invalidator_order);
}

void ms_cell_merge_causes(ms_cell *c)
{
    merge_evictors(c);
    merge_invalidators(c);
}

int ms_reference_key_order(const void *a, const void *b)
{
    const ms_reference_stat *x = a, *y = b;
    if (x->file != y->file) return x->file < y->file ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->code != y->code) return x->code < y->code ? -1 : 1;
    if (x->data != y->data) return x->data < y->data ? -1 : 1;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* code = map[code], data = map[data] for any struct with code and data members. */
#define REMAP(x, code_map, data_map)                   \
    do {                                               \
        if (code_map) (x).code = (code_map)[(x).code]; \
        if (data_map) (x).data = (data_map)[(x).data]; \
    } while (0)

void ms_model_remap_bins(ms_model *m, const uint32_t *code_map, const uint32_t *data_map)
{
    for (size_t i = 0; i < m->ncells; i++) {
        ms_cell *c = &m->cells[i];
        REMAP(*c, code_map, data_map);
        for (size_t k = 0; k < c->nevicted_by; k++) REMAP(c->evicted_by[k], code_map, data_map);
        for (size_t k = 0; k < c->ninval_by; k++) REMAP(c->inval_by[k], code_map, data_map);
    }
    for (size_t i = 0; i < m->nlines; i++) REMAP(m->lines[i], code_map, data_map);
    for (size_t i = 0; i < m->nrefs; i++) REMAP(m->refs[i], code_map, data_map);
    for (size_t i = 0; code_map && i < m->nparts; i++) m->parts[i].code = code_map[m->parts[i].code];
}

size_t ms_references_fold(ms_reference_stat *rows, size_t n)
{
    if (n) qsort(rows, n, sizeof *rows, ms_reference_key_order);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && ms_reference_key_order(&rows[out - 1], &rows[i]) == 0)
            ms_counters_add(&rows[out - 1].c, &rows[i].c);
        else
            rows[out++] = rows[i];
    }
    return out;
}

int ms_reference_order(const void *a, const void *b)
{
    const ms_reference_stat *x = a, *y = b;
    /* Coherence traffic first: the misses an invalidation caused plus those received. */
    uint64_t cx = ms_counters_l1_coherence(&x->c) + x->c.inval.received;
    uint64_t cy = ms_counters_l1_coherence(&y->c) + y->c.inval.received;
    if (cx != cy) return cx < cy ? 1 : -1;
    uint64_t mx = ms_counters_misses(&x->c, 0), my = ms_counters_misses(&y->c, 0);
    if (mx != my) return mx < my ? 1 : -1;
    return ms_reference_key_order(a, b);
}

/* Add one invalidation cause into the merged list (keyed by code, data and cpu). */
static int merge_invalidator(ms_selection_sum *s, size_t *cap, const ms_invalidator *e)
{
    for (size_t i = 0; i < s->ninval_by; i++) {
        ms_invalidator *x = &s->inval_by[i];
        if (x->code == e->code && x->data == e->data && x->cpu == e->cpu) {
            x->count += e->count;
            return 0;
        }
    }
    if (s->ninval_by == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        ms_invalidator *p = realloc(s->inval_by, ncap * sizeof *p);
        if (!p) return -1;
        s->inval_by = p;
        *cap = ncap;
    }
    s->inval_by[s->ninval_by++] = *e;
    return 0;
}

int ms_model_sum(const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas, size_t ndatas,
                 ms_selection_sum *out)
{
    memset(out, 0, sizeof *out);
    size_t cap = 0, icap = 0;
    for (size_t i = 0; i < m->ncells; i++) {
        const ms_cell *cell = &m->cells[i];
        if (!index_selected(cell->code, codes, ncodes) || !index_selected(cell->data, datas, ndatas)) continue;
        ms_counters_add(&out->c, &cell->c);
        out->ncells++;
        for (size_t k = 0; k < cell->nevicted_by; k++) {
            if (merge_evictor(out, &cap, &cell->evicted_by[k]) < 0) {
                ms_selection_sum_free(out);
                return -1;
            }
        }
        for (size_t k = 0; k < cell->ninval_by; k++) {
            if (merge_invalidator(out, &icap, &cell->inval_by[k]) < 0) {
                ms_selection_sum_free(out);
                return -1;
            }
        }
    }
    if (out->nevicted_by > 1) qsort(out->evicted_by, out->nevicted_by, sizeof *out->evicted_by, ms_evictor_order);
    if (out->ninval_by > 1) qsort(out->inval_by, out->ninval_by, sizeof *out->inval_by, ms_invalidator_order);
    return 0;
}

void ms_selection_sum_free(ms_selection_sum *s)
{
    free(s->evicted_by);
    free(s->inval_by);
    memset(s, 0, sizeof *s);
}

/* Sum cells into n per-bin counters, the bin chosen by pick (code or data index). */
static int bin_totals(const ms_model *m, size_t n, int by_code, ms_counters **out)
{
    ms_counters *t = calloc(n ? n : 1, sizeof *t);
    if (!t) return -1;
    for (size_t i = 0; i < m->ncells; i++) {
        uint32_t b = by_code ? m->cells[i].code : m->cells[i].data;
        if (b < n) ms_counters_add(&t[b], &m->cells[i].c);
    }
    *out = t;
    return 0;
}

int ms_model_code_totals(const ms_model *m, ms_counters **out) { return bin_totals(m, m->ncode, 1, out); }
int ms_model_data_totals(const ms_model *m, ms_counters **out) { return bin_totals(m, m->ndata, 0, out); }

/* Three passes over n names: exact short name, exact long name, glob on either. */
typedef const char *(*name_of_fn)(const ms_model *m, size_t i, int full);

static size_t find_bins(const ms_model *m, size_t n, name_of_fn name_of, const char *pattern, uint32_t *idx, size_t cap)
{
    size_t found = 0;
    for (int pass = 0; pass < 3 && found == 0; pass++) {
        for (size_t i = 0; i < n; i++) {
            const char *shortn = name_of(m, i, 0), *fulln = name_of(m, i, 1);
            int hit;
            if (pass == 0)
                hit = shortn && strcmp(shortn, pattern) == 0;
            else if (pass == 1)
                hit = fulln && strcmp(fulln, pattern) == 0;
            else
                hit = (shortn && fnmatch(pattern, shortn, 0) == 0) || (fulln && fnmatch(pattern, fulln, 0) == 0);
            if (!hit) continue;
            if (found < cap) idx[found] = (uint32_t)i;
            found++;
        }
    }
    return found;
}

static const char *code_name(const ms_model *m, size_t i, int full) { return full ? NULL : m->code[i].name; }

static const char *data_name(const ms_model *m, size_t i, int full)
{
    return full ? m->data[i].full_name : m->data[i].name;
}

size_t ms_model_find_code(const ms_model *m, const char *pattern, uint32_t *idx, size_t cap)
{
    return find_bins(m, m->ncode, code_name, pattern, idx, cap);
}

size_t ms_model_find_data(const ms_model *m, const char *pattern, uint32_t *idx, size_t cap)
{
    return find_bins(m, m->ndata, data_name, pattern, idx, cap);
}

const char *ms_waitclass_name(int cls)
{
    static const char *const names[MS_WAITCLASSES] = { "load_imbalance", "insufficient_parallelism", "communication",
                                                       "idle_thread" };
    return cls >= 0 && cls < MS_WAITCLASSES ? names[cls] : "?";
}

/* "32K", "1M", "1536": a size in the largest unit that divides it. */
static void size_text(uint64_t bytes, char *buf, size_t len)
{
    static const char units[] = "KMG";
    int u = -1;
    while (u < 2 && bytes >= 1024 && bytes % 1024 == 0) {
        bytes /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, len, "%llu", (unsigned long long)bytes);
    else
        snprintf(buf, len, "%llu%c", (unsigned long long)bytes, units[u]);
}

void ms_model_config_summary(const ms_model *m, char *buf, size_t len)
{
    const ms_hier_config *c = &m->config;
    size_t used = 0;
#define ADD(...)                                                                              \
    do {                                                                                      \
        int n_ = snprintf(buf + used, used < len ? len - used : 0, __VA_ARGS__);              \
        if (n_ > 0) used = used + (size_t)n_ < len ? used + (size_t)n_ : (len ? len - 1 : 0); \
    } while (0)
    if (len) buf[0] = '\0';
    if (m->mtool) { /* no hierarchy was simulated: say what the estimate assumed instead */
        ADD("MTOOL: ideal memory on llvm-mca's %s, no cache simulated",
            m->mtool->cpu_model ? m->mtool->cpu_model : "?");
        return;
    }
    ADD("%s:", c->preset[0] ? c->preset : "custom");
    uint32_t nprocs = m->nprocs > 1 ? m->nprocs : c->nprocs;
    int shared = nprocs > 1 ? ms_config_shared_from(c) : c->nlevels;
    uint32_t line = 0;
    bool one_line = true;
    for (int k = 0; k < c->nlevels && k < MS_MAX_LEVELS; k++) {
        const ms_level_config *l = &c->level[k];
        char size[24], ways[16];
        size_text(l->size, size, sizeof size);
        if (l->line && (uint64_t)l->ways * l->line == l->size)
            snprintf(ways, sizeof ways, "fa");
        else if (l->ways == 1)
            snprintf(ways, sizeof ways, "dm");
        else
            snprintf(ways, sizeof ways, "%u", l->ways);
        ADD(" L%d %s/%s%s", k + 1, size, ways, k >= shared ? " shared" : "");
        if (k && l->line != line) one_line = false;
        line = l->line;
    }
    if (one_line && c->nlevels > 0) ADD(", %uB lines", c->level[0].line);
    if (nprocs > 1) {
        ADD(", %u cpus, %s, %uB unit", nprocs, c->protocol == MS_PROTO_MSI ? "MSI" : "MESI",
            ms_config_coherence_unit(c));
        if (c->nnodes > 1) ADD(", %u nodes", c->nnodes);
    }
#undef ADD
}
