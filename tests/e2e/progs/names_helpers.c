/* Names of three patterns found on real programs (issue 12; t_names_helpers):
 * - a generic object allocator (Lua's luaC_newobj: it uses its local `o`, links it into a list
 *   and returns it) called by a constructor (luaF_newproto, which returns the object as a
 *   `Proto *`) whose callers store the object in a field or an element (`cl->p = ...`,
 *   `f->kids[f->nkids++] = ...`): named after the field and the element, `cl.p` and
 *   `f.kids[]`, not the allocator's local `o`;
 * - a one-off and a hot object of one name (a buffer `buf` that setup makes once and work makes
 *   1000 times through one helper): neither keeps the plain name, `char*.buf@setup` and
 *   `char*.buf@work`, whatever their counts;
 * - a small copy helper called from many places (leveldb's Status::CopyState through Status's
 *   copy constructor, inlined into each caller): ... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct GCObj {
    struct GCObj *next;
    unsigned char tt, marked;
} GCObj;

typedef struct Global {
    GCObj *allgc;
    long nobj;
} Global;

typedef struct Proto {
    GCObj hdr;
    struct Proto **kids;
    int nkids;
    long code[8];
} Proto;

typedef struct Closure {
    Proto *p;
    int nup;
} Closure;

union GCUnion {
    GCObj gc;
    Proto p;
};
#define gco2p(o) (&((union GCUnion *)(o))->p)

static long total;

/* The generic allocator (luaC_newobj). */
__attribute__((noinline)) GCObj *newobj(Global *g, int tt, size_t sz)
{
    GCObj *o = malloc(sz);
    o->marked = 1;
    o->tt = (unsigned char)tt;
    o->next = g->allgc;
    g->allgc = o;
    g->nobj++;
    return o;
}

/* A constructor (luaF_newproto). */
__attribute__((noinline)) Proto *newproto(Global *g)
{
    GCObj *o = newobj(g, 9, sizeof(Proto));
    Proto *f = gco2p(o);
    f->kids = NULL;
    f->nkids = 0;
    memset(f->code, 0, sizeof f->code);
    return f;
}

/* The parser's nested functions (addprototype): each prototype into its parent's array. */
__attribute__((noinline)) static void add_kids(Global *g, Proto *f, int n)
{
    f->kids = calloc((size_t)n, sizeof *f->kids);
    for (int i = 0; i < n; i++) f->kids[f->nkids++] = newproto(g);
}

/* A helper that makes a buffer and fills it. */
__attribute__((noinline)) static char *make_buf(size_t n)
{
    char *b = malloc(n);
    memset(b, 7, n);
    return b;
}

__attribute__((noinline)) static void use_buf(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i += 64) total += s[i];
}

/* The one-off. */
__attribute__((noinline)) static void setup(void)
{
    char *buf = make_buf(4096);
    use_buf(buf, 4096);
    free(buf);
}

/* The hot one: 1000 buffers. */
__attribute__((noinline)) static void work(int n)
{
    for (int i = 0; i < n; i++) {
        char *buf = make_buf(256);
        use_buf(buf, 256);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    Global g = { NULL, 0 };
    Closure *cl = malloc(sizeof *cl);
    cl->p = newproto(&g);
    cl->nup = 0;
    add_kids(&g, cl->p, n);
    long kids = 0;
    for (int i = 0; i < cl->p->nkids; i++) kids += cl->p->kids[i]->nkids + 1;
    setup();
    work(n);
    printf("%ld %ld %ld\n", g.nobj, kids, total);
    return 0;
}
