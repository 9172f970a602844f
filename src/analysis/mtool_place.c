/* Where MTOOL's samples go; see mtool_place.h.
 *
 * A pc's inline scopes, outermost first: level 0 is the function compiled (the outermost
 * frame), level j the function inlined at a call in level j - 1's. A scope is interned by its
 * whole path (its parent scope, its function, the call's file and line), so one id at level j
 * names levels 0..j. A pc's position at level j is its frame's file and line there: the pc's
 * own line at the innermost level, the inlined call's line at the levels around it.
 *
 * A loop lives at the deepest level its executed blocks' labels share that holds three
 * quarters of its executed code (block_extent: the line table's rows of each block, weighed by
 * bytes and executions): level 0 for a loop of the function itself
 * (its lines: the plugin's statement lines, as before), deeper for a loop written in an
 * inlined function, whose lines are its blocks' code's positions at that level (the plugins
 * leave inlined statements out of a block's lines). A sample goes to the block whose label
 * precedes it where the timing run executes labelled code (clang's plain copies, functions
 * without copies); else to the deepest loop whose scope is one of the sample's and whose lines
 * hold the sample's position at that scope; else to its function.
 * MEMSPY_MTOOL_OUTERMOST=1 keeps level 0 alone and no address: every sample and loop placed
 * by the outermost frame's line, as before (docs/mtool.md: the figures before and after).
 * MEMSPY_MTOOL_PLACE_DUMP=1 prints each executed block's and each sample's scopes, positions
 * and loop on standard error. */
#include "mtool_place.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 16
#define NONE UINT32_MAX

typedef struct {
    uint32_t parent, next; /* next: the hash chain */
    char *fn, *file;       /* the function; the file of its call in the parent (NULL at level 0) */
    int line;
} scope;

typedef struct {
    uint32_t scope[MAX_LEVELS];
    const char *file[MAX_LEVELS];
    int line[MAX_LEVELS];
    int n;
} chain;

typedef struct {
    uint32_t scope, loop;
} scope_loop;

/* A block's label in the timing run's addresses: where the timing run executes the labelled
 * code (valid: clang's plain copy, or the body of a function without copies), or a label of
 * code it does not run (a stop: a sample after it is placed by its scopes). */
typedef struct {
    uint64_t addr;
    uint32_t block, valid;
} addr_label;

struct ms_mtool_places {
    const ms_model *m;
    size_t levels; /* MAX_LEVELS; 1 with MEMSPY_MTOOL_OUTERMOST (the outermost frame alone) */
    scope *scopes;
    size_t nscopes, cap;
    uint32_t heads[4096];
    uint32_t *placed;     /* per block: the loop its own position goes to */
    uint32_t *lscope;     /* per loop: the scope it is written in, NONE unknown */
    uint32_t *best_block; /* per loop: its own block executed most */
    uint32_t *fn_block;   /* per level-0 scope: the function's block for a sample in no loop */
    scope_loop *by_scope; /* loops sorted by scope */
    size_t nby;
    addr_label *at;  /* labels by address, in the timing run's */
    uint32_t *fn_of; /* per block: its function's (level-0) scope, NONE unknown */
    size_t nat;
};

static int same_text(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

static uint32_t hash(uint32_t parent, const char *fn, const char *file, int line)
{
    uint32_t h = 2166136261u ^ parent ^ ((uint32_t)line * 16777619u);
    for (const char *s = fn; s && *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    for (const char *s = file; s && *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h % 4096;
}

/* The scope (parent, fn, called at file:line): its id, interned when insert; NONE when absent
 * (or out of memory: *oom set). */
static uint32_t scope_id(ms_mtool_places *p, uint32_t parent, const char *fn, const char *file, int line, int insert,
                         int *oom)
{
    uint32_t h = hash(parent, fn, file, line);
    for (uint32_t k = p->heads[h]; k != NONE; k = p->scopes[k].next) {
        const scope *s = &p->scopes[k];
        if (s->parent == parent && s->line == line && same_text(s->fn, fn) && same_text(s->file, file)) return k;
    }
    if (!insert) return NONE;
    if (p->nscopes == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 256;
        scope *n = realloc(p->scopes, cap * sizeof *n);
        if (!n) return *oom = 1, NONE;
        p->scopes = n;
        p->cap = cap;
    }
    scope *s = &p->scopes[p->nscopes];
    s->fn = strdup(fn);
    s->file = file ? strdup(file) : NULL;
    if (!s->fn || (file && !s->file)) {
        free(s->fn);
        free(s->file);
        return *oom = 1, NONE;
    }
    s->parent = parent;
    s->line = line;
    s->next = p->heads[h];
    p->heads[h] = (uint32_t)p->nscopes;
    return (uint32_t)p->nscopes++;
}

/* The scopes and positions of y's frames into *c (outermost first; levels whose scope is not
 * interned are left out when !insert). Returns -1 when out of memory. */
static int chain_of(ms_mtool_places *p, ms_symbolizer *sym, const ms_sym *y, int insert, chain *c)
{
    int oom = 0;
    c->n = 0;
    size_t n = y ? y->nframes : 0;
    uint32_t parent = NONE;
    for (size_t j = 0; j < n && j < p->levels; j++) {
        const ms_frame *f = &y->frames[n - 1 - j];
        const ms_frame *call = j ? &y->frames[n - j] : NULL; /* the call in the level around */
        const char *fn = ms_symbolizer_readable(sym, f->func ? f->func : "??");
        uint32_t s = scope_id(p, parent, fn ? fn : "??", call ? call->file : NULL, call ? call->line : 0, insert, &oom);
        if (s == NONE) break;
        c->scope[j] = parent = s;
        c->file[j] = f->file;
        c->line[j] = f->line;
        c->n = (int)j + 1;
    }
    return oom ? -1 : 0;
}

static int cmp_scope_loop(const void *a, const void *b)
{
    const scope_loop *x = a, *y = b;
    return x->scope < y->scope ? -1 : x->scope > y->scope ? 1 : x->loop < y->loop ? -1 : x->loop > y->loop;
}

/* The loop c's position goes to: the deepest loop written in one of c's scopes whose lines
 * hold c's position there (equal depths: the one whose block ran most); NONE if none. */
static uint32_t place_chain(const ms_mtool_places *p, const chain *c)
{
    const ms_model *m = p->m;
    uint32_t best = NONE;
    for (int j = 0; j < c->n; j++) {
        size_t lo = 0, hi = p->nby;
        while (lo < hi) { /* the first loop of scope c->scope[j] */
            size_t mid = (lo + hi) / 2;
            if (p->by_scope[mid].scope < c->scope[j])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t k = lo; k < p->nby && p->by_scope[k].scope == c->scope[j]; k++) {
            uint32_t l = p->by_scope[k].loop;
            const ms_loop_stat *L = &m->loops[l];
            int same_file = !c->file[j] || !L->file || !strcmp(c->file[j], L->file);
            if (p->best_block[l] == NONE || !same_file || c->line[j] < L->line || c->line[j] > L->end_line) continue;
            if (best == NONE || L->depth > m->loops[best].depth ||
                (L->depth == m->loops[best].depth &&
                 m->blocks[p->best_block[l]].count > m->blocks[p->best_block[best]].count))
                best = l;
        }
    }
    return best;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* What the code of one block shares with its label: the bytes of it at each level of the
 * label's scopes, and at each level the least and greatest line of its positions there in the
 * label's file. */
typedef struct {
    uint64_t bytes[MAX_LEVELS], total;
    int lo[MAX_LEVELS], hi[MAX_LEVELS];
} extent;

/* Code at c (span bytes of it) into e: its lines and bytes at each level it shares with ref. */
static void extent_add(extent *e, const chain *ref, const chain *c, uint64_t span)
{
    e->total += span;
    for (int j = 0; j < c->n && j < ref->n && c->scope[j] == ref->scope[j]; j++) {
        e->bytes[j] += span;
        if (c->line[j] <= 0 || !same_text(c->file[j], ref->file[j])) continue;
        if (!e->lo[j] || c->line[j] < e->lo[j]) e->lo[j] = c->line[j];
        if (c->line[j] > e->hi[j]) e->hi[j] = c->line[j];
    }
}

/* *e: the extent of block rb (ref: its label's chain) over its code from its label in the
 * instrumented body to the next label (labels: every block's, sorted): the line table's rows
 * there, each symbolized and weighed by its bytes. The plugins leave statements inlined from a
 * callee out of a block's lines, and a label has one position (its first instruction's), which
 * may lie in a helper inlined into the loop rather than in the loop's own function (lz4's
 * LZ4HC_Insert loop, labelled in LZ4HC_hashPtr). The stretch to the next label may end in code
 * of another scope laid out after the block (clang's gather loop: its exit in main), hence the
 * loop's share of bytes (ms_mtool_places_new), not all of them. The body's label, not the copies': gcc's counting copy labels a
 * block after its count's update, which carries the block's first line, so that the stretch
 * before a label held the next block's first line (an inner loop's took its outer loop's
 * latch line). Returns -1 when out of memory. */
static int block_extent(ms_mtool_places *p, ms_symbolizer *sym, const ms_raw_block *rb, const uint64_t *labels,
                        size_t nlabels, const chain *ref, extent *e)
{
    memset(e, 0, sizeof *e);
    uint64_t lo = rb->pc ? rb->pc - 1 : 0, hi = lo + 65536, rows[256];
    size_t a = 0, b = nlabels;
    while (a < b) { /* the first label after lo */
        size_t mid = (a + b) / 2;
        if (labels[mid] <= lo)
            a = mid + 1;
        else
            b = mid;
    }
    if (a < nlabels && labels[a] < hi) hi = labels[a];
    size_t n = lo ? ms_symbolize_rows(sym, lo, hi, rows, sizeof rows / sizeof *rows) : 0;
    extent_add(e, ref, ref, n ? rows[0] - lo + (rows[0] == lo) : 1);
    for (size_t i = 0; i < n; i++) {
        const ms_sym *y = ms_symbolize(sym, rows[i], false);
        chain c;
        if (!y || chain_of(p, sym, y, 1, &c) < 0) return -1;
        uint64_t span = (i + 1 < n ? rows[i + 1] : hi) - rows[i];
        if (c.n)
            extent_add(e, ref, &c, span);
        else
            e->total += span;
    }
    return 0;
}

/* Rename loop l, written in the inlined scope s (level lv, file the reference block's), after
 * its function and the lines of its blocks' code there (their extents). Returns -1 when out
 * of memory. */
static int rename_loop(ms_mtool_places *p, ms_model *m, uint32_t l, uint32_t s, int lv, const char *file,
                       const chain *chains, const extent *ext)
{
    int line = 0, end = 0;
    for (size_t i = 0; i < m->nblocks; i++) {
        const chain *c = &chains[i];
        if (c->n <= lv || c->scope[lv] != s || !same_text(c->file[lv], file) || !ext[i].lo[lv]) continue;
        int in = 0;
        for (uint32_t k = m->blocks[i].loop, guard = 0; k < m->nloops && guard < m->nloops && !in;
             k = m->loops[k].parent, guard++)
            in = k == l;
        if (!in) continue;
        if (!line || ext[i].lo[lv] < line) line = ext[i].lo[lv];
        if (ext[i].hi[lv] > end) end = ext[i].hi[lv];
    }
    if (!line) return 0;
    const scope *top = &p->scopes[s];
    while (top->parent != NONE) top = &p->scopes[top->parent];
    size_t len = strlen(p->scopes[s].fn) + strlen(top->fn) + 16;
    char *name = malloc(len), *f = file ? strdup(file) : NULL;
    if (!name || (file && !f)) {
        free(name);
        free(f);
        return -1;
    }
    snprintf(name, len, "%s, inlined into %s", p->scopes[s].fn, top->fn);
    ms_loop_stat *L = &m->loops[l];
    free(L->function);
    free(L->file);
    L->function = name;
    L->file = f;
    L->line = line;
    L->end_line = end;
    return 0;
}

static int cmp_addr_label(const void *a, const void *b)
{
    const addr_label *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* addr (of counted's modules) in timed's: the module of the same path there, else 0. */
static uint64_t timed_addr(const ms_raw *counted, const ms_raw *timed, uint64_t addr)
{
    for (size_t i = 0; i < counted->nmodules; i++) {
        const ms_raw_module *c = &counted->modules[i];
        if (addr < c->lo || addr >= c->hi || !c->path) continue;
        for (size_t k = 0; k < timed->nmodules; k++)
            if (timed->modules[k].path && !strcmp(timed->modules[k].path, c->path))
                return addr - c->base + timed->modules[k].base;
        return 0;
    }
    return 0;
}

/* p->at: the labels of counted's blocks in timed's addresses, sorted. The LLVM plugin labels
 * the plain copy the timing run executes (gcc labels its counting copy instead, the plain
 * copy's code plus the counts: docs/plugin.md), told by the unit's producer; a function with
 * no copies runs its body in every mode. Returns -1 when out of memory. */
static int address_labels(ms_mtool_places *p, const ms_raw *counted, const ms_raw *timed, ms_symbolizer *sym)
{
    p->at = malloc((2 * counted->nblocks + 1) * sizeof *p->at);
    if (!p->at) return -1;
    const char *last = NULL;
    int clang = 0;
    for (size_t i = 0; i < counted->nblocks && i < p->m->nblocks; i++) {
        const ms_raw_block *rb = &counted->blocks[i];
        if (rb->plain_pc) {
            const char *producer = ms_symbolize_producer(sym, rb->plain_pc - 1);
            if (producer != last) clang = producer && strstr(producer, "clang") != NULL;
            last = producer;
            uint64_t a = timed_addr(counted, timed, rb->plain_pc - 1);
            if (a) p->at[p->nat++] = (addr_label){ a, (uint32_t)i, (uint32_t)clang };
        }
        uint64_t a = rb->pc ? timed_addr(counted, timed, rb->pc - 1) : 0;
        if (a) p->at[p->nat++] = (addr_label){ a, (uint32_t)i, rb->plain_pc == 0 };
    }
    qsort(p->at, p->nat, sizeof *p->at, cmp_addr_label);
    return 0;
}

int ms_mtool_places_new(const ms_raw *counted, const ms_raw *timed, ms_symbolizer *sym, ms_model *m,
                        ms_mtool_places **out)
{
    *out = NULL;
    ms_mtool_places *p = calloc(1, sizeof *p);
    size_t nb = m->nblocks, nl = m->nloops;
    chain *chains = calloc(nb ? nb : 1, sizeof *chains);
    uint32_t *level = calloc(nl ? nl : 1, sizeof *level), *ref = calloc(nl ? nl : 1, sizeof *ref);
    uint64_t *labels = calloc(2 * nb + 1, sizeof *labels);
    extent *ext = calloc(nb ? nb : 1, sizeof *ext);
    double *lbytes = calloc((nl ? nl : 1) * MAX_LEVELS, sizeof *lbytes), *ltotal = calloc(nl ? nl : 1, sizeof *ltotal);
    size_t nlabels = 0;
    int rc = -1;
    if (!p || !chains || !level || !ref || !labels || !ext || !lbytes || !ltotal) goto out;
    memset(p->heads, 0xff, sizeof p->heads);
    p->m = m;
    p->levels = getenv("MEMSPY_MTOOL_OUTERMOST") ? 1 : MAX_LEVELS; /* the placement before inline scopes */
    p->placed = malloc((nb ? nb : 1) * sizeof *p->placed);
    p->lscope = malloc((nl ? nl : 1) * sizeof *p->lscope);
    p->best_block = malloc((nl ? nl : 1) * sizeof *p->best_block);
    p->by_scope = malloc((nl ? nl : 1) * sizeof *p->by_scope);
    if (!p->placed || !p->lscope || !p->best_block || !p->by_scope) goto out;
    for (size_t l = 0; l < nl; l++) {
        p->lscope[l] = p->best_block[l] = NONE;
        ref[l] = NONE;
    }
    for (size_t i = 0; i < nb && i < counted->nblocks; i++) {
        const ms_raw_block *rb = &counted->blocks[i];
        if (rb->pc) labels[nlabels++] = rb->pc - 1;
        if (rb->plain_pc) labels[nlabels++] = rb->plain_pc - 1;
    }
    qsort(labels, nlabels, sizeof *labels, cmp_u64);
    /* each executed block's chain: at its first instruction in the copy the timing run runs
     * where the plugin labelled it (clang's plain copy, gcc's counting copy: the same code and
     * inline scopes), else in the body; a block in a loop, the extent of its code */
    for (size_t i = 0; i < nb && i < counted->nblocks; i++) {
        const ms_raw_block *rb = &counted->blocks[i];
        if (!rb->count) continue;
        uint64_t pc = rb->plain_pc ? rb->plain_pc : rb->pc;
        const ms_sym *y = pc ? ms_symbolize(sym, pc, true) : NULL;
        if (pc && !y) goto out;
        if (chain_of(p, sym, y, 1, &chains[i]) < 0) goto out;
        chain *c = &chains[i];
        if (c->n == 1 && m->blocks[i].line > 0) c->line[0] = m->blocks[i].line; /* the plugin's lines */
        uint32_t l = m->blocks[i].loop;
        if (l < nl && c->n > 1) {
            if (block_extent(p, sym, rb, labels, nlabels, c, &ext[i]) < 0) goto out;
        } else {
            extent one = { .total = 1 };
            for (int j = 0; j < c->n; j++) one.bytes[j] = 1;
            ext[i] = one;
        }
        if (l < nl && (p->best_block[l] == NONE || rb->count > m->blocks[p->best_block[l]].count))
            p->best_block[l] = (uint32_t)i;
        for (uint32_t guard = 0; l < nl && guard < nl && c->n; l = m->loops[l].parent, guard++) {
            for (int j = 0; j < c->n; j++)
                lbytes[(size_t)l * MAX_LEVELS + j] += (double)ext[i].bytes[j] * (double)rb->count;
            ltotal[l] += (double)ext[i].total * (double)rb->count;
            if (ref[l] == NONE) {
                ref[l] = (uint32_t)i;
                level[l] = (uint32_t)c->n;
                continue;
            }
            uint32_t k = level[l] < (uint32_t)c->n ? level[l] : (uint32_t)c->n;
            while (k && chains[ref[l]].scope[k - 1] != c->scope[k - 1]) k--;
            level[l] = k;
        }
    }
    /* a loop's level: the deepest its blocks' labels share that holds three quarters of its
     * executed code (bytes x executions) */
    for (uint32_t l = 0; l < nl; l++)
        while (level[l] > 1 && lbytes[(size_t)l * MAX_LEVELS + level[l] - 1] * 4 < ltotal[l] * 3) level[l]--;
    /* each loop's scope; a loop of an inlined function renamed after it */
    for (uint32_t l = 0; l < nl; l++) {
        if (ref[l] == NONE || !level[l]) continue;
        int lv = (int)level[l] - 1;
        p->lscope[l] = chains[ref[l]].scope[lv];
        p->by_scope[p->nby++] = (scope_loop){ p->lscope[l], l };
        if (lv > 0 && rename_loop(p, m, l, p->lscope[l], lv, chains[ref[l]].file[lv], chains, ext) < 0) goto out;
    }
    qsort(p->by_scope, p->nby, sizeof *p->by_scope, cmp_scope_loop);
    /* each function's block for samples in none of its loops: outside loops first, then the
     * block executed most */
    if (!(p->fn_block = malloc((p->nscopes ? p->nscopes : 1) * sizeof *p->fn_block))) goto out;
    for (size_t s = 0; s < p->nscopes; s++) p->fn_block[s] = NONE;
    for (size_t i = 0; i < nb; i++) {
        if (!chains[i].n) continue;
        uint32_t *fb = &p->fn_block[chains[i].scope[0]];
        const ms_block_stat *b = &m->blocks[i];
        int outside = b->loop >= nl, was = *fb != NONE && m->blocks[*fb].loop >= nl;
        if (*fb == NONE || outside > was || (outside == was && b->count > m->blocks[*fb].count)) *fb = (uint32_t)i;
    }
    if (!(p->fn_of = malloc((nb ? nb : 1) * sizeof *p->fn_of))) goto out;
    for (size_t i = 0; i < nb; i++) p->fn_of[i] = chains[i].n ? chains[i].scope[0] : NONE;
    if (timed && p->levels > 1 && address_labels(p, counted, timed, sym) < 0) goto out; /* (OUTERMOST: by line) */
    for (size_t i = 0; i < nb; i++) p->placed[i] = chains[i].n ? place_chain(p, &chains[i]) : NONE;
    for (size_t k = 0; k < p->nat; k++) /* a block placed by its address: its samples are its own */
        if (p->at[k].valid) p->placed[p->at[k].block] = m->blocks[p->at[k].block].loop;
    if (getenv("MEMSPY_MTOOL_PLACE_DUMP")) {
        for (size_t l = 0; l < nl; l++)
            fprintf(stderr, "loop %zu parent %u depth %u scope %u: %s %s:%d-%d\n", l, m->loops[l].parent,
                    m->loops[l].depth, p->lscope[l], m->loops[l].function, m->loops[l].file ? m->loops[l].file : "?",
                    m->loops[l].line, m->loops[l].end_line);
        for (size_t i = 0; i < nb; i++) {
            if (!chains[i].n) continue;
            fprintf(stderr, "block %zu loop %u placed %u count %llu:", i, m->blocks[i].loop, p->placed[i],
                    (unsigned long long)m->blocks[i].count);
            for (int j = 0; j < chains[i].n; j++)
                fprintf(stderr, " [%s %s:%d]", p->scopes[chains[i].scope[j]].fn, chains[i].file[j], chains[i].line[j]);
            fprintf(stderr, "\n");
        }
    }
    rc = 0;
out:
    free(chains);
    free(level);
    free(ref);
    free(labels);
    free(ext);
    free(lbytes);
    free(ltotal);
    if (rc < 0)
        ms_mtool_places_free(p);
    else
        *out = p;
    return rc;
}

const uint32_t *ms_mtool_places_loops(const ms_mtool_places *p) { return p->placed; }

size_t ms_mtool_place_pc(ms_mtool_places *p, ms_symbolizer *sym, uint64_t pc)
{
    const ms_sym *y = ms_symbolize(sym, pc, false);
    chain c;
    if (!y || chain_of(p, sym, y, 0, &c) < 0) return SIZE_MAX - 1;
    if (!c.n) return SIZE_MAX;
    size_t a = 0, b = p->nat;
    while (a < b) { /* the first label after pc */
        size_t mid = (a + b) / 2;
        if (p->at[mid].addr <= pc)
            a = mid + 1;
        else
            b = mid;
    }
    if (a && p->at[a - 1].valid && pc - p->at[a - 1].addr < 65536) { /* in a labelled block of its function */
        uint32_t blk = p->at[a - 1].block;
        if (p->fn_of[blk] == c.scope[0]) {
            if (getenv("MEMSPY_MTOOL_PLACE_DUMP"))
                fprintf(stderr, "pc %llx block %u by address\n", (unsigned long long)pc, blk);
            return blk;
        }
    }
    uint32_t l = place_chain(p, &c);
    if (getenv("MEMSPY_MTOOL_PLACE_DUMP")) {
        fprintf(stderr, "pc %llx loop %u:", (unsigned long long)pc, l);
        for (int j = 0; j < c.n; j++) fprintf(stderr, " [%s %s:%d]", p->scopes[c.scope[j]].fn, c.file[j], c.line[j]);
        fprintf(stderr, "\n");
    }
    if (l != NONE) return p->best_block[l];
    return p->fn_block[c.scope[0]] != NONE ? p->fn_block[c.scope[0]] : SIZE_MAX;
}

void ms_mtool_places_free(ms_mtool_places *p)
{
    if (!p) return;
    for (size_t s = 0; s < p->nscopes; s++) {
        free(p->scopes[s].fn);
        free(p->scopes[s].file);
    }
    free(p->scopes);
    free(p->placed);
    free(p->lscope);
    free(p->best_block);
    free(p->fn_block);
    free(p->by_scope);
    free(p->at);
    free(p->fn_of);
    free(p);
}
