/* memspy's GCC plugin: what dests_find.cc (where a call's result goes, per inline level) gives
 * dests.cc (the records). */
#ifndef MEMSPY_GCC_DESTS_H
#define MEMSPY_GCC_DESTS_H
#include "memspy_gcc.h"

/* What one inline level of the call names. */
struct level {
    location_t loc; /* level 0: the call; level k: where level k-1's function was inlined */
    tree fn;        /* the level's function (the origin of an inlined one) */
    char kind;      /* '-', 'v' (variable), 'm' (memory through a pointer, field, element), 'o' (a
                     * declared object the value is stored in, or that a constructor builds) */
    bool decl;      /* a variable declared on loc's line */
    bool autov;     /* kind 'v': an automatic variable or a parameter of the function, not a global
                     * or a static (msplug_abi.h's "l") */
    bool local;     /* a local of the function (automatic, or a parameter; or a volatile place), which a
                     * store of the value into a named place (a field, an element, a container,
                     * a global) outranks: `char *result = new char[n]; blocks_.push_back(result)` */
    bool used;      /* a statement of the level uses the value: dereferences or offsets it, passes it
                     * to a call (besides copying, comparing, storing or returning it) */
    bool ret;       /* stored in a part of a local aggregate that the function returns by value
                     * (`buffer.start = start; return buffer;`): path names that part */
    bool slot;      /* stored in a slot no variable or field names: through a cursor computed by
                     * pointer arithmetic (an interpreter's stack slot `ra = base + A`, a hash
                     * chain's head `*list`, list = &tb->hash[h]); type: the value's if no path */
    unsigned outp;  /* 1 + the index of the pointer parameter of the level's function the value
                     * is stored through (`*coder_ptr = v`: the caller's argument names it), 0 none */
    char type[MSPLUG_DEST_TEXT_MAX], path[MSPLUG_DEST_TEXT_MAX];
};

/* dests_find.cc (each defined with its comment). */
void make_levels(gimple *call, auto_vec<level> &lv);
int level_of_var(auto_vec<level> &lv, tree var, gimple *s);
bool user_var(tree v);
void note(auto_vec<level> &lv, int k, tree t, char kind);
int param_index(tree p);
void note_out_param(auto_vec<level> &lv, tree lhs, int pi);
bool find_dests(gcall *call, auto_vec<level> &lv, bool *returned, bool *object);

#endif
