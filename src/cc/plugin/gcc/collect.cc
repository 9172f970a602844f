/* memspy's GCC plugin: which statements access memory, and how they group (see memspy_gcc.cc). */
#include "memspy_gcc.h"

/* ---- what is an access ---- */

/* Whether operand t (a GIMPLE operand) reads or writes memory that exists at run time: not a
 * register, not a constant, not a local that expand will keep in a register. */
static bool is_memory(tree t)
{
    if (!t || TREE_CODE(t) == SSA_NAME || TREE_CODE(t) == CONSTRUCTOR || is_gimple_min_invariant(t)) return false;
    if (!handled_component_p(t) && TREE_CODE(t) != MEM_REF && TREE_CODE(t) != TARGET_MEM_REF && !VAR_P(t) &&
        TREE_CODE(t) != PARM_DECL && TREE_CODE(t) != RESULT_DECL)
        return false;
    if (is_gimple_reg(t)) return false;
    tree base = get_base_address(t);
    if (!base || TREE_CODE(base) == SSA_NAME) return false;
    if (DECL_P(base)) {
        if (VAR_P(base) && DECL_HARD_REGISTER(base)) return false;
        if (!is_global_var(base) && !TREE_ADDRESSABLE(base) && use_register_for_decl(base)) return false;
    }
    return true;
}

/* The address of memory operand t and its size in bytes (0: not instrumentable, e.g. a
 * variable-sized or non-addressable operand). A bit-field access is widened to its
 * representative field. The base of a local is marked addressable (it lives in memory). */
static tree address_of(tree t, unsigned *size)
{
    *size = 0;
    if (TREE_CODE(t) == BIT_FIELD_REF) { /* a byte-aligned part of a memory operand (a lane) */
        tree inner = TREE_OPERAND(t, 0);
        if (!tree_fits_uhwi_p(TREE_OPERAND(t, 1)) || !tree_fits_uhwi_p(TREE_OPERAND(t, 2))) return NULL_TREE;
        unsigned HOST_WIDE_INT bits = tree_to_uhwi(TREE_OPERAND(t, 1)), pos = tree_to_uhwi(TREE_OPERAND(t, 2));
        unsigned inner_size;
        if (bits % 8 || pos % 8 || !bits || !is_memory(inner)) return NULL_TREE;
        tree addr = address_of(inner, &inner_size);
        if (!addr || pos / 8 + bits / 8 > inner_size) return NULL_TREE;
        *size = (unsigned)(bits / 8);
        return fold_build_pointer_plus_hwi(addr, pos / 8);
    }
    if (TREE_CODE(t) == COMPONENT_REF && DECL_BIT_FIELD_TYPE(TREE_OPERAND(t, 1))) {
        tree repr = DECL_BIT_FIELD_REPRESENTATIVE(TREE_OPERAND(t, 1));
        if (!repr) return NULL_TREE;
        t = build3(COMPONENT_REF, TREE_TYPE(repr), TREE_OPERAND(t, 0), repr, NULL_TREE);
    }
    HOST_WIDE_INT s = int_size_in_bytes(TREE_TYPE(t));
    if (s <= 0 || s > 0x7fffffff) return NULL_TREE;
    if (TREE_CODE(t) != TARGET_MEM_REF && may_be_nonaddressable_p(t)) return NULL_TREE;
    tree base = get_base_address(t);
    if (base && DECL_P(base) && !is_global_var(base)) TREE_ADDRESSABLE(base) = 1;
    *size = (unsigned)s;
    if (TREE_CODE(t) == TARGET_MEM_REF) return tree_mem_ref_addr(ptr_type_node, t);
    return build_fold_addr_expr(unshare_expr(t));
}

/* The memory order of a constant memmodel argument (MEMMODEL_* base: 0..5), -1 otherwise. */
static int order_of(tree arg)
{
    if (!arg || !tree_fits_uhwi_p(arg)) return -1;
    int m = (int)memmodel_base(tree_to_uhwi(arg));
    return m >= 0 && m <= 5 ? m : -1;
}

/* The memory order of atomic builtin call (fcode of kind `kind`): its memmodel argument, or
 * the __sync builtins' fixed orders (full barriers but for lock_test_and_set, an acquire, and
 * lock_release, a release). */
static int builtin_order(gcall *call, built_in_function fcode, unsigned kind)
{
    int d;
    if ((d = (int)fcode - (int)BUILT_IN_SYNC_LOCK_TEST_AND_SET_1) >= 0 && d <= 4) return 2;
    if ((d = (int)fcode - (int)BUILT_IN_SYNC_LOCK_RELEASE_1) >= 0 && d <= 4) return 3;
    if (fcode >= BUILT_IN_SYNC_FETCH_AND_ADD_N && fcode <= BUILT_IN_SYNC_SYNCHRONIZE) return 5;
    if ((d = (int)fcode - (int)BUILT_IN_ATOMIC_COMPARE_EXCHANGE_1) >= 0 && d <= 4)
        return gimple_call_num_args(call) > 4 ? order_of(gimple_call_arg(call, 4)) : -1;
    unsigned at = kind == MSPLUG_K_ATOMIC_LOAD ? 1 : 2; /* load(p, mo); store/exchange/ops(p, v, mo) */
    return gimple_call_num_args(call) > at ? order_of(gimple_call_arg(call, at)) : -1;
}

/* Kind and size of an atomic builtin call, 0 if fcode is not one. */
static unsigned atomic_kind(built_in_function fcode, unsigned *size)
{
    static const struct {
        built_in_function first;
        unsigned kind;
    } fams[] = {
        { BUILT_IN_ATOMIC_LOAD_1, MSPLUG_K_ATOMIC_LOAD },
        { BUILT_IN_ATOMIC_STORE_1, MSPLUG_K_ATOMIC_STORE },
        { BUILT_IN_SYNC_LOCK_RELEASE_1, MSPLUG_K_ATOMIC_STORE },
        { BUILT_IN_ATOMIC_EXCHANGE_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_COMPARE_EXCHANGE_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_ADD_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_SUB_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_NAND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_XOR_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_OR_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_ADD_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_SUB_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_AND_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_NAND_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_XOR_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_ATOMIC_FETCH_OR_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_ADD_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_SUB_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_OR_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_AND_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_XOR_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_FETCH_AND_NAND_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_ADD_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_SUB_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_OR_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_AND_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_XOR_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_NAND_AND_FETCH_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_BOOL_COMPARE_AND_SWAP_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_VAL_COMPARE_AND_SWAP_1, MSPLUG_K_ATOMIC_RMW },
        { BUILT_IN_SYNC_LOCK_TEST_AND_SET_1, MSPLUG_K_ATOMIC_RMW },
    };
    for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++) {
        int d = (int)fcode - (int)fams[i].first;
        if (d >= 0 && d <= 4) { /* _1, _2, _4, _8, _16 follow each other */
            *size = 1u << d;
            return fams[i].kind;
        }
    }
    return 0;
}

static void add_site(fn_state *st, gimple *stmt, unsigned kind, unsigned size, tree a, tree b, tree c, bool alone)
{
    site s = { stmt, { a, b, c }, kind, size, alone, -1 };
    st->sites.safe_push(s);
}

/* End the current group (the next site starts a new one). */
static void close_group(fn_state *st, unsigned *open_from)
{
    if (*open_from < st->sites.length()) st->group_start.safe_push(*open_from);
    *open_from = st->sites.length();
}

/* A read or write of memory operand t by stmt. */
static void add_access(fn_state *st, gimple *stmt, tree t, bool write)
{
    unsigned size;
    tree addr = address_of(t, &size);
    if (addr) add_site(st, stmt, write ? MSPLUG_K_WRITE : MSPLUG_K_READ, size, addr, NULL_TREE, NULL_TREE, false);
}

/* ---- -O0: the stack slots of user variables ----
 * Without optimisation expand gives every user variable and parameter its own stack slot
 * (use_register_for_decl is false for them) and each statement loads the variables it uses
 * from their slots and stores the one it sets; in GIMPLE they are SSA names, not memory
 * operands. At -O0 (and only there: with optimisation they are registers) a use is a read and
 * a definition a write of the variable's slot, as the native -O0 binary makes them. All the
 * SSA names of such a variable share the variable's slot (at -O0 out-of-SSA coalesces them),
 * which is the variable's DECL_RTL, so the record's address is the variable's address. */

/* The variable whose stack slot SSA name t lives in at -O0, NULL_TREE if t is a register. */
static tree slot_var(tree t)
{
    if (!t || TREE_CODE(t) != SSA_NAME || virtual_operand_p(t)) return NULL_TREE;
    tree var = SSA_NAME_VAR(t);
    if (!var || (!VAR_P(var) && TREE_CODE(var) != PARM_DECL) || DECL_IGNORED_P(var)) return NULL_TREE;
    if (VAR_P(var) && (DECL_HARD_REGISTER(var) || is_global_var(var))) return NULL_TREE;
    if (use_register_for_decl(t)) return NULL_TREE;
    HOST_WIDE_INT s = int_size_in_bytes(TREE_TYPE(t));
    return s > 0 && s <= 64 ? var : NULL_TREE;
}

/* A read (write) of the slot of SSA name t by stmt, if it has one. */
static void add_slot_access(fn_state *st, gimple *stmt, tree t, bool write)
{
    tree var = slot_var(t);
    if (!var) return;
    unsigned size = (unsigned)int_size_in_bytes(TREE_TYPE(t));
    if (!st->slot_decls.contains(var)) st->slot_decls.safe_push(var);
    add_site(st, stmt, write ? MSPLUG_K_WRITE : MSPLUG_K_READ, size, build_fold_addr_expr(var), NULL_TREE, NULL_TREE,
             false);
}

/* The slot reads of stmt's SSA uses, and its floating-point constants (before its own
 * accesses). At -O0 expand loads every floating-point operand but +0.0 from the constant pool
 * (with optimisation the loads are hoisted out of loops); the record reads the constant's
 * copy in .rodata (tree_output_constant_def), not the pool entry itself: the same count of
 * reads, to a neighbouring line. */
static void slot_reads(fn_state *st, gimple *stmt)
{
    ssa_op_iter it;
    tree t;
    FOR_EACH_SSA_TREE_OPERAND(t, stmt, it, SSA_OP_USE) add_slot_access(st, stmt, t, false);
    if (gimple_code(stmt) != GIMPLE_ASSIGN && gimple_code(stmt) != GIMPLE_COND && gimple_code(stmt) != GIMPLE_CALL &&
        gimple_code(stmt) != GIMPLE_RETURN)
        return;
    for (unsigned i = 0; i < gimple_num_ops(stmt); i++) {
        t = gimple_op(stmt, i);
        if (!t || TREE_CODE(t) != REAL_CST) continue;
        if (real_zerop(t) && !REAL_VALUE_NEGATIVE(TREE_REAL_CST(t))) continue; /* pxor */
        if (is_gimple_assign(stmt) && gimple_assign_rhs_code(stmt) == MULT_EXPR &&
            real_equal(TREE_REAL_CST_PTR(t), &dconst2))
            continue; /* x * 2.0: expand_mult makes x + x */
        HOST_WIDE_INT size = int_size_in_bytes(TREE_TYPE(t));
        if (size <= 0 || size > 16) continue;
        add_site(st, stmt, MSPLUG_K_READ, (unsigned)size, build_fold_addr_expr(tree_output_constant_def(t)), NULL_TREE,
                 NULL_TREE, false);
    }
}

/* The slot write of stmt's SSA definition (after its own accesses). */
static void slot_writes(fn_state *st, gimple *stmt)
{
    ssa_op_iter it;
    tree t;
    FOR_EACH_SSA_TREE_OPERAND(t, stmt, it, SSA_OP_DEF) add_slot_access(st, stmt, t, true);
}

/* At -O0 the prologue stores each parameter passed in a register into its slot: a write per
 * such parameter, before the first statement. Register parameters as the x86-64 SysV ABI
 * passes them: the first six integer or pointer scalars and the first eight float or double
 * ones (others, and what follows them in memory, are not stored). */
static void param_writes(fn_state *st, gimple *first)
{
    unsigned ints = 0, sses = 0;
    tree fn = current_function_decl;
    if (aggregate_value_p(DECL_RESULT(fn), fn)) ints++; /* the hidden return pointer */
    for (tree p = DECL_ARGUMENTS(fn); p; p = DECL_CHAIN(p)) {
        tree type = TREE_TYPE(p);
        bool in_int = INTEGRAL_TYPE_P(type) || POINTER_TYPE_P(type);
        bool in_sse = SCALAR_FLOAT_TYPE_P(type) && TYPE_PRECISION(type) <= 64;
        if (in_int && ints++ >= 6) continue;
        if (in_sse && sses++ >= 8) continue;
        if (!in_int && !in_sse) continue;
        if (DECL_IGNORED_P(p) || use_register_for_decl(p)) continue;
        if (!TREE_ADDRESSABLE(p) && !st->slot_decls.contains(p)) st->slot_decls.safe_push(p);
        add_site(st, first, MSPLUG_K_WRITE, (unsigned)int_size_in_bytes(type), build_fold_addr_expr(p), NULL_TREE,
                 NULL_TREE, false);
    }
}

/* An ordered atomic that becomes a call of the runtime's hook (atomics.cc): no site; it ends
 * the group, as a call does, so that the accesses before it are drained before its event. */
static bool route(fn_state *st, gcall *call, unsigned *open_from)
{
    close_group(st, open_from);
    st->atomics.safe_push(call);
    st->has_calls++;
    return true;
}

/* Sites of a call. Returns true if the call ends the current group (it may run instrumented
 * code or the runtime). */
static bool call_sites(fn_state *st, gcall *call, unsigned *open_from)
{
    if (gimple_call_internal_p(call)) {
        internal_fn ifn = gimple_call_internal_fn(call);
        tree ptr = NULL_TREE, sized = NULL_TREE, order = NULL_TREE;
        unsigned kind = 0, size = 0;
        switch (ifn) {
        case IFN_MASK_LOAD: ptr = gimple_call_arg(call, 0), sized = gimple_call_lhs(call), kind = MSPLUG_K_READ; break;
        case IFN_MASK_STORE:
            ptr = gimple_call_arg(call, 0), sized = gimple_call_arg(call, 3), kind = MSPLUG_K_WRITE;
            break;
        case IFN_ATOMIC_COMPARE_EXCHANGE: /* (p, expected, desired, size | weak << 8, success, failure) */
            ptr = gimple_call_arg(call, 0), kind = MSPLUG_K_ATOMIC_RMW;
            size = (unsigned)(tree_to_uhwi(gimple_call_arg(call, 3)) & 255);
            order = gimple_call_arg(call, 4);
            break;
        case IFN_ATOMIC_BIT_TEST_AND_SET:
        case IFN_ATOMIC_BIT_TEST_AND_COMPLEMENT:
        case IFN_ATOMIC_BIT_TEST_AND_RESET:
            ptr = gimple_call_arg(call, 0), sized = gimple_call_arg(call, 1), kind = MSPLUG_K_ATOMIC_RMW;
            order = gimple_call_arg(call, 3); /* (p, bit, flag, memmodel, fn) */
            break;
        case IFN_ATOMIC_ADD_FETCH_CMP_0:
        case IFN_ATOMIC_SUB_FETCH_CMP_0:
        case IFN_ATOMIC_AND_FETCH_CMP_0:
        case IFN_ATOMIC_OR_FETCH_CMP_0:
        case IFN_ATOMIC_XOR_FETCH_CMP_0:
            ptr = gimple_call_arg(call, 1), sized = gimple_call_arg(call, 2), kind = MSPLUG_K_ATOMIC_RMW;
            order = gimple_call_arg(call, 3); /* (cmp, p, v, memmodel, fn) */
            break;
        default: return false; /* expanded inline, no memory of its own */
        }
        if (sized) {
            HOST_WIDE_INT s = int_size_in_bytes(TREE_TYPE(sized));
            size = s > 0 ? (unsigned)s : 0;
        }
        if (size && atomic_routed(call, order_of(order))) return route(st, call, open_from);
        if (size) {
            add_site(st, call, kind, size, ptr, NULL_TREE, NULL_TREE, false);
            st->sites.last().order = order_of(order);
        }
        return false;
    }
    if (gimple_call_builtin_p(call, BUILT_IN_NORMAL)) {
        built_in_function fcode = DECL_FUNCTION_CODE(gimple_call_fndecl(call));
        unsigned size;
        unsigned kind = atomic_kind(fcode, &size);
        if (kind && atomic_routed(call, builtin_order(call, fcode, kind))) return route(st, call, open_from);
        if (kind) {
            add_site(st, call, kind, size, gimple_call_arg(call, 0), NULL_TREE, NULL_TREE, false);
            st->sites.last().order = builtin_order(call, fcode, kind);
            return false;
        }
        switch (fcode) {
        case BUILT_IN_MEMCPY:
        case BUILT_IN_MEMMOVE:
        case BUILT_IN_MEMPCPY:
        case BUILT_IN_MEMSET: {
            bool set = fcode == BUILT_IN_MEMSET;
            tree len = gimple_call_arg(call, 2);
            bool fixed = tree_fits_uhwi_p(len) && tree_to_uhwi(len) <= 0x7fffffff;
            close_group(st, open_from);
            if (fixed && tree_to_uhwi(len) == 0) return true;
            unsigned k = set ? (fixed ? MSPLUG_K_SET : MSPLUG_K_SET_VAR) : (fixed ? MSPLUG_K_COPY : MSPLUG_K_COPY_VAR);
            tree dst = gimple_call_arg(call, 0), src = set ? NULL_TREE : gimple_call_arg(call, 1);
            tree n = fixed ? NULL_TREE : len;
            add_site(st, call, k, fixed ? (unsigned)tree_to_uhwi(len) : 0, dst, set ? n : src, set ? NULL_TREE : n,
                     true);
            return true;
        }
        case BUILT_IN_EXPECT:
        case BUILT_IN_PREFETCH:
        case BUILT_IN_ASSUME_ALIGNED:
        case BUILT_IN_UNREACHABLE:
        case BUILT_IN_TRAP:
        case BUILT_IN_RETURN_ADDRESS:
        case BUILT_IN_FRAME_ADDRESS:
        case BUILT_IN_ALLOCA:
        case BUILT_IN_ALLOCA_WITH_ALIGN:
        case BUILT_IN_STACK_SAVE:
        case BUILT_IN_STACK_RESTORE:
        case BUILT_IN_ATOMIC_THREAD_FENCE:
        case BUILT_IN_ATOMIC_SIGNAL_FENCE:
        case BUILT_IN_SYNC_SYNCHRONIZE: return false;
        default: break;
        }
    }
    st->has_calls++;
    return true;
}

/* An aggregate copy or clear large enough that expand may call memcpy/memset: a group of its
 * own, so that the runtime's interposed memcpy/memset can see it was recorded. Returns true
 * if stmt was handled so. */
static bool big_aggregate(fn_state *st, gimple *stmt, unsigned *open_from)
{
    if (!gimple_assign_single_p(stmt)) return false;
    tree lhs = gimple_assign_lhs(stmt), rhs = gimple_assign_rhs1(stmt);
    if (is_gimple_reg_type(TREE_TYPE(lhs)) || !is_memory(lhs)) return false;
    HOST_WIDE_INT s = int_size_in_bytes(TREE_TYPE(lhs));
    if (s <= 64) return false;
    bool clear = TREE_CODE(rhs) == CONSTRUCTOR;
    if (!clear && !is_memory(rhs)) return false;
    unsigned size, size2 = 0;
    tree dst = address_of(lhs, &size), src = clear ? NULL_TREE : address_of(rhs, &size2);
    if (!dst || (!clear && (!src || size2 != size))) return false;
    close_group(st, open_from);
    add_site(st, stmt, clear ? MSPLUG_K_SET : MSPLUG_K_COPY, size, dst, src, NULL_TREE, true);
    close_group(st, open_from);
    return true;
}

/* Whether stmt comes from a function inlined here (its lines are the callee's, not this
 * function's). */
static bool inlined_stmt(gimple *stmt)
{
    for (tree b = gimple_block(stmt); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
        if (inlined_function_outer_scope_p(b)) return true;
    return false;
}

/* Collect the sites of bb, split them into groups, and describe bb as a counted block if it
 * has a statement. */
void collect_bb(fn_state *st, basic_block bb)
{
    unsigned open_from = st->sites.length();
    unsigned first_site = open_from, first_group = st->group_start.length(), stmts = 0;
    bool call_first = false; /* a call precedes the block's first group */
    gimple *first = NULL;
    unsigned first_line = 0, last_line = 0;
    const char *fn_file = DECL_SOURCE_FILE(current_function_decl);
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *stmt = gsi_stmt(gsi);
        if (is_gimple_debug(stmt) || gimple_clobber_p(stmt) || gimple_code(stmt) == GIMPLE_LABEL ||
            gimple_code(stmt) == GIMPLE_NOP)
            continue;
        if (!first) {
            first = stmt;
            /* (not in a first block that is also a loop's header: it would count them again) */
            if (!optimize && bb == single_succ(ENTRY_BLOCK_PTR_FOR_FN(cfun)) && single_pred_p(bb))
                param_writes(st, stmt);
        }
        stmts++;
        expanded_location xl = expand_location(gimple_location(stmt));
        if (xl.line > 0 && xl.file && fn_file && strcmp(xl.file, fn_file) == 0 && !inlined_stmt(stmt)) {
            if (!first_line || (unsigned)xl.line < first_line) first_line = (unsigned)xl.line;
            if ((unsigned)xl.line > last_line) last_line = (unsigned)xl.line;
        }
        if (!optimize) slot_reads(st, stmt);
        if (is_gimple_assign(stmt)) {
            if (big_aggregate(st, stmt, &open_from)) continue;
            tree lhs = gimple_assign_lhs(stmt);
            if (gimple_assign_single_p(stmt) && is_memory(gimple_assign_rhs1(stmt)))
                add_access(st, stmt, gimple_assign_rhs1(stmt), false);
            if (is_memory(lhs)) add_access(st, stmt, lhs, true);
        } else if (gcall *call = dyn_cast<gcall *>(stmt)) {
            unsigned calls = st->has_calls;
            if (!optimize) slot_writes(st, stmt); /* recorded with the arguments, before the call */
            if (call_sites(st, call, &open_from)) close_group(st, &open_from);
            if (st->has_calls != calls && st->group_start.length() == first_group && open_from == first_site)
                call_first = true;
            tree fndecl = gimple_call_fndecl(call);
            if (st->has_calls != calls && !gimple_call_internal_p(call) &&
                (!fndecl || !fndecl_built_in_p(fndecl))) { /* a call edge */
                st->calls.safe_push(call);
                st->call_block.safe_push(st->blocks.length()); /* bb's index once it is pushed below */
            }
            /* a call's memory result or aggregate arguments: copied by code expand makes (not seen) */
            if (gimple_call_tail_p(call)) gimple_call_set_tail(call, false); /* exit hook after it */
        }
        if (!optimize && !is_a<gcall *>(stmt)) slot_writes(st, stmt);
        /* a group's words must fit its reservation */
        unsigned words = 1;
        for (unsigned i = open_from; i < st->sites.length(); i++) words += msplug_site_words(st->sites[i].kind);
        if (words + 3 > MSPLUG_GROUP_MAX_WORDS) close_group(st, &open_from);
    }
    close_group(st, &open_from);
    for (unsigned g = first_group; g < st->group_start.length(); g++) st->group_block.safe_push(-1);
    if (!first) return; /* an empty forwarder: no code of its own to count */
    bool merged = !call_first && st->group_start.length() > first_group;
    block b = {
        bb,         first,    merged ? (int)first_group : -1, st->sites.length() - first_site, stmts, MSPLUG_NO_LOOP,
        first_line, last_line
    };
    if (merged) st->group_block[first_group] = (int)st->blocks.length();
    st->blocks.safe_push(b);
}
