/* An interpreter's C API (Lua 5.4's lua_createtable and lua_pushstring, issue 12): a table or
 * string made for a C function is stored through the state's stack top, a member that the
 * function then moves (`setobj(L->top, t); L->top++`), not through a variable or a field that
 * names it. Its blocks are named by their type (`Table`, `Str`, `Closure`), as the
 * interpreter's other stack slots are (interp_slots.c), not after the API function's local
 * (`Table*.t`, `ts`, `cl`). The table's store goes through a local (`Value *io = L->top`, Lua's
 * setobj macros), the string's straight through the member, the closure's at a variable
 * offset (lua_pushcclosure pops its upvalues first: `L->top -= n`). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct Obj {
    struct Obj *next;
    int tt;
} Obj;

typedef struct Table {
    Obj hdr;
    long slots[6];
} Table;

typedef struct Str {
    Obj hdr;
    size_t len;
    char data[24];
} Str;

typedef struct Closure {
    Obj hdr;
    int (*f)(void);
    long nup;
    struct Value *up[4];
} Closure;

typedef struct Value {
    Obj *gc;
    int tt;
} Value;

typedef struct State {
    Obj *allgc;
    Value *top;
    Value *stack;
} State;

#define api_incr_top(L) (L->top++)

__attribute__((noinline)) Obj *obj_new(State *L, int tt, size_t size)
{
    Obj *o = (Obj *)malloc(size);
    if (!o) abort();
    o->tt = tt;
    o->next = L->allgc;
    L->allgc = o;
    return o;
}

__attribute__((noinline)) Table *table_new(State *L)
{
    Table *t = (Table *)obj_new(L, 5, sizeof(Table));
    memset(t->slots, 0, sizeof t->slots);
    return t;
}

__attribute__((noinline)) Str *str_new(State *L, long v)
{
    Str *s = (Str *)obj_new(L, 4, sizeof(Str));
    s->len = (size_t)snprintf(s->data, sizeof s->data, "key%ld", v);
    return s;
}

/* lua_createtable: the new table into the stack top's slot, through a local (setobj2s). */
__attribute__((noinline)) void api_newtable(State *L)
{
    Table *t;
    t = table_new(L);
    Value *io = L->top;
    io->gc = (Obj *)t;
    io->tt = 5;
    api_incr_top(L);
}

/* lua_pushstring: the string into the stack top's slot, through the member. */
__attribute__((noinline)) const char *api_pushstring(State *L, long v)
{
    Str *ts;
    ts = str_new(L, v);
    L->top->gc = (Obj *)ts;
    L->top->tt = 4;
    api_incr_top(L);
    return ts->data;
}

/* lua_pushcclosure: a C function with its n upvalues, popped from the stack. */
__attribute__((noinline)) void api_pushclosure(State *L, int (*f)(void), int n)
{
    Closure *cl = (Closure *)obj_new(L, 6, sizeof(Closure));
    cl->f = f;
    cl->nup = n;
    L->top -= n;
    for (int i = 0; i < n; i++) cl->up[i] = L->top + i;
    L->top->gc = (Obj *)cl;
    L->top->tt = 6;
    api_incr_top(L);
}

static int lib_fn(void) { return 1; }

/* lua_settable: pops the key and the value into the table below them. */
__attribute__((noinline)) void api_settable(State *L)
{
    Table *t = (Table *)L->top[-3].gc;
    t->slots[((Str *)L->top[-2].gc)->len % 6] = L->top[-1].tt;
    L->top -= 2;
}

/* A C library's loader (luaopen_*): a table of n fields. */
__attribute__((noinline)) void open_lib(State *L, int n)
{
    for (int i = 0; i < n; i++) {
        api_newtable(L);
        api_pushstring(L, i);
        api_pushstring(L, 2 * i);
        api_settable(L);
        api_pushstring(L, 3 * i);
        api_pushclosure(L, lib_fn, 1);
        L->top -= 2;
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    State st = { NULL, NULL, NULL };
    State *L = &st;
    L->stack = calloc(16, sizeof(Value));
    L->top = L->stack;
    open_lib(L, n);
    long tables = 0, strings = 0, closures = 0, sum = 0;
    for (Obj *o = L->allgc; o; o = o->next) {
        if (o->tt == 5) {
            tables++;
            for (int i = 0; i < 6; i++) sum += ((Table *)o)->slots[i];
        } else if (o->tt == 6) {
            closures++;
            sum += ((Closure *)o)->nup;
        } else {
            strings++;
            sum += (long)((Str *)o)->len;
        }
    }
    printf("api_slots ran: %ld tables, %ld strings, %ld closures %ld\n", tables, strings, closures, sum);
    return 0;
}
