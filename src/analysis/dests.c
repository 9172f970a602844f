/* Allocation destinations (dests.h): the plugin's text records parsed, indexed by the call's
 * position, and turned into MemSpy-style names. */
#include "dests.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/strbuf.h"

typedef struct {
    int line, col;
    char kind; /* '-', 'v', 'm', 'o' */
    bool decl, used;
    bool autov; /* 'v': an automatic variable or a parameter of the level's function ("l") */
    bool ret;   /* a part of the aggregate the level's function returns by value */
    bool slot;  /* also stored in a slot reached through pointer arithmetic from a loaded pointer */
    int outp;   /* the index of the pointer parameter the value is stored through (*param = v), -1 none */
    const char *type, *path;
} dest_level;

struct ms_dest {
    char *text; /* the record, its fields cut in place (tabs made NULs) */
    size_t len;
    uint64_t pc, end; /* the labels before and after the call, 0 unknown */
    bool fortran, returned;
    bool object; /* the levels name the object the call works on (a C++ member function) */
    int arg;     /* -1, or the argument (a pointer to a pointer) whose target the levels name */
    const char *file, *callee;
    dest_level *lv;
    size_t nlevels;
};

struct ms_dests {
    ms_dest *r;
    size_t n;
};

static const char *base_name(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

/* Split the record into its tab-separated fields in place. Returns the number of fields. */
static size_t split(char *s, char **f, size_t max)
{
    size_t n = 0;
    while (n < max) {
        f[n++] = s;
        char *tab = strchr(s, '\t');
        if (!tab) break;
        *tab = '\0';
        s = tab + 1;
    }
    return n;
}

/* Whether the analysis reads records of version v (src/rt/msplug_abi.h,
 * MSPLUG_DEST_RECORD_VERSION): "1" and "2" (the same fields; "aN" and "pN" read in either, as
 * the first ABI 4 plugins wrote them under "1"). A newer version is skipped, as the ABI says. */
static bool known_version(const char *v) { return strcmp(v, "1") == 0 || strcmp(v, "2") == 0; }

/* Parse one record into r. Returns 1 if used, 0 if skipped, -1 when out of memory. */
static int parse(const char *text, uint64_t pc, uint64_t end, ms_dest *r)
{
    enum { HEAD = 6, PER = 6, MAXF = HEAD + PER * 64 };
    memset(r, 0, sizeof *r);
    r->text = strdup(text);
    if (!r->text) return -1;
    r->len = strlen(text);
    r->pc = pc;
    r->end = end;
    char *f[MAXF];
    size_t nf = split(r->text, f, MAXF);
    size_t nl = nf >= HEAD ? (size_t)strtoul(f[5], NULL, 10) : 0;
    if (nf < HEAD || !known_version(f[0]) || nl == 0 || nf != HEAD + PER * nl) {
        free(r->text);
        return 0;
    }
    r->fortran = strcmp(f[1], "f") == 0;
    r->file = f[2];
    r->callee = f[3];
    r->returned = strchr(f[4], 'r') != NULL;
    r->object = strchr(f[4], 'o') != NULL;
    r->arg = f[4][0] == 'a' ? atoi(f[4] + 1) : -1;
    r->lv = calloc(nl, sizeof *r->lv);
    if (!r->lv) {
        free(r->text);
        return -1;
    }
    r->nlevels = nl;
    for (size_t k = 0; k < nl; k++) {
        char **g = &f[HEAD + PER * k];
        r->lv[k].line = atoi(g[0]);
        r->lv[k].col = atoi(g[1]);
        r->lv[k].kind = g[2][0] && strchr("vmo", g[2][0]) ? g[2][0] : '-';
        r->lv[k].decl = strchr(g[3], 'd') != NULL;
        r->lv[k].autov = strchr(g[3], 'l') != NULL;
        r->lv[k].used = strchr(g[3], 'u') != NULL;
        r->lv[k].ret = strchr(g[3], 'r') != NULL;
        r->lv[k].slot = strchr(g[3], 's') != NULL;
        const char *p = strchr(g[3], 'p');
        r->lv[k].outp = p ? atoi(p + 1) : -1;
        r->lv[k].type = g[4];
        r->lv[k].path = g[5];
        if (!*r->lv[k].path) r->lv[k].kind = '-'; /* (a slot's level: its type only) */
    }
    return 1;
}

static int cmp_dest(const void *a, const void *b)
{
    const ms_dest *x = a, *y = b;
    if (x->lv[0].line != y->lv[0].line) return x->lv[0].line < y->lv[0].line ? -1 : 1;
    if (x->lv[0].col != y->lv[0].col) return x->lv[0].col < y->lv[0].col ? -1 : 1;
    return 0;
}

int ms_dests_new(char *const *records, const uint64_t *pcs, size_t n, ms_dests **out)
{
    *out = NULL;
    if (n == 0) return 0;
    ms_dests *d = calloc(1, sizeof *d);
    if (!d || !(d->r = calloc(n, sizeof *d->r))) {
        free(d);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        int rc = records[i] ? parse(records[i], pcs ? pcs[2 * i] : 0, pcs ? pcs[2 * i + 1] : 0, &d->r[d->n]) : 0;
        if (rc < 0) {
            ms_dests_free(d);
            return -1;
        }
        d->n += (size_t)rc;
    }
    qsort(d->r, d->n, sizeof *d->r, cmp_dest);
    *out = d;
    return 0;
}

void ms_dests_free(ms_dests *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->n; i++) {
        free(d->r[i].text);
        free(d->r[i].lv);
    }
    free(d->r);
    free(d);
}

/* Levels of r matching frames, innermost first (level 0's file by base name: the compiler's
 * path may be relative where DWARF's is absolute). */
static size_t matching_levels(const ms_dest *r, const ms_frame *frames, size_t nframes)
{
    if (!frames[0].file || strcmp(base_name(frames[0].file), base_name(r->file)) != 0) return 0;
    size_t k = 0;
    while (k < r->nlevels && k < nframes && frames[k].line == r->lv[k].line && frames[k].col == r->lv[k].col) k++;
    return k;
}

static bool same_text(const ms_dest *a, const ms_dest *b)
{
    return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
}

/* The record of the call at frames whose arg field is arg (-1: the call's own record). */
static const ms_dest *find_record(const ms_dests *d, const ms_frame *frames, size_t nframes, uint64_t ra, int arg)
{
    if (!d || nframes == 0) return NULL;
    if (!frames[0].file || frames[0].line <= 0) { /* no line information: the labels around ra */
        for (size_t i = 0; i < d->n; i++)
            if (d->r[i].arg == arg && d->r[i].pc < ra && ra <= d->r[i].end) return &d->r[i];
        return NULL;
    }
    size_t lo = 0, hi = d->n; /* the first record at frames[0]'s position */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const dest_level *l = &d->r[mid].lv[0];
        if (l->line < frames[0].line || (l->line == frames[0].line && l->col < frames[0].col))
            lo = mid + 1;
        else
            hi = mid;
    }
    /* The record whose levels all match the frames; where several do with different contents
     * (calls at one position), the one whose label is the last before ra. Else the one
     * matching the most levels (frames that DWARF and gcc's block tree count differently),
     * if no other ties it. */
    const ms_dest *exact = NULL, *by_pc = NULL, *best = NULL;
    size_t best_k = 0;
    bool exact_tie = false, tie = false;
    for (size_t i = lo; i < d->n && d->r[i].lv[0].line == frames[0].line && d->r[i].lv[0].col == frames[0].col; i++) {
        const ms_dest *r = &d->r[i];
        if (r->arg != arg) continue;
        size_t k = matching_levels(r, frames, nframes);
        if (k == r->nlevels && k == nframes) {
            exact_tie |= exact && !same_text(exact, r);
            if (!exact) exact = r;
            if (r->pc && r->pc < ra && (!by_pc || r->pc > by_pc->pc)) by_pc = r;
        } else if (k > best_k) {
            best = r;
            best_k = k;
            tie = false;
        } else if (k && k == best_k && !same_text(best, r)) {
            tie = true;
        }
    }
    if (exact) return exact_tie ? by_pc : exact;
    return tie ? NULL : best;
}

const ms_dest *ms_dests_find(const ms_dests *d, const ms_frame *frames, size_t nframes, uint64_t ra)
{
    return find_record(d, frames, nframes, ra, -1);
}

const ms_dest *ms_dests_find_arg(const ms_dests *d, const ms_frame *frames, size_t nframes, uint64_t ra, int arg)
{
    return arg < 0 ? NULL : find_record(d, frames, nframes, ra, arg);
}

int ms_dest_out_param(const ms_dest *r, size_t k) { return r && k < r->nlevels ? r->lv[k].outp : -1; }

static bool word_is(const char *w, size_t n, const char *s) { return strlen(s) == n && strncmp(w, s, n) == 0; }

char *ms_dest_type(const char *t)
{
    static const char *const dropped[] = { "struct",   "union",    "enum",       "class",       "const",
                                           "volatile", "restrict", "__restrict", "__restrict__" };
    const char *words[16];
    size_t lens[16], nw = 0, stars = 0;
    bool is_long = false, is_short = false, is_unsigned = false, is_int = false;
    int longs = 0;
    for (const char *p = t; *p;) {
        if (*p == '*' || *p == '&') {
            stars += *p == '*';
            p++;
            continue;
        }
        if (*p == ' ') {
            p++;
            continue;
        }
        size_t n = strcspn(p, " *&");
        bool drop = false;
        for (size_t k = 0; k < sizeof dropped / sizeof *dropped; k++) drop |= word_is(p, n, dropped[k]);
        if (word_is(p, n, "long")) {
            is_long = true;
            longs++;
        } else if (word_is(p, n, "short")) {
            is_short = true;
        } else if (word_is(p, n, "unsigned")) {
            is_unsigned = true;
        } else if (word_is(p, n, "int")) {
            is_int = true;
        } else if (!drop && nw < 16) {
            words[nw] = p;
            lens[nw++] = n;
        }
        p += n;
    }
    ms_strbuf s = MS_STRBUF_INIT;
    /* gcc's "long unsigned int" is written "unsigned long" */
    if (is_unsigned) ms_strbuf_adds(&s, "unsigned");
    for (int k = 0; k < longs; k++) ms_strbuf_adds(&s, s.len ? " long" : "long");
    if (is_short) ms_strbuf_adds(&s, s.len ? " short" : "short");
    if (is_int && !is_long && !is_short) ms_strbuf_adds(&s, s.len ? " int" : "int");
    for (size_t k = 0; k < nw; k++) {
        if (s.len) ms_strbuf_adds(&s, " ");
        ms_strbuf_add(&s, words[k], lens[k]);
    }
    for (size_t k = 0; k < stars; k++) ms_strbuf_adds(&s, "*");
    return ms_strbuf_take(&s);
}

/* The last two parts of a path "a.b.c" ("b.c"), `this` dropped; Fortran: the array
 * descriptor's "data" dropped first. */
static char *path_name(const char *path, bool fortran)
{
    const char *parts[64];
    size_t lens[64], n = 0;
    for (const char *p = path; *p && n < 64;) {
        size_t len = strcspn(p, ".");
        if (!word_is(p, len, "this")) {
            parts[n] = p;
            lens[n++] = len;
        }
        p += len;
        if (*p == '.') p++;
    }
    if (fortran && n > 1 && word_is(parts[n - 1], lens[n - 1], "data")) n--;
    if (n == 0) return NULL;
    ms_strbuf s = MS_STRBUF_INIT;
    for (size_t k = n >= 2 ? n - 2 : 0; k < n; k++) {
        if (s.len) ms_strbuf_adds(&s, ".");
        ms_strbuf_add(&s, parts[k], lens[k]);
    }
    return ms_strbuf_take(&s);
}

/* The type a pointer of type t points to, tidied ("struct Table *" -> "Table"); NULL when t
 * is no pointer to a named type. */
static char *pointee_type(const char *t)
{
    char *type = ms_dest_type(t);
    size_t n = type ? strlen(type) : 0;
    if (n < 2 || type[n - 1] != '*' || type[n - 2] == '*' || strcmp(type, "void*") == 0 || strcmp(type, "char*") == 0) {
        free(type);
        return NULL;
    }
    type[n - 1] = '\0';
    return type;
}

static bool pointer_like(const char *t);

char *ms_dest_name(const ms_dest *r, size_t k)
{
    if (!r || k >= r->nlevels) return NULL;
    const dest_level *l = &r->lv[k];
    char *type = ms_dest_in_slot(r, k) ? pointee_type(l->type) : NULL; /* into a slot no variable names */
    if (type) return type;
    if (l->kind == '-') return NULL;
    /* a local pointer variable declared before the statement is typed too (`double *w; ...
     * w = malloc(...)`: double*.w, as if declared there), so that it does not read as a global */
    bool local_pointer = l->kind == 'v' && l->autov && *l->type && pointer_like(l->type);
    if (r->fortran || l->kind == 'm' || (!l->decl && !local_pointer)) return path_name(l->path, r->fortran);
    type = ms_dest_type(l->type);
    ms_strbuf s = MS_STRBUF_INIT;
    if (type && *type) {
        ms_strbuf_adds(&s, type);
        ms_strbuf_adds(&s, ".");
    }
    free(type);
    ms_strbuf_adds(&s, l->path);
    return ms_strbuf_take(&s);
}

bool ms_dest_passed_out(const ms_dest *r, size_t k)
{
    if (!r || k >= r->nlevels) return false;
    if (r->lv[k].outp >= 0) return true; /* stored through a pointer parameter: the caller's */
    if (r->lv[k].used) return false;
    if (r->lv[k].ret) return true;                           /* in the aggregate its function returns */
    if (r->lv[k].kind == 'm' || r->lv[k].slot) return false; /* stored */
    if (r->returned) return true;
    for (size_t j = k + 1; j < r->nlevels; j++) /* not 'o': it holds the name's object */
        if (r->lv[j].kind == 'v' || r->lv[j].kind == 'm' || r->lv[j].used) return true;
    return false;
}

bool ms_dest_in_slot(const ms_dest *r, size_t k)
{
    if (!r || k >= r->nlevels || r->fortran) return false;
    const dest_level *l = &r->lv[k];
    return l->slot && l->kind != 'm' && l->kind != 'o';
}

bool ms_dest_local(const ms_dest *r, size_t k)
{
    return r && k < r->nlevels && (r->lv[k].kind == 'v' || r->lv[k].kind == '-');
}

bool ms_dest_leaves(const ms_dest *r, size_t k)
{
    if (!r || k >= r->nlevels) return true; /* nothing recorded: nothing known */
    const dest_level *l = &r->lv[k];
    if (l->ret || l->kind == 'm' || k + 1 < r->nlevels) return true;
    return r->returned;
}

char *ms_dest_member_of(const ms_dest *inner, size_t k, const ms_dest *outer, size_t j)
{
    if (!inner || !outer || k >= inner->nlevels || j >= outer->nlevels) return NULL;
    const dest_level *m = &inner->lv[k], *v = &outer->lv[j];
    const char *field = strchr(m->path, '.');
    if (m->kind != 'm' || inner->fortran || !field || !field[1] || v->kind != 'v' || !*v->path ||
        (inner != outer && field - m->path == 4 && !strncmp(m->path, "this", 4)))
        return NULL;
    ms_strbuf s = MS_STRBUF_INIT;
    ms_strbuf_addf(&s, "%s%s", v->path, field);
    return ms_strbuf_take(&s);
}

char *ms_dest_returned_part(const ms_dest *inner, size_t k, const ms_dest *outer, size_t j)
{
    if (!inner || !outer || k >= inner->nlevels || j >= outer->nlevels) return NULL;
    const dest_level *m = &inner->lv[k], *v = &outer->lv[j];
    if (!m->ret || inner->fortran || !*m->path || (v->kind != 'v' && v->kind != 'm') || !*v->path) return NULL;
    const char *dot = strchr(m->path, '.'); /* "buffer.start": ".start"; "start" (<retval>'s) */
    ms_strbuf s = MS_STRBUF_INIT;
    ms_strbuf_addf(&s, "%s.%s", v->path, dot ? dot + 1 : m->path);
    char *path = ms_strbuf_take(&s);
    char *name = path ? path_name(path, false) : NULL;
    free(path);
    return name;
}

bool ms_dest_names_object(const ms_dest *r) { return r && r->object; }

/* Whether type text t[0..n) ends with word w (after a space or a '*'). */
static bool ends_with_word(const char *t, size_t n, const char *w)
{
    size_t m = strlen(w);
    return n > m && !memcmp(t + n - m, w, m) && (t[n - m - 1] == ' ' || t[n - m - 1] == '*');
}

/* Whether type text t may be a pointer: it ends (its qualifiers aside) with '*', '&' or ']',
 * or names one (std::allocator's `pointer`, `_Base_ptr`); true where it is empty. */
static bool pointer_like(const char *t)
{
    size_t n = t ? strlen(t) : 0;
    for (bool cut = true; cut;) {
        cut = false;
        while (n && t[n - 1] == ' ') n--;
        static const char *const quals[] = { "const", "volatile", "restrict", "__restrict" };
        for (size_t q = 0; q < sizeof quals / sizeof *quals && !cut; q++)
            if (ends_with_word(t, n, quals[q])) {
                n -= strlen(quals[q]);
                cut = true;
            }
    }
    if (!n || t[n - 1] == '*' || t[n - 1] == '&' || t[n - 1] == ']') return true;
    for (size_t i = 0; i + 3 <= n; i++)
        if (!strncasecmp(t + i, "ptr", 3) || (i + 7 <= n && !strncasecmp(t + i, "pointer", 7))) return true;
    return false;
}

bool ms_dest_aggregate(const ms_dest *r, size_t k)
{
    if (!r || k >= r->nlevels || r->fortran || r->object || r->arg >= 0) return false;
    const dest_level *l = &r->lv[k];
    if (l->kind != 'v' || l->slot || l->ret || l->outp >= 0) return false;
    for (size_t j = 0; j < k; j++) /* the object whose member an inner level names (s of s.state_) */
        if (r->lv[j].kind != '-') return false;
    return !pointer_like(l->type);
}

char *ms_dest_best_name(const ms_dest *r, bool *passed_out)
{
    *passed_out = false;
    for (size_t k = 0; r && k < r->nlevels; k++) {
        char *name = ms_dest_name(r, k);
        if (name && !ms_dest_passed_out(r, k)) return name;
        free(name);
    }
    for (size_t k = 0; r && k < r->nlevels; k++) {
        char *name = ms_dest_name(r, k);
        if (name) {
            *passed_out = true;
            return name;
        }
    }
    return NULL;
}
