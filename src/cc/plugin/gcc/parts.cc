/* memspy's GCC plugin: an allocation's pointer as an element of a container (dests.cc's
 * records): `v.push_back(new T)` binds the pointer to a reference parameter, so gcc copies it
 * into a temporary whose address the member function takes; the value goes into the object
 * the function is called on. */
#include "memspy_gcc.h"

/* Whether fndecl is a C++ member function that is neither a constructor nor a destructor. */
static bool plain_method(tree fndecl)
{
    return fndecl && TREE_CODE(TREE_TYPE(fndecl)) == METHOD_TYPE && !DECL_CXX_CONSTRUCTOR_P(fndecl) &&
           !DECL_CXX_DESTRUCTOR_P(fndecl);
}

/* Whether argument i of a call of fndecl is passed to a reference parameter (`const T &`,
 * `T &&`): the function copies the value it refers to (push_back, insert). */
static bool reference_param(tree fndecl, unsigned i)
{
    tree a = TYPE_ARG_TYPES(TREE_TYPE(fndecl));
    for (; a && i > 0; a = TREE_CHAIN(a)) i--;
    return a && TREE_VALUE(a) && TREE_CODE(TREE_VALUE(a)) == REFERENCE_TYPE;
}

tree container_of_temporary(tree tmp, bool *assign)
{
    if (!VAR_P(tmp) || is_global_var(tmp)) return NULL_TREE;
    bool user = !DECL_ARTIFICIAL(tmp); /* a local the program declared: by reference only */
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
        tree fn = call ? gimple_call_fndecl(call) : NULL_TREE;
        if (!call || gimple_call_num_args(call) < 2 || !plain_method(fn)) continue;
        for (unsigned i = 1; i < gimple_call_num_args(call); i++) {
            tree a = gimple_call_arg(call, i);
            if (TREE_CODE(a) != ADDR_EXPR || TREE_OPERAND(a, 0) != tmp || (user && !reference_param(fn, i))) continue;
            tree obj = gimple_call_arg(call, 0);
            gimple *def = TREE_CODE(obj) == SSA_NAME ? SSA_NAME_DEF_STMT(obj) : NULL;
            if (def && gimple_assign_single_p(def)) obj = gimple_assign_rhs1(def); /* _1 = &this->items_ */
            *assign = DECL_NAME(fn) && strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), "operator=") == 0;
            return TREE_CODE(obj) == ADDR_EXPR ? TREE_OPERAND(obj, 0) : NULL_TREE;
        }
    }
    return NULL_TREE;
}
