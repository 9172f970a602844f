/* memspy's GCC plugin: ordered atomics routed to the runtime's atomic hooks (see
 * docs/plugin.md, "Atomics' memory order").
 *
 * An atomic with an order stronger than relaxed (or an order that is not a constant) is a
 * synchronisation point: the runtime must stamp it from the process-wide sequence at the moment
 * it happens, with the value it read, for the ATOMIC events of the recorded streams (ordering
 * edges, spin-waits collapsed; src/rt/atomics.c). Records in the thread's buffer are turned
 * into events later, so such an atomic becomes a call of the hook the ThreadSanitizer path uses
 * (`__tsan_atomicN_*`, which performs the operation and records it), as gcc's own tsan pass
 * does. Relaxed atomics stay inline sites (they order nothing). Works on GIMPLE calls of the
 * `__atomic_*` and `__sync_*` builtins of 1 to 8 bytes and on .ATOMIC_COMPARE_EXCHANGE; the
 * other internal forms (bit-test-and-set, op-fetch compared with 0) and 16-byte atomics stay
 * inline sites. Only the instrumented body is rewritten: the plain and counting copies keep
 * gcc's inline atomics. */
#include "memspy_gcc.h"
#include "langhooks.h"

/* The runtime hooks an atomic can become (their names' suffixes). */
enum hook_op {
    H_LOAD,
    H_STORE,
    H_EXCHANGE,
    H_ADD,
    H_SUB,
    H_AND,
    H_OR,
    H_XOR,
    H_NAND,
    H_CAS_STRONG,
    H_CAS_WEAK,
    H_CAS_VAL,
    H_NOPS
};
static const char *const hook_names[H_NOPS] = { "load",
                                                "store",
                                                "exchange",
                                                "fetch_add",
                                                "fetch_sub",
                                                "fetch_and",
                                                "fetch_or",
                                                "fetch_xor",
                                                "fetch_nand",
                                                "compare_exchange_strong",
                                                "compare_exchange_weak",
                                                "compare_exchange_val" };

/* Decls of the hooks by operation and size (1, 2, 4, 8 bytes); a GC root (memspy_gcc.cc). */
tree atomic_hook_decls[ATOMIC_HOOK_DECLS];
static_assert(H_NOPS * 4 == ATOMIC_HOOK_DECLS, "one decl per hook and size");

/* The integer type of n bytes the hooks take. */
static tree int_type(unsigned size) { return lang_hooks.types.type_for_size(8 * size, 1); }

/* log2 of size (1..8 bytes). */
static unsigned size_index(unsigned size) { return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3; }

/* The decl of hook op for size bytes, made on first use. */
static tree hook_decl(hook_op op, unsigned size)
{
    tree *slot = &atomic_hook_decls[op * 4 + size_index(size)];
    if (*slot) return *slot;
    tree t = int_type(size), vptr = ptr_type_node, fn;
    switch (op) {
    case H_LOAD: fn = build_function_type_list(t, vptr, integer_type_node, NULL_TREE); break;
    case H_STORE: fn = build_function_type_list(void_type_node, vptr, t, integer_type_node, NULL_TREE); break;
    case H_CAS_STRONG:
    case H_CAS_WEAK:
        fn = build_function_type_list(integer_type_node, vptr, ptr_type_node, t, integer_type_node, integer_type_node,
                                      NULL_TREE);
        break;
    case H_CAS_VAL:
        fn = build_function_type_list(t, vptr, t, t, integer_type_node, integer_type_node, NULL_TREE);
        break;
    default: fn = build_function_type_list(t, vptr, t, integer_type_node, NULL_TREE); break;
    }
    char name[64];
    snprintf(name, sizeof name, "__tsan_atomic%u_%s", 8 * size, hook_names[op]);
    *slot = build_fn_decl(name, fn);
    TREE_NOTHROW(*slot) = 1;
    return *slot;
}

/* What an atomic call becomes: hook(args...), then what the original's result is made of. */
enum post_op { POST_NONE, POST_OP, POST_EQUAL, POST_COMPLEX };
struct routing {
    hook_op op;
    unsigned size;
    unsigned nargs;
    tree args[5];
    post_op post;
    tree_code code; /* POST_OP: result = old code v (BIT_NOT of BIT_AND for nand) */
    bool nand;
    tree cmp; /* POST_EQUAL, POST_COMPLEX: the expected value */
};

/* A builtin family: its _N code (the sized ones follow: _1, _2, _4, _8, _16). */
struct family {
    built_in_function n;
    hook_op op;
    tree_code post; /* an op-fetch: the operation applied to the old value; ERROR_MARK none */
    bool sync;      /* a __sync builtin: no memmodel argument */
};
static const family families[] = {
    { BUILT_IN_ATOMIC_LOAD_N, H_LOAD, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_STORE_N, H_STORE, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_EXCHANGE_N, H_EXCHANGE, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_COMPARE_EXCHANGE_N, H_CAS_STRONG, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_ADD_N, H_ADD, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_SUB_N, H_SUB, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_AND_N, H_AND, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_OR_N, H_OR, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_XOR_N, H_XOR, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_FETCH_NAND_N, H_NAND, ERROR_MARK, false },
    { BUILT_IN_ATOMIC_ADD_FETCH_N, H_ADD, PLUS_EXPR, false },
    { BUILT_IN_ATOMIC_SUB_FETCH_N, H_SUB, MINUS_EXPR, false },
    { BUILT_IN_ATOMIC_AND_FETCH_N, H_AND, BIT_AND_EXPR, false },
    { BUILT_IN_ATOMIC_OR_FETCH_N, H_OR, BIT_IOR_EXPR, false },
    { BUILT_IN_ATOMIC_XOR_FETCH_N, H_XOR, BIT_XOR_EXPR, false },
    { BUILT_IN_ATOMIC_NAND_FETCH_N, H_NAND, BIT_AND_EXPR, false },
    { BUILT_IN_SYNC_FETCH_AND_ADD_N, H_ADD, ERROR_MARK, true },
    { BUILT_IN_SYNC_FETCH_AND_SUB_N, H_SUB, ERROR_MARK, true },
    { BUILT_IN_SYNC_FETCH_AND_AND_N, H_AND, ERROR_MARK, true },
    { BUILT_IN_SYNC_FETCH_AND_OR_N, H_OR, ERROR_MARK, true },
    { BUILT_IN_SYNC_FETCH_AND_XOR_N, H_XOR, ERROR_MARK, true },
    { BUILT_IN_SYNC_FETCH_AND_NAND_N, H_NAND, ERROR_MARK, true },
    { BUILT_IN_SYNC_ADD_AND_FETCH_N, H_ADD, PLUS_EXPR, true },
    { BUILT_IN_SYNC_SUB_AND_FETCH_N, H_SUB, MINUS_EXPR, true },
    { BUILT_IN_SYNC_AND_AND_FETCH_N, H_AND, BIT_AND_EXPR, true },
    { BUILT_IN_SYNC_OR_AND_FETCH_N, H_OR, BIT_IOR_EXPR, true },
    { BUILT_IN_SYNC_XOR_AND_FETCH_N, H_XOR, BIT_XOR_EXPR, true },
    { BUILT_IN_SYNC_NAND_AND_FETCH_N, H_NAND, BIT_AND_EXPR, true },
    { BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_N, H_CAS_VAL, ERROR_MARK, true },
    { BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_N, H_CAS_VAL, ERROR_MARK, true },
    { BUILT_IN_SYNC_LOCK_TEST_AND_SET_N, H_EXCHANGE, ERROR_MARK, true },
    { BUILT_IN_SYNC_LOCK_RELEASE_N, H_STORE, ERROR_MARK, true },
};

static tree int_cst(int v) { return build_int_cst(integer_type_node, v); }

/* How call becomes a hook call; false if it stays an inline site (not an atomic of 1-8 bytes
 * that this file routes). */
static bool route_of(gcall *call, routing *r)
{
    memset(r, 0, sizeof *r);
    if (gimple_call_internal_p(call)) {
        if (gimple_call_internal_fn(call) != IFN_ATOMIC_COMPARE_EXCHANGE) return false;
        /* (p, expected, desired, size | weak << 8, success, failure) -> a complex (old, ok) */
        r->size = (unsigned)(tree_to_uhwi(gimple_call_arg(call, 3)) & 255);
        r->op = H_CAS_VAL, r->nargs = 5, r->post = POST_COMPLEX, r->cmp = gimple_call_arg(call, 1);
        for (unsigned i = 0; i < 3; i++) r->args[i] = gimple_call_arg(call, i);
        r->args[3] = gimple_call_arg(call, 4), r->args[4] = gimple_call_arg(call, 5);
    } else {
        if (!gimple_call_builtin_p(call, BUILT_IN_NORMAL)) return false;
        built_in_function fcode = DECL_FUNCTION_CODE(gimple_call_fndecl(call));
        const family *f = NULL;
        int d = -1;
        for (size_t i = 0; i < sizeof families / sizeof families[0] && !f; i++) {
            d = (int)fcode - (int)families[i].n - 1;
            if (d >= 0 && d <= 3) f = &families[i]; /* _1 .. _8 (16 bytes stay inline) */
        }
        if (!f) return false;
        r->size = 1u << d;
        r->op = f->op;
        r->code = f->post;
        r->nand = f->op == H_NAND;
        r->post = f->post != ERROR_MARK ? POST_OP : POST_NONE;
        unsigned n = gimple_call_num_args(call);
        for (unsigned i = 0; i < n && i < 5; i++) r->args[i] = gimple_call_arg(call, i);
        r->nargs = n;
        if (f->n == BUILT_IN_ATOMIC_COMPARE_EXCHANGE_N) { /* (p, expected *, desired, weak, success, failure) */
            if (n != 6) return false;
            if (integer_onep(gimple_call_arg(call, 3))) r->op = H_CAS_WEAK;
            r->args[3] = gimple_call_arg(call, 4), r->args[4] = gimple_call_arg(call, 5), r->nargs = 5;
        } else if (f->sync) { /* fixed orders: seq_cst, but for lock_test_and_set and lock_release */
            if (f->n == BUILT_IN_SYNC_LOCK_RELEASE_N)
                r->args[1] = build_int_cst(int_type(r->size), 0), r->args[2] = int_cst(MEMMODEL_RELEASE), r->nargs = 3;
            else if (f->n == BUILT_IN_SYNC_LOCK_TEST_AND_SET_N)
                r->args[2] = int_cst(MEMMODEL_ACQUIRE), r->nargs = 3;
            else if (f->op == H_CAS_VAL) { /* (p, old, new) */
                r->args[3] = r->args[4] = int_cst(MEMMODEL_SEQ_CST), r->nargs = 5;
                r->cmp = r->args[1];
                if (f->n == BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_N) r->post = POST_EQUAL;
            } else
                r->args[2] = int_cst(MEMMODEL_SEQ_CST), r->nargs = 3;
        }
    }
    return r->size == 1 || r->size == 2 || r->size == 4 || r->size == 8;
}

bool atomic_routed(gcall *call, int order)
{
    routing r;
    return order != MEMMODEL_RELAXED && route_of(call, &r);
}

/* v converted to type, as a GIMPLE value before gsi. */
static tree convert_before(gimple_stmt_iterator *gsi, tree type, tree v)
{
    if (useless_type_conversion_p(type, TREE_TYPE(v))) return v;
    return force_gimple_operand_gsi(gsi, fold_convert(type, v), true, NULL_TREE, true, GSI_SAME_STMT);
}

/* lhs = expr (an assignment of a new SSA name of type unless lhs is given), before gsi. */
static tree assign_before(gimple_stmt_iterator *gsi, tree lhs, tree type, tree_code code, tree a, tree b,
                          location_t loc)
{
    if (!lhs) lhs = make_ssa_name(type);
    gassign *g = b ? gimple_build_assign(lhs, code, a, b) : gimple_build_assign(lhs, code, a);
    insert_before(gsi, g, loc);
    return lhs;
}

void route_atomic(gcall *call)
{
    routing r;
    if (!route_of(call, &r)) return;
    gimple_stmt_iterator gsi = gsi_for_stmt(call);
    location_t loc = gimple_location(call);
    tree t = int_type(r.size), decl = hook_decl(r.op, r.size);
    tree fntype = TREE_TYPE(decl);
    auto_vec<tree> args;
    function_args_iterator it;
    tree ptype;
    unsigned i = 0;
    FOREACH_FUNCTION_ARGS(fntype, ptype, it)
    {
        if (i >= r.nargs || VOID_TYPE_P(ptype)) break;
        args.safe_push(convert_before(&gsi, ptype, r.args[i++]));
    }
    gcall *g = gimple_build_call_vec(decl, args);
    tree lhs = gimple_call_lhs(call), ret = TREE_TYPE(fntype), old = NULL_TREE;
    if (lhs && !VOID_TYPE_P(ret)) {
        old = make_ssa_name(ret);
        gimple_call_set_lhs(g, old);
    }
    gimple_move_vops(g, call);
    insert_before(&gsi, g, loc);
    if (old) {
        tree v = NULL_TREE;
        switch (r.post) {
        case POST_NONE: break;
        case POST_OP: { /* the new value: old op v (nand: ~(old & v)) */
            tree arg = convert_before(&gsi, t, r.args[1]);
            v = assign_before(&gsi, NULL_TREE, t, r.code, old, arg, loc);
            if (r.nand) v = assign_before(&gsi, NULL_TREE, t, BIT_NOT_EXPR, v, NULL_TREE, loc);
            break;
        }
        case POST_EQUAL:
        case POST_COMPLEX: { /* ok = old == expected */
            tree cmp = convert_before(&gsi, t, r.cmp);
            v = assign_before(&gsi, NULL_TREE, boolean_type_node, EQ_EXPR, old, cmp, loc);
            if (r.post == POST_COMPLEX) {
                tree elt = TREE_TYPE(TREE_TYPE(lhs));
                tree re = convert_before(&gsi, elt, old), im = convert_before(&gsi, elt, v);
                v = assign_before(&gsi, NULL_TREE, TREE_TYPE(lhs), COMPLEX_EXPR, re, im, loc);
            }
            break;
        }
        }
        if (!v) v = old;
        if (TREE_CODE(lhs) != SSA_NAME) mark_virtual_operands_for_renaming(cfun); /* a store now */
        if (useless_type_conversion_p(TREE_TYPE(lhs), TREE_TYPE(v)))
            insert_before(&gsi, gimple_build_assign(lhs, v), loc);
        else
            insert_before(&gsi, gimple_build_assign(lhs, NOP_EXPR, v), loc);
    }
    gsi_remove(&gsi, true);
}
