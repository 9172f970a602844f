/* Names that several data bins share (analysis/databins.h, ms_unique_data_names): each is told
 * apart by where its call path parts from the others' (the calling function that says why),
 * "#N" only where nothing does; none keeps the plain name. Works on the names and full names
 * (FUNCTION:LINE>...>NAME), so that it also serves bins joined after the analysis, and on the
 * functions DWARF shows to be member functions (their scopes are classes, not namespaces). */
#define _GNU_SOURCE /* qsort_r, memrchr */
#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "databins.h"
#include "../util/strbuf.h"

static int cmp_bin_names(const void *a, const void *b, void *bins)
{
    const ms_data_bin *sort_bins = bins;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int c = strcmp(sort_bins[i].name, sort_bins[j].name);
    if (!c) c = strcmp(sort_bins[i].full_name, sort_bins[j].full_name);
    return c ? c : (i > j) - (i < j);
}

/* Whether full[from..i) is a whole frame: FUNCTION:LINE (ends with a digit), or code of a
 * library without DWARF, "SYMBOL (LIBRARY)" or "LIBRARY+0xOFFSET" (a '>' of a C++ template
 * name ends none of them). */
static bool frame_ends(const char *full, size_t from, size_t i)
{
    if (i <= from) return false;
    unsigned char last = (unsigned char)full[i - 1];
    if (isdigit(last)) { /* FUNCTION:LINE, not a template argument's digits (Tag<1>) */
        size_t k = i;
        while (k > from && isdigit((unsigned char)full[k - 1])) k--;
        return k > from && full[k - 1] == ':';
    }
    if (last == ')') {
        const char *open = memrchr(full + from, '(', i - from);
        return open && open > full + from && open[-1] == ' ';
    }
    size_t k = i;
    while (k > from && isxdigit((unsigned char)full[k - 1])) k--;
    return k < i && k - from >= 3 && !memcmp(full + k - 3, "+0x", 3);
}

/* The frames of a full name's call path ("main:42>NewMatrix:17>NAME", name_len the short
 * name's length): each frame is FUNCTION:LINE, or a library's code (frame_ends), and ends at
 * a '>'. Fills starts/lens of up to max frames, returns how many. */
static size_t path_frames(const char *full, size_t name_len, const char **starts, size_t *lens, size_t max)
{
    size_t flen = strlen(full);
    if (flen <= name_len) return 0;
    size_t end = flen - name_len, n = 0, from = 0; /* full[end - 1] is the '>' before the name */
    for (size_t i = 0; i < end && n < max; i++)
        if (full[i] == '>' && frame_ends(full, from, i)) {
            starts[n] = full + from;
            lens[n++] = i - from;
            from = i + 1;
        }
    return n;
}

/* The length of a frame's FUNCTION (the part before its last ':'). */
static size_t frame_function_len(const char *f, size_t len)
{
    if (len && f[len - 1] == ')') return len; /* a library's "SYMBOL (LIBRARY)": no line */
    const char *colon = memrchr(f, ':', len);
    return colon ? (size_t)(colon - f) : len;
}

/* Whether a frame of a full name is code of a library without DWARF ("SYMBOL (LIBRARY)",
 * "LIBRARY+0xOFFSET"): no line of the program's. */
static bool library_frame(const char *f, size_t len)
{
    if (len && f[len - 1] == ')') return true;
    size_t k = len;
    while (k > 0 && isxdigit((unsigned char)f[k - 1])) k--;
    return k < len && k >= 3 && !memcmp(f + k - 3, "+0x", 3);
}

/* A frame that says nothing to the user: unknown code, libc's start-up. */
static bool mute_frame(const char *f, size_t len)
{
    return (len >= 2 && !memcmp(f, "??", 2)) || (len >= 7 && !memcmp(f, "__libc_", 7)) ||
           (len >= 6 && !memcmp(f, "_start", 6));
}

/* A frame where bin d's call path parts from ref's (their short names are equal). */
typedef struct {
    const char *frame;  /* FUNCTION:LINE (or a library's frame), len bytes */
    size_t len, fn_len; /* fn_len: FUNCTION's length, 0 when ref's frame there is in the same function */
} path_part;

/* The frames of d's call path that differ from ref's, the paths aligned at their innermost
 * frames, innermost first, into parts (up to max). Returns how many. */
static size_t path_parts(const ms_data_bin *ref, const ms_data_bin *d, path_part *parts, size_t max)
{
    enum { MAX_FRAMES = 64 };
    const char *rs[MAX_FRAMES], *ds[MAX_FRAMES];
    size_t rl[MAX_FRAMES], dl[MAX_FRAMES], n = 0;
    size_t nr = path_frames(ref->full_name, strlen(ref->name), rs, rl, MAX_FRAMES);
    size_t nd = path_frames(d->full_name, strlen(d->name), ds, dl, MAX_FRAMES);
    for (size_t k = 1; k <= nd && n < max; k++) {
        const char *f = ds[nd - k];
        size_t fl = dl[nd - k];
        if (k <= nr && rl[nr - k] == fl && !memcmp(rs[nr - k], f, fl)) continue;
        size_t fn = frame_function_len(f, fl);
        int same_fn = k <= nr && frame_function_len(rs[nr - k], rl[nr - k]) == fn && !memcmp(rs[nr - k], f, fn);
        parts[n++] = (path_part){ f, fl, same_fn ? 0 : fn };
    }
    return n;
}

/* Whether some bin of bins[0..n) is named name. */
static int name_taken(const ms_data_bin *bins, size_t n, const char *name)
{
    for (size_t m = 0; m < n; m++)
        if (!strcmp(bins[m].name, name)) return 1;
    return 0;
}

/* Whether a bin of group[0..ng) other than d has a frame whose FUNCTION (whole: the frame
 * FUNCTION:LINE) is f[0..len). */
static bool frame_elsewhere(const ms_data_bin *bins, const size_t *group, size_t ng, const ms_data_bin *d,
                            const char *f, size_t len, bool whole)
{
    enum { MAX_FRAMES = 64 };
    const char *fs[MAX_FRAMES];
    size_t fl[MAX_FRAMES];
    for (size_t g = 0; g < ng; g++) {
        const ms_data_bin *o = &bins[group[g]];
        if (o == d) continue;
        size_t nf = path_frames(o->full_name, strlen(o->name), fs, fl, MAX_FRAMES);
        for (size_t i = 0; i < nf; i++) {
            size_t l = whole ? fl[i] : frame_function_len(fs[i], fl[i]);
            if (l == len && !memcmp(fs[i], f, len)) return true;
        }
    }
    return false;
}

/* A frame where a bin's call path parts from the first's of its group (path_part), the
 * program's code: its function, and whether the first's frame there is in the same function. */
typedef struct {
    const char *frame;
    size_t len, fn_len;
    bool same_fn;
} parting;

/* The length of the scope of function f[0..len) (C++'s "ns::Class" of "ns::Class::method"),
 * 0 if it has none: up to its last "::" outside template arguments and parentheses. */
static size_t scope_len(const char *f, size_t len)
{
    size_t scope = 0;
    int depth = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        if (f[i] == '<' || f[i] == '(') depth++;
        if ((f[i] == '>' || f[i] == ')') && depth > 0) depth--;
        if (!depth && f[i] == ':' && f[i + 1] == ':') scope = i++;
    }
    return scope;
}

/* Whether function f[0..len) is a constructor, destructor or operator of its scope (then the
 * scope is a class, not a namespace): "ns::Status::Status", "ns::Status::operator=",
 * "ns::Table<K>::~Table". */
static bool class_member(const char *f, size_t len)
{
    size_t s = scope_len(f, len), outer = s ? scope_len(f, s) : 0;
    if (!s) return false;
    const char *m = f + s + 2, *cls = outer ? f + outer + 2 : f;
    size_t mlen = len - s - 2, clen = (size_t)(f + s - cls);
    const char *targs = memchr(cls, '<', clen);
    if (targs) clen = (size_t)(targs - cls);
    if (mlen >= 8 && !memcmp(m, "operator", 8)) return true;
    if (mlen && *m == '~') m++, mlen--;
    return mlen == clen && !memcmp(m, cls, clen);
}

/* A scope that is a class (structure, union): that of a function DWARF shows to be a member
 * function (ms_frame.member). */
typedef struct {
    const char *text;
    size_t len;
} class_scope;

/* The class scopes, sorted by text, without repeats. */
typedef struct {
    class_scope *v;
    size_t n;
} class_scopes;

static int cmp_scope(const void *a, const void *b)
{
    const class_scope *x = a, *y = b;
    int c = memcmp(x->text, y->text, x->len < y->len ? x->len : y->len);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Whether f[0..len) is a class's scope. */
static bool is_class(const class_scopes *cs, const char *f, size_t len)
{
    class_scope key = { f, len };
    return cs->n && bsearch(&key, cs->v, cs->n, sizeof key, cmp_scope);
}

/* The scopes of members[0..n) (function names) into *cs. Returns 0 or -1 (out of memory). */
static int class_scopes_new(const char *const *members, size_t n, class_scopes *cs)
{
    cs->n = 0;
    cs->v = malloc((n ? n : 1) * sizeof *cs->v);
    if (!cs->v) return -1;
    for (size_t i = 0; i < n; i++) {
        size_t len = scope_len(members[i], strlen(members[i]));
        if (len) cs->v[cs->n++] = (class_scope){ members[i], len };
    }
    qsort(cs->v, cs->n, sizeof *cs->v, cmp_scope);
    size_t k = 0;
    for (size_t i = 0; i < cs->n; i++)
        if (!k || cmp_scope(&cs->v[k - 1], &cs->v[i])) cs->v[k++] = cs->v[i];
    cs->n = k;
    return 0;
}

/* The class whose member function allocates d (the innermost frame of its call path): where
 * DWARF shows its scope to be a class (cs), where the scope has template arguments, or where
 * some frame of d's or ref's path shows it to be one (class_member: for code without DWARF);
 * *cls and *clen the scope's text in d's full name, NULL and 0 if none. */
static void allocating_class(const ms_data_bin *ref, const ms_data_bin *d, const class_scopes *cs, const char **cls,
                             size_t *clen)
{
    enum { MAX_FRAMES = 64 };
    const char *fs[MAX_FRAMES];
    size_t fl[MAX_FRAMES];
    *cls = NULL;
    *clen = 0;
    size_t nd = path_frames(d->full_name, strlen(d->name), fs, fl, MAX_FRAMES);
    if (!nd || library_frame(fs[nd - 1], fl[nd - 1])) return;
    const char *alloc = fs[nd - 1];
    size_t s = scope_len(alloc, frame_function_len(alloc, fl[nd - 1])), outer = s ? scope_len(alloc, s) : 0;
    if (s && (is_class(cs, alloc, s) || memchr(alloc + outer, '<', s - outer))) { /* template arguments */
        *cls = alloc;
        *clen = s;
        return;
    }
    const ms_data_bin *paths[2] = { d, ref };
    for (int b = 0; s && b < 2; b++) {
        size_t n = path_frames(paths[b]->full_name, strlen(paths[b]->name), fs, fl, MAX_FRAMES);
        for (size_t i = 0; i < n; i++) {
            size_t f = frame_function_len(fs[i], fl[i]);
            if (scope_len(fs[i], f) == s && !memcmp(fs[i], alloc, s) && class_member(fs[i], f)) {
                *cls = alloc;
                *clen = s;
                return;
            }
        }
    }
}

/* Whether frame f (of function f[0..fn), in d's full name) is a member function of a class
 * that DWARF shows (cs) and calls, directly or through others, another member function of that
 * class on d's path (leveldb's Arena::AllocateAligned and Arena::AllocateFallback on the way to
 * Arena::AllocateNewBlock): the class's inner workings, not the caller that says why. */
static bool class_inner(const ms_data_bin *d, const class_scopes *cs, const char *f, size_t fn)
{
    enum { MAX_FRAMES = 64 };
    const char *fs[MAX_FRAMES];
    size_t fl[MAX_FRAMES], s = scope_len(f, fn);
    if (!s || !is_class(cs, f, s)) return false;
    size_t n = path_frames(d->full_name, strlen(d->name), fs, fl, MAX_FRAMES);
    for (size_t i = 0; i < n; i++)
        if (fs[i] > f && scope_len(fs[i], frame_function_len(fs[i], fl[i])) == s && !memcmp(fs[i], f, s)) return true;
    return false;
}

/* The frames of the program's code (not a library's nor a mute one) where d's call path parts
 * from ref's, innermost first, into out (up to max). Frames of the class whose member function
 * allocates the block (leveldb's Status::CopyState called by Status's copy constructor and
 * assignment, inlined into many callers), and those of a class that call its other member
 * functions on the path (class_inner), say nothing where a caller outside it parts too: the
 * first caller outside the class does; they come last, innermost first, for bins that nothing
 * outside tells apart (two calls of leveldb's Benchmark::Open from two lines of Benchmark::Run).
 * Returns how many. */
static size_t partings(const ms_data_bin *ref, const ms_data_bin *d, const class_scopes *cs, parting *out, size_t max)
{
    enum { MAX_PARTS = 64 };
    path_part parts[MAX_PARTS];
    parting inside[MAX_PARTS];
    size_t np = path_parts(ref, d, parts, MAX_PARTS), n = 0, ni = 0, clen;
    const char *cls;
    allocating_class(ref, d, cs, &cls, &clen);
    for (size_t i = 0; i < np; i++) {
        const path_part *p = &parts[i];
        if (library_frame(p->frame, p->len) || mute_frame(p->frame, p->len)) continue;
        size_t fn = frame_function_len(p->frame, p->len);
        parting f = { p->frame, p->len, fn, p->fn_len == 0 };
        if ((cls && scope_len(p->frame, fn) == clen && !memcmp(p->frame, cls, clen)) ||
            class_inner(d, cs, p->frame, fn))
            inside[ni++] = f;
        else if (n < max)
            out[n++] = f;
    }
    for (size_t i = 0; i < ni && n < max; i++) out[n++] = inside[i]; /* where nothing outside tells them apart */
    return n;
}

static bool same_fn(const parting *a, const parting *b)
{
    return a->fn_len == b->fn_len && !memcmp(a->frame, b->frame, a->fn_len);
}

/* The frame each bin of group[0..ng) (bins of one name) is told apart at, into choice[g]
 * (frame NULL where none is left) and line[g] (the line says it, not the function alone): the
 * innermost frame of the program's code where its path parts from the first's (the first's:
 * from the second's). Where other
 * bins part in the same function, they keep it with their lines if the lines differ (two calls
 * in one function: a wrapper called from two lines of main), else all move out past that
 * function (leveldb's strings that libstdc++ grows through the system header's `append` from
 * many callers: the callers say why). The line also where the first's path is in that function
 * there. Returns 0 or -1 (out of memory). */
static int parting_choice(const ms_data_bin *bins, const size_t *group, size_t ng, const class_scopes *cs,
                          parting *choice, bool *line)
{
    enum { MAX_FNS = 64 };
    parting(*fr)[MAX_FNS] = calloc(ng, sizeof *fr);
    size_t *nf = calloc(ng, sizeof *nf), *at = calloc(ng, sizeof *at);
    int rc = fr && nf && at ? 0 : -1;
    for (size_t g = 0; g < ng && rc == 0; g++)
        nf[g] = partings(&bins[group[g ? 0 : 1]], &bins[group[g]], cs, fr[g], MAX_FNS);
    for (size_t g = 0; g < ng; g++) line[g] = false;
    for (bool moved = rc == 0; moved;) {
        moved = false;
        for (size_t g = 0; g < ng; g++) {
            if (at[g] >= nf[g]) continue;
            const parting *c = &fr[g][at[g]];
            bool clash = false, distinct = true;
            for (size_t o = 0; o < ng; o++) { /* (two others on one frame move g out when theirs is) */
                if (o == g || at[o] >= nf[o] || !same_fn(&fr[o][at[o]], c)) continue;
                clash = true;
                distinct &= fr[o][at[o]].len != c->len || memcmp(fr[o][at[o]].frame, c->frame, c->len) != 0;
            }
            if (!clash || distinct) {
                line[g] = c->same_fn || clash;
                continue;
            }
            parting f = *c;
            for (size_t o = 0; o < ng; o++) /* every bin in that function moves out past it */
                while (at[o] < nf[o] && same_fn(&fr[o][at[o]], &f)) at[o]++;
            moved = true;
        }
    }
    for (size_t g = 0; g < ng && rc == 0; g++)
        choice[g] = at[g] < nf[g] ? fr[g][at[g]] : (parting){ NULL, 0, 0, false };
    free(fr);
    free(nf);
    free(at);
    return rc;
}

/* The name that tells d from ref, the first of group[0..ng) (the bins named as d is; the
 * second where d is the first):
 * NAME@FUNCTION at the frame parting_choice gives it (the caller that says why: leveldb's
 * `@CompressibleString` for a string the C++ library grows, not the library's or the system
 * headers' functions that every path goes through), NAME@FUNCTION:LINE where the line must
 * say it (two bins of one function: a wrapper called from two lines of main); else at the
 * innermost frame
 * where the paths part that no other bin of the group has, NAME@FUNCTION:LINE; else the first name not taken at a frame
 * where the paths part, the program's frames first, then a library's; NAME#k only where no
 * frame tells them apart. */
static char *clash_name(const ms_data_bin *bins, size_t n, const size_t *group, size_t ng, const ms_data_bin *d,
                        const parting *at, bool line, size_t k)
{
    enum { MAX_PARTS = 64 };
    if (at->frame) {
        char *name = ms_strprintf("%s@%.*s", d->name, (int)(line ? at->len : at->fn_len), at->frame);
        if (!name || !name_taken(bins, n, name)) return name;
        free(name);
    }
    path_part parts[MAX_PARTS];
    size_t np = path_parts(&bins[group[d == &bins[group[0]] ? 1 : 0]], d, parts, MAX_PARTS);
    for (size_t i = 0; i < np; i++) {
        const path_part *p = &parts[i];
        if (library_frame(p->frame, p->len) || mute_frame(p->frame, p->len) ||
            frame_elsewhere(bins, group, ng, d, p->frame, p->len, true))
            continue;
        char *name = ms_strprintf("%s@%.*s", d->name, (int)p->len, p->frame);
        if (!name || !name_taken(bins, n, name)) return name;
        free(name);
    }
    for (int library = 0; library < 2; library++)
        for (size_t i = 0; i < np; i++) {
            const path_part *p = &parts[i];
            if (library_frame(p->frame, p->len) != library || mute_frame(p->frame, p->len)) continue;
            char *name = p->fn_len ? ms_strprintf("%s@%.*s", d->name, (int)p->fn_len, p->frame) : NULL;
            if (name && !name_taken(bins, n, name)) return name;
            free(name);
            name = ms_strprintf("%s@%.*s", d->name, (int)p->len, p->frame);
            if (!name || !name_taken(bins, n, name)) return name;
            free(name);
        }
    return ms_strprintf("%s#%zu", d->name, k);
}

int ms_unique_data_names(ms_data_bin *bins, size_t n, const char *const *members, size_t nmembers)
{
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    parting *at = malloc((n ? n : 1) * sizeof *at);
    bool *line = malloc((n ? n : 1) * sizeof *line);
    class_scopes cs;
    int rc = class_scopes_new(members, nmembers, &cs) == 0 && order && at && line ? 0 : -1;
    for (size_t i = 0; i < n && rc == 0; i++) order[i] = i;
    if (rc == 0) qsort_r(order, n, sizeof *order, cmp_bin_names, bins);
    for (size_t i = 0; i < n && rc == 0;) {
        size_t j = i + 1;
        while (j < n && strcmp(bins[order[i]].name, bins[order[j]].name) == 0) j++;
        /* the frames first, from the names as they are */
        if (j - i > 1) rc = parting_choice(bins, order + i, j - i, &cs, at, line);
        for (size_t k = i; j - i > 1 && k < j && rc == 0; k++) {
            ms_data_bin *d = &bins[order[k]];
            /* none keeps the plain name (a lookup by it lists them all); each is named after
             * where its path parts from the first's (the first: from the second's): the
             * calling function says why; #N only where nothing does (then the first keeps it) */
            char *name = clash_name(bins, n, order + i, j - i, d, &at[k - i], line[k - i], k - i + 1);
            char *full = NULL;
            size_t flen = strlen(d->full_name), slen = strlen(d->name);
            if (k == i && name && name[slen] == '#') { /* nothing tells the first apart (a global */
                free(name);                            /* the compiler split, clang's unrolled */
                continue;                              /* copies): it keeps the plain name */
            }
            if (name && flen >= slen && strcmp(d->full_name + flen - slen, d->name) == 0)
                full = ms_strprintf("%.*s%s", (int)(flen - slen), d->full_name, name);
            if ((rc = ms_data_bin_rename(d, name, full)) != 0) break;
        }
        i = j;
    }
    free(order);
    free(at);
    free(line);
    free(cs.v);
    return rc;
}
