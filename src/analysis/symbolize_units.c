/* The function index of a compilation unit: a pc's scopes found by descending from the
 * function that holds it, not by walking the whole unit. */
#include "symbolize_internal.h"

#include <dwarf.h>
#include <stdlib.h>

static int add_fn_ranges(cu_index *c, Dwarf_Die *fn)
{
    Dwarf_Addr base, lo, hi;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0;) {
        if (c->nfns == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            fn_range *p = realloc(c->fns, cap * sizeof *p);
            if (!p) return -1;
            c->fns = p;
            c->cap = cap;
        }
        if (hi > lo) c->fns[c->nfns++] = (fn_range){ lo, hi, *fn };
    }
    return 0;
}

static int add_member(cu_index *c, Dwarf_Die *fn)
{
    if (c->nmembers == c->members_cap) {
        size_t cap = c->members_cap ? c->members_cap * 2 : 64;
        Dwarf_Off *p = realloc(c->members, cap * sizeof *p);
        if (!p) return -1;
        c->members = p;
        c->members_cap = cap;
    }
    c->members[c->nmembers++] = dwarf_dieoffset(fn);
    return 0;
}

/* The functions with code under parent, descending into namespaces, modules and classes (a
 * function defined there) but not into functions (their nested ones are found by descent);
 * the functions declared in a class, structure or union (in_type) as members. */
static int collect_fns(cu_index *c, Dwarf_Die *parent, int depth, bool in_type)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(parent, &child) != 0) return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            if (add_fn_ranges(c, &child) != 0 || (in_type && add_member(c, &child) != 0)) return -1;
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_module) {
            if (collect_fns(c, &child, depth + 1, false) != 0) return -1;
        } else if (tag == DW_TAG_class_type || tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
            if (collect_fns(c, &child, depth + 1, true) != 0) return -1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;
    return x < y ? -1 : x > y;
}

static int by_lo(const void *a, const void *b)
{
    const fn_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of cu, built on first use; NULL if out of memory. */
static cu_index *index_of(ms_symbolizer *s, Dwarf_Die *cu)
{
    if (s->last_cu < s->ncus && s->cus[s->last_cu].cu_addr == cu->addr) return &s->cus[s->last_cu];
    for (size_t i = 0; i < s->ncus; i++)
        if (s->cus[i].cu_addr == cu->addr) return &s->cus[s->last_cu = i];
    if (s->ncus == s->cus_cap) {
        size_t cap = s->cus_cap ? s->cus_cap * 2 : 16;
        cu_index *p = realloc(s->cus, cap * sizeof *p);
        if (!p) return NULL;
        s->cus = p;
        s->cus_cap = cap;
    }
    cu_index *c = &s->cus[s->ncus];
    *c = (cu_index){ cu->addr, NULL, 0, 0, NULL, 0, 0 };
    if (collect_fns(c, cu, 0, false) != 0) {
        free(c->fns);
        free(c->members);
        return NULL;
    }
    if (c->nfns) qsort(c->fns, c->nfns, sizeof *c->fns, by_lo);
    if (c->nmembers) qsort(c->members, c->nmembers, sizeof *c->members, by_offset); /* (NULL when none) */
    s->last_cu = s->ncus++;
    return c;
}

/* The scopes at addr (innermost first, as dwarf_getscopes gives them, up to the function),
 * found from the unit's function index: the function whose range holds addr, then its lexical
 * blocks, inlined subroutines and nested functions that hold addr, each the concrete (physical)
 * parent of the next. Returns their number (*out malloc'd), 0 when no function holds addr,
 * -1 when out of memory. */
int symbolize_indexed_scopes(ms_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **out)
{
    *out = NULL;
    cu_index *c = index_of(s, cu);
    if (!c) return -1;
    size_t lo = 0, hi = c->nfns; /* the last range starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->fns[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= c->fns[lo - 1].hi) return 0;
    enum { MAX_DEPTH = 64 };
    Dwarf_Die path[MAX_DEPTH];
    int n = 0;
    path[n++] = c->fns[lo - 1].die;
    for (bool deeper = true; deeper && n < MAX_DEPTH;) {
        deeper = false;
        Dwarf_Die child;
        if (dwarf_child(&path[n - 1], &child) != 0) break;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
                 tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
                dwarf_haspc(&child, addr) > 0) {
                path[n++] = child;
                deeper = true;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    Dwarf_Die *scopes = malloc((size_t)n * sizeof *scopes);
    if (!scopes) return -1;
    for (int i = 0; i < n; i++) scopes[i] = path[n - 1 - i];
    *out = scopes;
    return n;
}

int symbolize_is_member(ms_symbolizer *s, Dwarf_Die *fn)
{
    Dwarf_Die die = *fn, cu;
    for (int hops = 0; hops < 8; hops++) { /* the concrete function, its abstract one, its declaration */
        Dwarf_Attribute attr;
        Dwarf_Die to;
        if (!dwarf_attr(&die, DW_AT_abstract_origin, &attr) && !dwarf_attr(&die, DW_AT_specification, &attr)) break;
        if (!dwarf_formref_die(&attr, &to)) break;
        die = to;
    }
    if (!dwarf_diecu(&die, &cu, NULL, NULL)) return 0;
    cu_index *c = index_of(s, &cu);
    if (!c) return -1;
    Dwarf_Off off = dwarf_dieoffset(&die);
    return c->nmembers && bsearch(&off, c->members, c->nmembers, sizeof off, by_offset) != NULL;
}
