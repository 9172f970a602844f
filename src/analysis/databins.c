/* Data bins and their names (MemSpy section 5.2): heap bins are named from the allocation
 * destinations the compiler plugins recorded (dests.c; never from the source text), walking
 * the call path outwards when two bins would share a name; globals by their (DWARF) name;
 * stack frames by function, and their variables by function and name. */
#define _GNU_SOURCE /* qsort_r */
#include "databins.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyze.h"
#include "libbins.h"
#include "ompnames.h"
#include "../util/strbuf.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static char *site_text(const char *file, int line) { return file ? ms_strprintf("%s:%d", file, line) : NULL; }

/* ---- heap bins ---- */

/* A heap bin's logical call path and the names its statements give. */
typedef struct {
    const ms_frame **frames; /* innermost (the allocation statement) first */
    const ms_dest **dests;   /* per frame, the destination record of its pc's call, NULL none */
    size_t *inl;             /* per frame, its index among its pc's frames (the record's level) */
    const ms_sym **syms;     /* per frame, its pc's symbolization */
    char **names;            /* per frame, NULL if that statement names nothing */
    size_t nframes, level;   /* level: frame whose name is used; nframes if none */
    bool library;            /* allocated by a library's code (names[0]: heap:LIBRARY:ENTRY) */
} heap_path;

static void heap_path_free(heap_path *h)
{
    for (size_t i = 0; i < h->nframes; i++) free(h->names[i]);
    free(h->names);
    free(h->frames);
    free(h->dests);
    free(h->inl);
    free(h->syms);
}

static int append_frames(heap_path *h, size_t *cap, const ms_sym *sym, const ms_dests *dests)
{
    if (!sym) return -1;
    if (h->nframes + sym->nframes > *cap) {
        size_t n = *cap ? *cap : 8;
        while (n < h->nframes + sym->nframes) n *= 2;
        const ms_frame **p = realloc(h->frames, n * sizeof *p);
        const ms_dest **r = realloc(h->dests, n * sizeof *r);
        size_t *l = realloc(h->inl, n * sizeof *l);
        const ms_sym **y = realloc(h->syms, n * sizeof *y);
        if (p) h->frames = p;
        if (r) h->dests = r;
        if (l) h->inl = l;
        if (y) h->syms = y;
        if (!p || !r || !l || !y) return -1;
        *cap = n;
    }
    const ms_dest *rec = ms_dests_find(dests, sym->frames, sym->nframes, sym->pc);
    for (size_t i = 0; i < sym->nframes; i++) {
        h->dests[h->nframes] = rec;
        h->inl[h->nframes] = i;
        h->syms[h->nframes] = sym;
        h->frames[h->nframes++] = &sym->frames[i];
    }
    return 0;
}

static size_t next_named(const heap_path *h, size_t from)
{
    size_t i = from;
    while (i < h->nframes && !h->names[i]) i++;
    return i;
}

/* Whether the value named at frame i (or the object a member name puts it in) may reach frame
 * j > i: each level on the way lets it out (ms_dest_leaves) and each call of the program's own
 * code on the way returns a pointer the plugin recorded. Past a frame that keeps the value
 * (Lua's interpreter loop, storing its tables in its stack), the names of the outer calls are
 * about other values (`ci = luaD_precall(...)` around the interpreter). */
static bool reaches(const heap_path *h, size_t i, size_t j)
{
    for (size_t m = i; m < j && m + 1 < h->nframes; m++) {
        if (!ms_dest_leaves(h->dests[m], h->inl[m])) return false;
        const ms_frame *f = h->frames[m + 1];
        if (!h->dests[m + 1] && f->file && !f->module && !ms_source_is_system(f->file)) return false;
    }
    return true;
}

/* Whether names a and b are one member of objects that two functions call differently
 * ("t.node" in a function that fills a table's node array, "newt.node" in its caller that
 * passes its local): the outer name says no more than the inner. */
static bool same_member(const char *a, const char *b)
{
    const char *x = strrchr(a, '.'), *y = strrchr(b, '.');
    return x && y && x != a && y != b && strcmp(x, y) == 0 && !strstr(x, "[]");
}

/* Whether outer names the member inner names, of an object: "s.state_" for "state_" (a
 * constructor's member, inlined into the function whose local it builds). */
static bool seen_outside(const char *inner, const char *outer)
{
    const char *m = strrchr(inner, '.');
    m = m ? m + 1 : inner;
    size_t n = strlen(m), o = strlen(outer);
    return n && o > n + 1 && outer[o - n - 1] == '.' && strcmp(outer + o - n, m) == 0;
}

/* The name frame i gives: what the compiler recorded about the call's destination at this
 * frame's level; NULL where nothing was recorded (code built without memspy's plugins, the
 * ThreadSanitizer fallback) or the record names nothing here. *passed_out: the value leaves
 * the frame's function (stored further out, or returned). */
static char *frame_name(const heap_path *h, size_t i, bool *passed_out)
{
    size_t level = h->inl[i];
    *passed_out = ms_dest_passed_out(h->dests[i], level);
    return ms_dest_name(h->dests[i], level);
}

/* A block allocated by code of a library without DWARF (frame 0's module): "heap:LIBRARY:
 * ENTRY", the library's entry point on the call path: the outermost function of the library's
 * run of frames that it exports (the function the program called), else the outermost its
 * symbol table names, "heap:LIBRARY" where none is named. */
static char *library_heap_name(const heap_path *h)
{
    const char *module = h->frames[0]->module, *exported = NULL, *named = NULL;
    for (size_t i = 0; i < h->nframes && h->frames[i]->module && !strcmp(h->frames[i]->module, module); i++) {
        if (h->frames[i]->exported) exported = h->frames[i]->symbol;
        if (h->frames[i]->symbol) named = h->frames[i]->symbol;
    }
    if (exported) return ms_strprintf("heap:%s:%s", module, exported);
    return named ? ms_strprintf("heap:%s:%s", module, named) : ms_strprintf("heap:%s", module);
}

/* Where the function of frame i (its call's outermost level) stores the value through a
 * pointer parameter (`*coder_ptr = malloc(...)`), the caller's frames take the record of the
 * argument it passed there (`create(&lz->coder)`: lz.coder), and so on out while a caller passes
 * on a parameter of its own. */
static void follow_out_params(heap_path *h, const ms_dests *dests)
{
    for (size_t i = 0; i + 1 < h->nframes; i++) {
        const ms_dest *r = h->dests[i];
        int arg = ms_dest_out_param(r, h->inl[i]);
        if (arg < 0 || h->inl[i + 1] != 0 || h->syms[i] == h->syms[i + 1]) continue;
        const ms_sym *caller = h->syms[i + 1];
        const ms_dest *a = ms_dests_find_arg(dests, caller->frames, caller->nframes, caller->pc, arg);
        for (size_t j = i + 1; a && j < h->nframes && h->syms[j] == caller; j++) h->dests[j] = a;
    }
}

static int build_heap_path(const ms_raw_bin *b, ms_symbolizer *sym, const ms_dests *dests, bool returned, heap_path *h)
{
    size_t cap = 0;
    memset(h, 0, sizeof *h);
    if (append_frames(h, &cap, ms_symbolize(sym, b->pc, true), dests) != 0) return -1;
    for (size_t d = b->depth; d-- > 0;)
        if (append_frames(h, &cap, ms_symbolize(sym, b->path[d], true), dests) != 0) return -1;
    follow_out_params(h, dests);
    h->names = calloc(h->nframes ? h->nframes : 1, sizeof *h->names);
    bool *out = calloc(h->nframes ? h->nframes : 1, sizeof *out);
    if (!h->names || !out) {
        free(out);
        return -1;
    }
    size_t from = 0;                          /* the first frame of the program's code */
    if (h->nframes && h->frames[0]->module) { /* allocated in a library without DWARF */
        h->library = true;
        h->names[0] = library_heap_name(h);
        while (from < h->nframes && h->frames[from]->module && !strcmp(h->frames[from]->module, h->frames[0]->module))
            from++;
        /* Not the block the call returns: the library's name, unless the program called the
         * library on an object (`data_.append(piece)`: a string the library grows for it). */
        bool for_object = from < h->nframes && ms_dest_names_object(h->dests[from]);
        if (!h->names[0] || (!returned && !for_object)) {
            free(out);
            h->level = 0;
            return h->names[0] ? 0 : -1;
        }
    }
    bool program_inside = false; /* a frame of the program's own code inside frame i */
    for (size_t i = from; i < h->nframes; i++) {
        const ms_frame *f = h->frames[i];
        /* The object a member function is called on names what the call allocates through
         * the library and system headers only (`data_.append(piece)`, `std::vector<double>
         * v(n)`), not all that the program's code inside it allocates (leveldb's
         * `benchmark.Run()`). */
        bool object_too_far = program_inside && ms_dest_names_object(h->dests[i]);
        if (!f->file) /* no line information: what the record of its call names */
            h->names[i] = object_too_far ? NULL : ms_dest_best_name(h->dests[i], &out[i]);
        else if (!ms_source_is_system(f->file) && !object_too_far)
            h->names[i] = frame_name(h, i, &out[i]);
        program_inside |= f->file && !ms_source_is_system(f->file) && !f->module;
    }
    /* Where a call's struct result goes (`Status s = DB::Open(...)`) names the block only as
     * the part of it that the nearest named frame inside returns (zstd's dstBuff.start): else
     * it is about another value (leveldb's blocks allocated inside DB::Open were Status.s). */
    for (size_t i = from, inner = SIZE_MAX; i < h->nframes; i++) {
        if (!h->names[i]) continue;
        if (ms_dest_aggregate(h->dests[i], h->inl[i])) {
            char *part = inner == SIZE_MAX
                             ? NULL
                             : ms_dest_returned_part(h->dests[inner], h->inl[inner], h->dests[i], h->inl[i]);
            bool keep = part != NULL;
            free(part);
            if (!keep) {
                free(h->names[i]);
                h->names[i] = NULL;
                continue;
            }
        }
        inner = i;
    }
    /* A wrapper's name (its value passed out) gives way to a name further out; a part of an
     * aggregate it returns by value, to the caller's destination with the part. */
    for (size_t i = 0; i < h->nframes; i++) {
        size_t next = out[i] && h->names[i] ? next_named(h, i + 1) : h->nframes;
        if (next == h->nframes || !reaches(h, i, next)) continue;
        char *part = ms_dest_returned_part(h->dests[i], h->inl[i], h->dests[next], h->inl[next]);
        if (part) {
            free(h->names[next]);
            h->names[next] = part;
        }
        free(h->names[i]);
        h->names[i] = NULL;
    }
    free(out);
    h->level = next_named(h, from);
    /* The locals of the functions that return the block (a constructor's `o`, Lua's luaH_new)
     * give way to the type a caller that keeps it in an unnamed slot names it by ("Table"), or
     * to the field or element a caller stores it in (Lua's luaF_newproto stored by addprototype
     * as `f->p[fs->np++] = clp`: f.p[], not luaC_newobj's `o`). */
    for (size_t j = h->level + 1; h->level < h->nframes && j < h->nframes && reaches(h, j - 1, j); j++) {
        if (h->names[j - 1] && !ms_dest_local(h->dests[j - 1], h->inl[j - 1])) break;
        if (h->names[j] && (ms_dest_in_slot(h->dests[j], h->inl[j]) || !ms_dest_local(h->dests[j], h->inl[j]))) {
            h->level = j;
            break;
        }
    }
    if (h->library && h->level == h->nframes) h->level = 0; /* the caller stores it nowhere named */
    return 0;
}

/* The allocation statement: the innermost frame with user source. */
static const ms_frame *heap_site(const heap_path *h)
{
    for (size_t i = 0; i < h->nframes; i++)
        if (h->frames[i]->file && !ms_source_is_system(h->frames[i]->file)) return h->frames[i];
    return NULL;
}

static const char *heap_short(const heap_path *h) { return h->level < h->nframes ? h->names[h->level] : NULL; }

static int cmp_by_short(const void *a, const void *b, void *paths)
{
    const char *x = heap_short(&((const heap_path *)paths)[*(const size_t *)a]);
    const char *y = heap_short(&((const heap_path *)paths)[*(const size_t *)b]);
    if (!x || !y) return (x == NULL) - (y == NULL);
    return strcmp(x, y);
}

/* While two heap bins share a short name, move each to the name found further out on its
 * call path (MemSpy's NewMatrix case: `double *Y = NewMatrix(n)` names the matrix). */
static int disambiguate(heap_path *paths, size_t n)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return -1;
    for (bool moved = true; moved;) {
        moved = false;
        for (size_t i = 0; i < n; i++) order[i] = i;
        qsort_r(order, n, sizeof *order, cmp_by_short, paths);
        for (size_t i = 0; i < n;) {
            size_t j = i + 1;
            while (j < n && heap_short(&paths[order[i]]) && cmp_by_short(&order[i], &order[j], paths) == 0) j++;
            for (size_t k = i; j - i > 1 && k < j; k++) {
                heap_path *h = &paths[order[k]];
                size_t next = next_named(h, h->level + 1);
                const ms_dest *r = h->dests[h->level];
                size_t l = h->inl[h->level];
                /* a member of an object the caller keeps: the caller's variable.member */
                char *member = next < h->nframes ? ms_dest_member_of(r, l, h->dests[next], h->inl[next]) : NULL;
                /* from a slot that keeps the block (its type names it: Lua's TString from
                 * every caller) only to a field or element that holds it too (l_G.tmname[]),
                 * not to a caller's local; not to a caller's object of the same member; from a
                 * place the function stores it in (an arena's `blocks_[]` from two callers)
                 * only as a member of the caller's object, or to that member seen from the
                 * function it is inlined into (`state_` in a constructor: `s.state_`): the
                 * clash's suffixes tell the callers apart */
                bool stored = !ms_dest_local(r, l) && !ms_dest_passed_out(r, l) && !ms_dest_in_slot(r, l);
                if (next < h->nframes && reaches(h, h->level, next) &&
                    (!stored || member || seen_outside(h->names[h->level], h->names[next])) &&
                    (!ms_dest_in_slot(r, l) || !ms_dest_local(h->dests[next], h->inl[next]) ||
                     ms_dest_in_slot(h->dests[next], h->inl[next])) &&
                    !same_member(h->names[h->level], h->names[next])) {
                    if (member) {
                        free(h->names[next]);
                        h->names[next] = member;
                    }
                    h->level = next;
                    moved = true;
                    member = NULL;
                }
                free(member);
            }
            i = j;
        }
    }
    free(order);
    return 0;
}

static char *heap_full_name(const heap_path *h, const char *short_name)
{
    ms_strbuf s = MS_STRBUF_INIT;
    /* Start at the outermost frame with user source: drop libc's start-up frames. */
    size_t outer = h->nframes;
    while (outer > 0 && (!h->frames[outer - 1]->file || ms_source_is_system(h->frames[outer - 1]->file))) outer--;
    if (outer == 0) outer = h->nframes;
    for (size_t i = outer; i-- > 0;) {
        const ms_frame *f = h->frames[i];
        if (f->line)
            ms_strbuf_addf(&s, "%s:%d>", f->func, f->line);
        else
            ms_strbuf_addf(&s, "%s>", f->func);
    }
    ms_strbuf_adds(&s, short_name);
    return ms_strbuf_take(&s);
}

static int name_heap_bin(const ms_raw_bin *b, const heap_path *h, ms_data_bin *d)
{
    const ms_frame *site = heap_site(h);
    d->kind = MS_BIN_HEAP;
    d->objects = b->objects;
    d->bytes = b->bytes;
    d->peak_bytes = b->peak_bytes;
    d->site = site ? site_text(site->file, site->line) : NULL;
    if (heap_short(h))
        d->name = strdup(heap_short(h));
    else if (site)
        d->name = ms_strprintf("heap@%s:%d", base_name(site->file), site->line);
    else if (h->nframes && strcmp(h->frames[0]->func, "??") != 0) /* no lines: the function */
        d->name = ms_strprintf("heap@%s", h->frames[0]->func);
    else
        d->name = strdup("heap@??");
    d->full_name = d->name ? heap_full_name(h, d->name) : NULL;
    return d->name && d->full_name && (d->site || !site) ? 0 : -1;
}

/* A file mapped by the program: "mmap:FILE" (the file's base name), with the call path of
 * the mmap call in the full name. Filed under HEAP in the model: a dynamic allocation. */
static int name_mmap_bin(const ms_raw_bin *b, const heap_path *h, ms_data_bin *d)
{
    const ms_frame *site = heap_site(h);
    d->kind = MS_BIN_HEAP;
    d->objects = b->objects;
    d->bytes = b->bytes;
    d->peak_bytes = b->peak_bytes;
    d->site = site ? site_text(site->file, site->line) : NULL;
    d->name = ms_strprintf("mmap:%s", b->name && *b->name ? base_name(b->name) : "?");
    d->full_name = d->name ? heap_full_name(h, d->name) : NULL;
    return d->name && d->full_name && (d->site || !site) ? 0 : -1;
}

/* Memory of no known object, by mapping: "other:LABEL" ("other:[heap]", "other:libc.so.6"),
 * the mapping's whole path in the full name; malloc's bookkeeping is heap:headers; a file
 * mapped read-only (a module's .rodata: string literals, the compilers' constants) is
 * "const:FILE", read-only data of static extent (GLOBAL). */
static int name_mapping_bin(const ms_raw_bin *b, ms_data_bin *d)
{
    const char *label = b->name && *b->name ? b->name : "[anon]";
    if (strcmp(label, MS_RAW_LABEL_HEAP_HEADERS) == 0) { /* malloc's bookkeeping: heap memory */
        d->kind = MS_BIN_HEAP;
        d->name = strdup(MS_HEAP_HEADERS_NAME);
        d->full_name = strdup(MS_HEAP_HEADERS_NAME);
        return d->name && d->full_name ? 0 : -1;
    }
    size_t ro = strlen(MS_RAW_LABEL_READONLY);
    if (strncmp(label, MS_RAW_LABEL_READONLY, ro) == 0) {
        d->kind = MS_BIN_GLOBAL;
        d->name = ms_strprintf("const:%s", base_name(label + ro));
        d->full_name = ms_strprintf("const:%s", label + ro);
        return d->name && d->full_name ? 0 : -1;
    }
    d->kind = MS_BIN_OTHER;
    d->name = ms_strprintf("other:%s", base_name(label));
    d->full_name = ms_strprintf("other:%s", label);
    return d->name && d->full_name ? 0 : -1;
}

int ms_data_bin_rename(ms_data_bin *b, char *name, char *full)
{
    if (!name || !full) {
        free(name);
        free(full);
        return -1;
    }
    free(b->name);
    free(b->full_name);
    b->name = name;
    b->full_name = full;
    return 0;
}

/* The functions of paths[0..n)'s frames that DWARF shows to be member functions of a class
 * (ms_frame.member; with repeats), for the clash names; *count of them. NULL if out of memory. */
static const char **member_functions(const heap_path *paths, size_t n, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++) total += paths[i].nframes;
    const char **out = malloc((total ? total : 1) * sizeof *out);
    *count = 0;
    for (size_t i = 0; out && i < n; i++)
        for (size_t k = 0; k < paths[i].nframes; k++)
            if (paths[i].frames[k]->member) out[(*count)++] = paths[i].frames[k]->func;
    return out;
}

/* ---- globals, stack, other ---- */

/* gcc names function statics "var.N" in the symbol table: drop the ".N". */
static char *strip_static_suffix(const char *name)
{
    char *s = strdup(name ? name : "global");
    char *dot = s ? strrchr(s, '.') : NULL;
    if (dot && dot[1] && dot != s) {
        const char *p = dot + 1;
        while (isdigit((unsigned char)*p)) p++;
        if (*p == '\0') *dot = '\0';
    }
    return s;
}

static int name_global_bin(const ms_raw_bin *b, ms_symbolizer *sym, ms_data_bin *d)
{
    const char *dw_name, *scope, *file;
    int line;
    d->kind = MS_BIN_GLOBAL;
    d->bytes = b->size;
    d->objects = 1;
    if (ms_symbolize_global(sym, b->addr, &dw_name, &scope, &file, &line) == 0 && dw_name && *dw_name) {
        d->name = scope ? ms_strprintf("%s::%s", scope, dw_name) : strdup(dw_name);
        d->site = site_text(file, line);
        if (file && !d->site) return -1;
    } else {
        d->name = strip_static_suffix(ms_symbolizer_readable(sym, b->name));
    }
    d->full_name = d->name ? strdup(d->name) : NULL;
    return d->name && d->full_name ? 0 : -1;
}

/* A global's compilation unit's base name, "" unknown. */
typedef struct {
    const ms_data_bin *d;
    const char **unit;
} unit_order;

static int cmp_global_units(const void *a, const void *b, void *ctx)
{
    const unit_order *o = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(o->d[i].name, o->d[j].name);
    if (!c) c = strcmp(o->unit[i], o->unit[j]);
    return c ? c : (i > j) - (i < j);
}

/* Globals of one name defined in different compilation units (a header's `static const`
 * table included by two files, zstd's BIT_mask): each is NAME@UNIT, the unit's file that says
 * why, where #N said nothing; none keeps the plain name (a lookup by it lists them). Returns 0
 * or -1 (out of memory). */
static int name_unit_clashes(const ms_raw_bin *bins, ms_data_bin *d, size_t n, ms_symbolizer *sym)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx), ng = 0;
    const char **unit = calloc(n ? n : 1, sizeof *unit);
    int rc = idx && unit ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        unit[i] = "";
        if (bins[i].kind != MS_BIN_GLOBAL || d[i].kind != MS_BIN_GLOBAL || !d[i].name) continue;
        const char *u = NULL;
        if (ms_symbolize_global_unit(sym, bins[i].addr, &u) == 0 && u) unit[i] = base_name(u);
        idx[ng++] = i;
    }
    unit_order o = { d, unit };
    if (rc == 0) qsort_r(idx, ng, sizeof *idx, cmp_global_units, &o);
    for (size_t g = 0; g < ng && rc == 0;) {
        size_t e = g + 1;
        while (e < ng && !strcmp(d[idx[g]].name, d[idx[e]].name)) e++;
        bool units = false; /* of more than one unit */
        for (size_t k = g + 1; k < e; k++) units |= strcmp(unit[idx[k]], unit[idx[g]]) != 0;
        for (size_t k = g; units && k < e && rc == 0; k++) {
            ms_data_bin *b = &d[idx[k]];
            if (!*unit[idx[k]]) continue;
            char *name = ms_strprintf("%s@%s", b->name, unit[idx[k]]);
            rc = ms_data_bin_rename(b, name, name ? strdup(name) : NULL);
        }
        g = e;
    }
    free(idx);
    free(unit);
    return rc;
}

/* A thread-local variable (one bin for every thread's copy): its DWARF name, qualified by
 * its function if it is a function-local static, else its symbol's name. Filed under GLOBAL
 * in the model: a named variable of static extent. */
static int name_tls_bin(const ms_raw_bin *b, ms_symbolizer *sym, ms_data_bin *d)
{
    const char *dw_name, *scope, *file;
    int line;
    d->kind = MS_BIN_GLOBAL;
    d->bytes = b->size;
    d->objects = 1;
    if (ms_symbolize_tls(sym, b->module, b->addr, &dw_name, &scope, &file, &line) == 0 && dw_name) {
        d->name = scope ? ms_strprintf("%s::%s", scope, dw_name) : strdup(dw_name);
        d->site = site_text(file, line);
        if (file && !d->site) return -1;
    } else {
        d->name = strip_static_suffix(ms_symbolizer_readable(sym, b->name));
    }
    d->full_name = d->name ? strdup(d->name) : NULL;
    return d->name && d->full_name ? 0 : -1;
}

/* A function's frame: "stack:FUNC"; a named variable in it (STACKVAR): "stack:FUNC.VAR". An
 * outlined OpenMP region's frame is its region's ("stack:main: omp parallel @12"). */
static int name_stack_bin(const ms_raw_bin *b, const ms_raw *raw, ms_symbolizer *sym, ms_data_bin *d, bool *region)
{
    const ms_sym *s = ms_symbolize(sym, b->pc, false);
    if (!s) return -1;
    const ms_frame *owner = &s->frames[s->nframes - 1]; /* the real (not inlined) function */
    ms_omp_region r;
    *region = ms_omp_region_find(raw, sym, s, owner->func, owner->file ? owner->file : owner->decl_file, &r);
    char *func = *region ? ms_strprintf("%s: omp %s @%d", r.parent, r.kind, r.line) : strdup(owner->func);
    if (!func) return -1;
    d->kind = MS_BIN_STACK;
    if (b->kind == MS_BIN_STACKVAR)
        d->name = ms_strprintf("stack:%s.%s", func, b->name && *b->name ? b->name : "?");
    else
        d->name = ms_strprintf("stack:%s", func);
    free(func);
    d->full_name = d->name ? strdup(d->name) : NULL;
    d->site = site_text(owner->decl_file, owner->decl_line);
    return d->name && d->full_name && (d->site || !owner->decl_file) ? 0 : -1;
}

/* ---- the pointer that holds a heap object ---- */

static int cmp_str_ptr(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A heap object keeps its plain name ("frame", from `frame = malloc(...)`): a variable bin
 * (global, thread-local) of the same name is the pointer that holds it, and is shown as
 * "&frame" (the pointer's own storage). Returns 0 or -1 (out of memory). */
static int mark_pointers(ms_data_bin *d, size_t n)
{
    const char **heap = malloc((n ? n : 1) * sizeof *heap);
    size_t nheap = 0;
    if (!heap) return -1;
    for (size_t i = 0; i < n; i++)
        if (d[i].kind == MS_BIN_HEAP && d[i].name) heap[nheap++] = d[i].name;
    qsort(heap, nheap, sizeof *heap, cmp_str_ptr);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0 && nheap; i++) {
        if (d[i].kind != MS_BIN_GLOBAL || !bsearch(&d[i].name, heap, nheap, sizeof *heap, cmp_str_ptr)) continue;
        rc = ms_data_bin_rename(&d[i], ms_strprintf("%s%s", MS_POINTER_PREFIX, d[i].name),
                                ms_strprintf("%s%s", MS_POINTER_PREFIX, d[i].full_name));
    }
    free(heap);
    return rc;
}

/* A library's internal allocations (bins named heap:LIBRARY:ENTRY by the library's code, not
 * after the program's variable) that are not separately significant (libbins.h) are one bin
 * per name: the first of them takes the others' objects and bytes, join[i] the bin bin i
 * joins (i itself if none). The joined bin is "heap:LIBRARY:ENTRY", or "heap:LIBRARY:ENTRY
 * (rest)" where a significant one keeps that name. Returns 0 or -1 (out of memory). */
static int join_library_bins(const heap_path *paths, const size_t *heap_of, const ms_raw_bin *bins, size_t nbins,
                             const uint64_t *stall, uint64_t total, ms_data_bin *d, size_t *join)
{
    for (size_t i = 0; i < nbins; i++) join[i] = i;
    for (size_t i = 0; i < nbins; i++) {
        if (bins[i].kind != MS_BIN_HEAP || join[i] != i) continue;
        const heap_path *h = &paths[heap_of[i]];
        if (!h->library || h->level != 0) continue;
        size_t rep = SIZE_MAX, joined = 0;
        bool significant = false;
        for (size_t j = i; j < nbins; j++) {
            if (bins[j].kind != MS_BIN_HEAP || join[j] != j || strcmp(d[j].name, d[i].name) != 0) continue;
            const heap_path *g = &paths[heap_of[j]];
            if (!g->library || g->level != 0) continue;
            if (stall && (double)stall[j] * 100.0 >= MS_LIBRARY_BIN_SIGNIFICANT_PCT * (double)total && total) {
                significant = true;
                continue;
            }
            if (rep == SIZE_MAX) {
                rep = j;
                continue;
            }
            join[j] = rep;
            joined++;
            d[rep].objects += d[j].objects;
            d[rep].bytes += d[j].bytes;
            d[rep].peak_bytes += d[j].peak_bytes;
            if (d[rep].site && (!d[j].site || strcmp(d[rep].site, d[j].site) != 0)) {
                free(d[rep].site);
                d[rep].site = NULL;
            }
        }
        if (!joined) continue;
        char *name = significant ? ms_strprintf("%s (rest)", d[rep].name) : strdup(d[rep].name);
        if (ms_data_bin_rename(&d[rep], name, name ? strdup(name) : NULL) != 0) return -1;
    }
    return 0;
}

/* The frames of the functions that hold one OpenMP region's body (clang's .omp_outlined. and
 * .omp_outlined._debug__) are one bin per name, the region's. */
static void join_region_frames(const ms_raw_bin *bins, size_t nbins, const bool *region, const ms_data_bin *d,
                               size_t *join)
{
    for (size_t i = 0; i < nbins; i++)
        for (size_t j = i + 1; region[i] && join[i] == i && j < nbins; j++)
            if (region[j] && join[j] == j && bins[j].kind == bins[i].kind && strcmp(d[i].name, d[j].name) == 0)
                join[j] = i;
}

/* Keep the bins no other joined: bins and d compacted in place, data_of[i] the new index of
 * what bin i became; returns the new count. */
static size_t compact_joined(ms_raw_bin *bins, ms_data_bin *d, size_t nbins, const size_t *join, uint32_t *data_of)
{
    size_t n = 0;
    for (size_t i = 0; i < nbins; i++) {
        if (join[i] != i) {
            data_of[i] = data_of[join[i]]; /* join[i] < i: already placed */
            free(d[i].name);
            free(d[i].full_name);
            free(d[i].site);
            continue;
        }
        data_of[i] = (uint32_t)n;
        bins[n] = bins[i];
        d[n++] = d[i];
    }
    return n;
}

int ms_build_data_bins(ms_raw_bin *bins, size_t nbins, const ms_data_inputs *in, ms_symbolizer *sym,
                       const ms_dests *dests, ms_data_bin **out, size_t *nout, uint32_t *data_of)
{
    ms_data_bin *d = calloc(nbins ? nbins : 1, sizeof *d);
    heap_path *paths = calloc(nbins ? nbins : 1, sizeof *paths);
    size_t *heap_of = calloc(nbins ? nbins : 1, sizeof *heap_of);
    size_t *join = malloc((nbins ? nbins : 1) * sizeof *join);
    bool *region = calloc(nbins ? nbins : 1, sizeof *region); /* the stack frame of an OpenMP region */
    bool *returned = ms_library_exclusive(in && in->raw ? in->raw->bins : bins, in && in->raw ? in->raw->nbins : nbins,
                                          bins, nbins, sym);
    size_t nheap = 0, nmembers = 0;
    int rc = d && paths && heap_of && join && region && returned ? 0 : -1;
    for (size_t i = 0; i < nbins && rc == 0; i++) {
        if (bins[i].kind == MS_BIN_HEAP || bins[i].kind == MS_BIN_MMAP) {
            heap_of[i] = nheap;
            rc = build_heap_path(&bins[i], sym, dests, returned[i], &paths[nheap++]);
            if (rc == 0 && bins[i].kind == MS_BIN_MMAP)
                paths[nheap - 1].level = paths[nheap - 1].nframes; /* named by its file */
        }
    }
    if (rc == 0) rc = disambiguate(paths, nheap);
    for (size_t i = 0; i < nbins && rc == 0; i++) {
        switch (bins[i].kind) {
        case MS_BIN_HEAP: rc = name_heap_bin(&bins[i], &paths[heap_of[i]], &d[i]); break;
        case MS_BIN_GLOBAL: rc = name_global_bin(&bins[i], sym, &d[i]); break;
        case MS_BIN_STACK:
        case MS_BIN_STACKVAR: rc = name_stack_bin(&bins[i], in ? in->raw : NULL, sym, &d[i], &region[i]); break;
        case MS_BIN_MMAP: rc = name_mmap_bin(&bins[i], &paths[heap_of[i]], &d[i]); break;
        case MS_BIN_TLS: rc = name_tls_bin(&bins[i], sym, &d[i]); break;
        case MS_BIN_MAPPING: rc = name_mapping_bin(&bins[i], &d[i]); break;
        default:
            d[i].kind = MS_BIN_OTHER;
            d[i].name = strdup("other");
            d[i].full_name = strdup("other");
            rc = d[i].name && d[i].full_name ? 0 : -1;
        }
        d[i].raw_ref = bins[i].id + 1;
        /* a global array's row (DWARF); a heap array's comes from its references (cli/advice_check.c) */
        if (bins[i].kind == MS_BIN_GLOBAL && ms_symbolize_global_row(sym, bins[i].addr, &d[i].row_bytes) == 0)
            d[i].row_none = !d[i].row_bytes;
    }
    if (rc == 0) rc = name_unit_clashes(bins, d, nbins, sym);
    if (rc == 0)
        rc = join_library_bins(paths, heap_of, bins, nbins, in ? in->stall : NULL, in ? in->total : 0, d, join);
    if (rc == 0) join_region_frames(bins, nbins, region, d, join);
    size_t n = rc == 0 ? compact_joined(bins, d, nbins, join, data_of) : nbins;
    if (rc == 0) rc = mark_pointers(d, n);
    const char **members = rc == 0 ? member_functions(paths, nheap, &nmembers) : NULL;
    if (rc == 0 && !members) rc = -1;
    if (rc == 0) rc = ms_unique_data_names(d, n, members, nmembers);
    free(members);
    for (size_t i = 0; paths && i < nheap; i++) heap_path_free(&paths[i]);
    free(paths);
    free(heap_of);
    free(join);
    free(region);
    free(returned);
    *nout = n;
    if (rc != 0 && d) {
        for (size_t i = 0; i < n; i++) {
            free(d[i].name);
            free(d[i].full_name);
            free(d[i].site);
        }
        free(d);
        d = NULL;
    }
    *out = d;
    return rc;
}
