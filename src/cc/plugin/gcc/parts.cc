/* memspy's GCC plugin: an allocation's pointer as an element of a container (dests.cc's
 * records): `v.push_back(new T)` binds the pointer to a reference parameter, so gcc copies it
 * into a temporary whose address the member function takes; the value goes into the object
 * the function is called on; `m[k] = new T` stores it through the reference that an element
 * accessor of the container returns. */
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

/* The object of a member function call's first argument (`&m`, or `_1 = &this->items_` at
 * -O0), NULL_TREE if it is not an address. */
static tree call_object(gcall *call)
{
    tree obj = gimple_call_arg(call, 0);
    gimple *def = TREE_CODE(obj) == SSA_NAME ? SSA_NAME_DEF_STMT(obj) : NULL;
    if (def && gimple_assign_single_p(def)) obj = gimple_assign_rhs1(def);
    return TREE_CODE(obj) == ADDR_EXPR ? TREE_OPERAND(obj, 0) : NULL_TREE;
}

/* The object of the member function call (not a constructor nor a destructor) that takes
 * value (an SSA name), or the address of variable var, as an argument other than the object
 * (a local the program declared: by reference only), NULL_TREE if none; *assign: the function
 * is an assignment operator. */
static tree object_taking(tree value, tree var, bool *assign)
{
    bool user = var && !DECL_ARTIFICIAL(var);
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
        tree fn = call ? gimple_call_fndecl(call) : NULL_TREE;
        if (!call || gimple_call_num_args(call) < 2 || !plain_method(fn)) continue;
        for (unsigned i = 1; i < gimple_call_num_args(call); i++) {
            tree a = gimple_call_arg(call, i);
            if (a != value && !(var && TREE_CODE(a) == ADDR_EXPR && TREE_OPERAND(a, 0) == var)) continue;
            if (user && !reference_param(fn, i)) continue;
            *assign = DECL_NAME(fn) && strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), "operator=") == 0;
            return call_object(call);
        }
    }
    return NULL_TREE;
}

tree container_of_temporary(tree tmp, bool *assign)
{
    if (!VAR_P(tmp) || is_global_var(tmp)) return NULL_TREE;
    return object_taking(NULL_TREE, tmp, assign);
}

tree container_of_moved(tree var, bool *assign)
{
    if (!VAR_P(var) || DECL_ARTIFICIAL(var) || is_global_var(var)) return NULL_TREE;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
        tree fn = call ? gimple_call_fndecl(call) : NULL_TREE;
        tree a = call && gimple_call_num_args(call) == 1 ? gimple_call_arg(call, 0) : NULL_TREE;
        tree r = call ? gimple_call_lhs(call) : NULL_TREE;
        if (!fn || !DECL_NAME(fn) || strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), "move") != 0 || !a ||
            TREE_CODE(a) != ADDR_EXPR || TREE_OPERAND(a, 0) != var || !r || TREE_CODE(r) != SSA_NAME)
            continue;
        if (tree obj = object_taking(r, NULL_TREE, assign)) return obj;
    }
    return NULL_TREE;
}

tree container_of_reference(tree ref)
{
    static const char *const accessors[] = { "operator[]", "at", "front", "back" };
    gcall *call = ref && TREE_CODE(ref) == SSA_NAME ? dyn_cast<gcall *>(SSA_NAME_DEF_STMT(ref)) : NULL;
    tree fn = call ? gimple_call_fndecl(call) : NULL_TREE;
    if (!call || gimple_call_num_args(call) < 1 || !plain_method(fn) || !DECL_NAME(fn) ||
        TREE_CODE(TREE_TYPE(TREE_TYPE(fn))) != REFERENCE_TYPE)
        return NULL_TREE;
    for (const char *a : accessors)
        if (strcmp(IDENTIFIER_POINTER(DECL_NAME(fn)), a) == 0) return call_object(call);
    return NULL_TREE;
}

static tree find_tree(tree *t, int *, void *want) { return *t == (tree)want ? *t : NULL_TREE; }

bool unread_result(tree lhs, gimple *call)
{
    if (!lhs || !VAR_P(lhs) || !DECL_ARTIFICIAL(lhs) || is_global_var(lhs)) return false;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        if (s == call || is_gimple_debug(s) || gimple_clobber_p(s)) continue;
        for (unsigned i = 0; i < gimple_num_ops(s); i++) {
            tree op = gimple_op(s, i);
            if (op && walk_tree_without_duplicates(&op, find_tree, lhs)) return false;
        }
    }
    return true;
}
