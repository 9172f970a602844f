/* An interpreter's heap (Lua 5.4's pattern, issue 12): every object comes from one allocator
 * called through a function pointer (g->frealloc), through a generic object allocator that
 * links it into a list (luaC_newobj); a table's constructor (luaH_new) returns it as a
 * `Table *`; the interpreter loop stores each new table into a slot of its dynamic value stack
 * (`ra`, reached through pointer arithmetic from ci->func) and gives it a node array stored by
 * a callee into its parameter's field (`t->node`); strings (`Str`) are linked into a hash
 * chain. Expected names: `Table`, `t->node` ("Table.node" family), `Str`; none after the
 * interpreter's CallInfo variable `ci`, which holds the result of an unrelated call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Obj {
    struct Obj *next;
    int tt;
} Obj;

typedef struct Node {
    long key, val;
    struct Node *chain;
} Node;

typedef struct Table {
    Obj hdr;
    Node *node;
    unsigned size;
    long pad[4];
} Table;

typedef struct Str {
    Obj hdr;
    struct Str *hnext;
    size_t len;
    char data[40];
} Str;

/* Lua's GCUnion: an object as what it is (gco2t, gco2ts). */
union GCUnion {
    Obj gc;
    Table h;
    Str ts;
};
#define gco2t(o) (&((union GCUnion *)(o))->h)
#define gco2ts(o) (&((union GCUnion *)(o))->ts)

typedef struct Value {
    Obj *gc;
    int tt;
} Value;

typedef struct CallInfo {
    Value *func;
    int nres;
} CallInfo;

typedef void *(*Alloc)(void *ud, void *p, size_t osize, size_t nsize);

typedef struct State {
    Alloc frealloc;
    void *ud;
    Obj *allgc;
    Value *stack;
    CallInfo *ci;
    Str **strt;
    unsigned nstrt;
} State;

static void *l_alloc(void *ud, void *p, size_t osize, size_t nsize)
{
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        free(p);
        return NULL;
    }
    return realloc(p, nsize);
}

__attribute__((noinline)) void *mem_malloc(State *L, size_t size)
{
    void *b = L->frealloc(L->ud, NULL, 0, size);
    if (!b) abort();
    return b;
}

__attribute__((noinline)) Obj *obj_new(State *L, int tt, size_t size)
{
    Obj *o = (Obj *)mem_malloc(L, size);
    o->tt = tt;
    o->next = L->allgc;
    L->allgc = o;
    return o;
}

__attribute__((noinline)) Table *table_new(State *L)
{
    Obj *o = obj_new(L, 5, sizeof(Table));
    Table *t = gco2t(o);
    t->node = NULL;
    t->size = 0;
    return t;
}

__attribute__((noinline)) static void setnodevector(State *L, Table *t, unsigned size)
{
    t->node = (Node *)mem_malloc(L, size * sizeof(Node));
    for (unsigned i = 0; i < size; i++) {
        t->node[i].key = -1;
        t->node[i].chain = NULL;
    }
    t->size = size;
}

__attribute__((noinline)) void table_resize(State *L, Table *t, unsigned size) { setnodevector(L, t, size); }

__attribute__((noinline)) Str *str_new(State *L, long v)
{
    char buf[40];
    size_t len = (size_t)snprintf(buf, sizeof buf, "item%ld", v);
    Str **list = &L->strt[(unsigned long)v % L->nstrt];
    Str *s;
    s = gco2ts(obj_new(L, 4, sizeof(Str)));
    s->len = len;
    memcpy(s->data, buf, len + 1);
    s->hnext = *list;
    *list = s;
    return s;
}


/* A string made from a number (Lua's luaV_concat -> luaS_newlstr). */
__attribute__((noinline)) Str *concat(State *L, long v)
{
    Str *ts;
    ts = str_new(L, v);
    return ts;
}

/* The interpreter loop (luaV_execute): op 0 makes a table with a hash part into slot A, op 2
 * one without, op 1 and op 3 strings. */
__attribute__((noinline)) void execute(State *L, CallInfo *ci, const int *code, int n)
{
    Value *base = ci->func + 1;
    for (int pc = 0; pc < n; pc++) {
        int op = code[pc] & 3, a = (code[pc] >> 2) & 7;
        Value *ra = base + a;
        if (op == 0) {
            Table *t;
            t = table_new(L);
            ra->gc = (Obj *)t;
            ra->tt = 5;
            table_resize(L, t, 4);
        } else if (op == 2) {
            Table *t;
            t = table_new(L);
            ra->gc = (Obj *)t;
            ra->tt = 5;
        } else {
            Str *s;
            s = op == 1 ? str_new(L, pc) : concat(L, pc);
            ra->gc = (Obj *)s;
            ra->tt = 4;
        }
    }
}

/* The interpreter's entry, called through a pointer by precall (Lua's pmain). */
__attribute__((noinline)) static void run(State *L, const int *code, int n) { execute(L, L->ci, code, n); }

/* A call that runs the program and returns a pointer the caller keeps in `ci` (luaD_precall,
 * which calls the C function that runs the interpreter). */
__attribute__((noinline)) CallInfo *precall(State *L, void (*f)(State *, const int *, int), const int *code, int n)
{
    L->ci->func = L->stack;
    f(L, code, n);
    return L->ci;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2000;
    State st = { l_alloc, NULL, NULL, NULL, NULL, NULL, 64 };
    State *L = &st;
    L->stack = calloc(16, sizeof(Value));
    L->ci = calloc(1, sizeof(CallInfo));
    L->strt = calloc(L->nstrt, sizeof(Str *));
    int *code = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; i++) code[i] = ((i % 8) << 2) | (i & 3);
    CallInfo *ci;
    ci = precall(L, run, code, n);
    ci->nres = 1;
    long sum = 0, tables = 0, strings = 0;
    for (Obj *o = L->allgc; o; o = o->next) {
        if (o->tt == 5) {
            Table *t = (Table *)o;
            tables++;
            for (unsigned i = 0; i < t->size; i++) sum += t->node[i].key;
        } else {
            strings++;
            sum += (long)((Str *)o)->len;
        }
    }
    printf("%ld %ld %ld\n", tables, strings, sum);
    return 0;
}
