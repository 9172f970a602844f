/* memspy's GCC plugin (GCC 12): inline capture of the memory accesses of the optimised code.
 *
 * What is instrumented. One GIMPLE pass, inserted just before the pass named "optimized"
 * (PASS_POS_INSERT_BEFORE): that is after vectorisation, loop-invariant motion, scalar
 * replacement and register promotion, so the accesses seen are those the binary makes (the
 * vector loads and stores of a vectorised loop, not the scalar ones of the source), and only
 * RTL-level changes remain (register spills, aggregate argument copies, prologue saves: not
 * seen). Every statement of a function is examined:
 *   - loads and stores of every width (scalar, 16/32/64-byte vectors, aggregates), through
 *     pointers or to globals, const/read-only data, string literals, local arrays and other
 *     locals that live in memory (a local that expand will keep in a register is skipped);
 *   - masked vector loads/stores (.MASK_LOAD/.MASK_STORE): one access covering the whole
 *     vector, masked lanes included;
 *   - atomic builtins (__atomic_*, __sync_*, and the internal .ATOMIC_* forms): one access
 *     of kind atomic load, store or read-modify-write (a compare-exchange counts as a
 *     read-modify-write whether it succeeds or not);
 *   - __builtin_memcpy/memmove/mempcpy/memset (whatever size; gcc may expand them inline or
 *     call libc) and aggregate copies/clears larger than 64 bytes: one range access per
 *     operand. The runtime's interposed memcpy/memset recognise a call the plugin already
 *     recorded (the last group of the thread's buffer) and do not count it twice.
 * Not seen: gathers/scatters (x86 target builtins), register spills, inline assembly operands,
 * aggregate arguments and return values passed in memory, work inside libc (the runtime's
 * interposers see the string/memory calls).
 *
 * Code emitted (msplug_abi.h is the contract with the runtime): accesses of a basic block
 * with no call between them form a group; the group reserves its words in the thread's
 * initial-exec buffer with one bounds check (a cold call to __memspy_flush when full),
 * stores a header (its first site) and one word per address, and publishes the new count
 * once. Each function gets a static site table (size, kind per site) and calls
 * __memspy_func_entry/__memspy_func_exit at entry and before each return (the runtime's
 * shadow call stack; tail calls are disabled in instrumented functions so that the exit
 * call runs after the callee; exceptions and longjmp skip the exit call and the runtime
 * pops the stale frames by frame address, as for -fsanitize=thread). The pc of each site is
 * an asm label placed just before the access, emitted with the site's address into the
 * section __memspy_pcs (in the function's COMDAT group if it has one); one constructor per
 * translation unit hands that section to __memspy_register_pcs.
 *
 * Options (-fplugin-arg-memspy_gcc-<name>): "verbose" prints per function the number of
 * sites and groups to stderr. Any other option is an error.
 *
 * Debugging: -fdump-tree-memspy shows each instrumented function after the pass (compare
 * with -fdump-tree-optimized); -fplugin-arg-memspy_gcc-verbose; the emitted asm labels and
 * pairs are visible with -S. */
#include "gcc-plugin.h"
#include "plugin-version.h"

#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "context.h"
#include "ssa.h"
#include "cgraph.h"
#include "stringpool.h"
#include "fold-const.h"
#include "gimple-iterator.h"
#include "gimplify.h"
#include "gimplify-me.h"
#include "tree-ssa-loop-ivopts.h"
#include "tree-ssa-address.h"
#include "builtins.h"
#include "attribs.h"
#include "asan.h"
#include "internal-fn.h"
#include "alias.h"
#include "varasm.h"
#include "diagnostic-core.h"
#include "cfgloop.h"
#include "tree-cfg.h"
#include "attribs.h"
#include "tree-iterator.h"
#include "ggc.h"
#include "gtype-desc.h"

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"

int plugin_is_GPL_compatible;

static const char *plugin_name_s = "memspy_gcc";
static bool opt_verbose;

/* Trees kept across functions: registered as GC roots in plugin_init. */
static tree word_type; /* a 64-bit unsigned type with an alias set of its own */
static tree word_ptr;  /* word_type * */
static tree buf_decl;  /* extern __thread word __memspy_buf[1 + MSPLUG_BUF_WORDS] */
static tree flush_decl, entry_decl, exit_decl, register_decl, register_blocks_decl;
static tree pcs_start_decl, pcs_stop_decl, bpcs_start_decl, bpcs_stop_decl;

static unsigned table_counter; /* site tables made in this translation unit */
static bool any_instrumented;  /* the unit needs its constructor */
static bool building_ctor;     /* our own constructor is being compiled: not instrumented */

/* ---- declarations of the runtime's symbols ---- */

static tree runtime_fn(const char *name, tree type)
{
    tree fn = build_fn_decl(name, type);
    TREE_NOTHROW(fn) = 1;
    return fn;
}

/* An extern variable defined by the linker in each module that has the section (hidden:
 * this module's; weak: null where no object of the module has a site). */
static tree linker_symbol(const char *name)
{
    tree d = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(name), char_type_node);
    TREE_PUBLIC(d) = 1;
    DECL_EXTERNAL(d) = 1;
    DECL_ARTIFICIAL(d) = 1;
    TREE_ADDRESSABLE(d) = 1;
    DECL_VISIBILITY(d) = VISIBILITY_HIDDEN;
    DECL_VISIBILITY_SPECIFIED(d) = 1;
    DECL_WEAK(d) = 1; /* absent (null) in a module without sites */
    return d;
}

/* Build the decls once (on the first function). */
static void make_decls(void)
{
    if (buf_decl) return;
    word_type = build_distinct_type_copy(long_long_unsigned_type_node);
    TYPE_ALIAS_SET(word_type) = new_alias_set();
    word_ptr = build_pointer_type(word_type);
    tree arr = build_array_type_nelts(word_type, 1 + MSPLUG_BUF_WORDS);
    buf_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(MSPLUG_SYM_BUF), arr);
    TREE_PUBLIC(buf_decl) = 1;
    DECL_EXTERNAL(buf_decl) = 1;
    DECL_ARTIFICIAL(buf_decl) = 1;
    TREE_ADDRESSABLE(buf_decl) = 1;
    set_decl_tls_model(buf_decl, TLS_MODEL_INITIAL_EXEC);
    tree void_fn = build_function_type_list(void_type_node, NULL_TREE);
    flush_decl = runtime_fn(MSPLUG_SYM_FLUSH, void_fn);
    DECL_ATTRIBUTES(flush_decl) = tree_cons(get_identifier("cold"), NULL_TREE, NULL_TREE);
    entry_decl = runtime_fn(MSPLUG_SYM_ENTRY, build_function_type_list(void_type_node, ptr_type_node, NULL_TREE));
    exit_decl = runtime_fn(MSPLUG_SYM_EXIT, void_fn);
    register_decl = runtime_fn(MSPLUG_SYM_REGISTER,
                               build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE));
    register_blocks_decl = runtime_fn(
        MSPLUG_SYM_REGISTER_BLOCKS, build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE));
    pcs_start_decl = linker_symbol("__start_" MSPLUG_PCS_SECTION);
    pcs_stop_decl = linker_symbol("__stop_" MSPLUG_PCS_SECTION);
    bpcs_start_decl = linker_symbol("__start_" MSPLUG_BLOCK_PCS_SECTION);
    bpcs_stop_decl = linker_symbol("__stop_" MSPLUG_BLOCK_PCS_SECTION);
}

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

/* One access site of the current function, before code is emitted for it. */
struct site {
    gimple *stmt; /* records go just before this statement */
    tree ops[3];  /* the words to store (pointer or integer expressions) */
    unsigned kind, size;
    bool alone; /* a group of its own, committed right before stmt (copies, sets) */
};

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

/* A counted basic block of the function being instrumented. */
struct block {
    basic_block bb;
    gimple *first;   /* its first statement: the block word's and the pc label's place */
    int group;       /* the group whose reservation carries the block word, -1: one of its own */
    unsigned memops; /* sites in it */
    unsigned stmts;  /* statements in it (debug statements and clobbers excluded) */
    unsigned loop;   /* index of its innermost loop in the function's loop table, MSPLUG_NO_LOOP */
};

/* The function being instrumented: its sites in statement order, its groups and its blocks. */
struct fn_state {
    auto_vec<site> sites;
    auto_vec<unsigned> group_start; /* index of each group's first site */
    auto_vec<block> blocks;
    auto_vec<int> group_block; /* per group: the block whose word it carries, -1 none */
    unsigned has_calls;
};

static void add_site(fn_state *st, gimple *stmt, unsigned kind, unsigned size, tree a, tree b, tree c, bool alone)
{
    site s = { stmt, { a, b, c }, kind, size, alone };
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

/* Sites of a call. Returns true if the call ends the current group (it may run instrumented
 * code or the runtime). */
static bool call_sites(fn_state *st, gcall *call, unsigned *open_from)
{
    if (gimple_call_internal_p(call)) {
        internal_fn ifn = gimple_call_internal_fn(call);
        tree ptr = NULL_TREE, sized = NULL_TREE;
        unsigned kind = 0, size = 0;
        switch (ifn) {
        case IFN_MASK_LOAD: ptr = gimple_call_arg(call, 0), sized = gimple_call_lhs(call), kind = MSPLUG_K_READ; break;
        case IFN_MASK_STORE:
            ptr = gimple_call_arg(call, 0), sized = gimple_call_arg(call, 3), kind = MSPLUG_K_WRITE;
            break;
        case IFN_ATOMIC_COMPARE_EXCHANGE:
            ptr = gimple_call_arg(call, 0), kind = MSPLUG_K_ATOMIC_RMW;
            size = (unsigned)(tree_to_uhwi(gimple_call_arg(call, 3)) & 255);
            break;
        case IFN_ATOMIC_BIT_TEST_AND_SET:
        case IFN_ATOMIC_BIT_TEST_AND_COMPLEMENT:
        case IFN_ATOMIC_BIT_TEST_AND_RESET:
            ptr = gimple_call_arg(call, 0), sized = gimple_call_arg(call, 1), kind = MSPLUG_K_ATOMIC_RMW;
            break;
        case IFN_ATOMIC_ADD_FETCH_CMP_0:
        case IFN_ATOMIC_SUB_FETCH_CMP_0:
        case IFN_ATOMIC_AND_FETCH_CMP_0:
        case IFN_ATOMIC_OR_FETCH_CMP_0:
        case IFN_ATOMIC_XOR_FETCH_CMP_0:
            ptr = gimple_call_arg(call, 1), sized = gimple_call_arg(call, 2), kind = MSPLUG_K_ATOMIC_RMW;
            break;
        default: return false; /* expanded inline, no memory of its own */
        }
        if (sized) {
            HOST_WIDE_INT s = int_size_in_bytes(TREE_TYPE(sized));
            size = s > 0 ? (unsigned)s : 0;
        }
        if (size) add_site(st, call, kind, size, ptr, NULL_TREE, NULL_TREE, false);
        return false;
    }
    if (gimple_call_builtin_p(call, BUILT_IN_NORMAL)) {
        built_in_function fcode = DECL_FUNCTION_CODE(gimple_call_fndecl(call));
        unsigned size;
        unsigned kind = atomic_kind(fcode, &size);
        if (kind) {
            add_site(st, call, kind, size, gimple_call_arg(call, 0), NULL_TREE, NULL_TREE, false);
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

/* Collect the sites of bb, split them into groups, and describe bb as a counted block if it
 * has a statement. */
static void collect_bb(fn_state *st, basic_block bb)
{
    unsigned open_from = st->sites.length();
    unsigned first_site = open_from, first_group = st->group_start.length(), stmts = 0;
    bool call_first = false; /* a call precedes the block's first group */
    gimple *first = NULL;
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *stmt = gsi_stmt(gsi);
        if (is_gimple_debug(stmt) || gimple_clobber_p(stmt) || gimple_code(stmt) == GIMPLE_LABEL ||
            gimple_code(stmt) == GIMPLE_NOP)
            continue;
        if (!first) first = stmt;
        stmts++;
        if (is_gimple_assign(stmt)) {
            if (big_aggregate(st, stmt, &open_from)) continue;
            tree lhs = gimple_assign_lhs(stmt);
            if (gimple_assign_single_p(stmt) && is_memory(gimple_assign_rhs1(stmt)))
                add_access(st, stmt, gimple_assign_rhs1(stmt), false);
            if (is_memory(lhs)) add_access(st, stmt, lhs, true);
        } else if (gcall *call = dyn_cast<gcall *>(stmt)) {
            unsigned calls = st->has_calls;
            if (call_sites(st, call, &open_from)) close_group(st, &open_from);
            if (st->has_calls != calls && st->group_start.length() == first_group && open_from == first_site)
                call_first = true;
            /* a call's memory result or aggregate arguments: copied by code expand makes (not seen) */
            if (gimple_call_tail_p(call)) gimple_call_set_tail(call, false); /* exit hook after it */
        }
        /* a group's words must fit its reservation */
        unsigned words = 1;
        for (unsigned i = open_from; i < st->sites.length(); i++) words += msplug_site_words(st->sites[i].kind);
        if (words + 3 > MSPLUG_GROUP_MAX_WORDS) close_group(st, &open_from);
    }
    close_group(st, &open_from);
    for (unsigned g = first_group; g < st->group_start.length(); g++) st->group_block.safe_push(-1);
    if (!first) return; /* an empty forwarder: no code of its own to count */
    bool merged = !call_first && st->group_start.length() > first_group;
    block b = { bb, first, merged ? (int)first_group : -1, st->sites.length() - first_site, stmts, MSPLUG_NO_LOOP };
    if (merged) st->group_block[first_group] = (int)st->blocks.length();
    st->blocks.safe_push(b);
}

/* ---- emitting ---- */

static tree word_ref(tree base, unsigned word)
{
    return build2(MEM_REF, word_type, base, build_int_cst(word_ptr, 8 * word));
}

/* tmp = expr (as a word), before gsi. */
static tree as_word(gimple_stmt_iterator *gsi, tree expr)
{
    return force_gimple_operand_gsi(gsi, fold_convert(word_type, expr), true, NULL_TREE, true, GSI_SAME_STMT);
}

static void insert_before(gimple_stmt_iterator *gsi, gimple *g, location_t loc)
{
    gimple_set_location(g, loc);
    gsi_insert_before(gsi, g, GSI_SAME_STMT);
}

/* An asm label "1:" here, and the pair (1b + 1, table + offset) into section (the function's
 * COMDAT group if it has one, so the pair goes with the code): the runtime writes the pc into
 * the table entry at offset. */
static gimple *pc_label(const char *section, const char *table, unsigned offset, const char *comdat)
{
    char text[512];
    if (comdat)
        snprintf(text, sizeof text,
                 "1:\n\t.pushsection %s,\"awG\",@progbits,%s,comdat\n\t.balign 8\n\t.quad 1b+1, %s+%u\n\t.popsection",
                 section, comdat, table, offset);
    else
        snprintf(text, sizeof text,
                 "1:\n\t.pushsection %s,\"aw\",@progbits\n\t.balign 8\n\t.quad 1b+1, %s+%u\n\t.popsection", section,
                 table, offset);
    gasm *g = gimple_build_asm_vec(ggc_strdup(text), NULL, NULL, NULL, NULL);
    gimple_asm_set_volatile(g, true);
    return g;
}

/* Reserve `words` words of the thread's buffer just before statement at: emits
 *   b = &__memspy_buf[0]; n0 = b[0]; if (n0 > CAP - words) __memspy_flush (); n = PHI <n0, 0>;
 *   p = b + 8 * n;
 * and returns p (records go to p[1 ..]); *b_out and *n_out: b and n, for the commit. */
static tree reserve_words(gimple *at, unsigned words, location_t loc, tree *b_out, tree *n_out)
{
    gimple_stmt_iterator gsi = gsi_for_stmt(at);
    tree b = make_ssa_name(word_ptr);
    tree elt0 = build4(ARRAY_REF, word_type, buf_decl, integer_zero_node, NULL_TREE, NULL_TREE);
    insert_before(&gsi, gimple_build_assign(b, build_fold_addr_expr(elt0)), loc);
    tree n0 = make_ssa_name(word_type);
    insert_before(&gsi, gimple_build_assign(n0, word_ref(b, 0)), loc);
    gcond *cond =
        gimple_build_cond(GT_EXPR, n0, build_int_cst(word_type, MSPLUG_BUF_WORDS - words), NULL_TREE, NULL_TREE);
    gimple_set_location(cond, loc);
    basic_block then_bb, fall_bb;
    gimple_stmt_iterator split_at = gsi;
    gimple_stmt_iterator cond_gsi = create_cond_insert_point(&split_at, true, false, true, &then_bb, &fall_bb);
    gsi_insert_after(&cond_gsi, cond, GSI_NEW_STMT);
    basic_block cond_bb = gimple_bb(cond);
    gimple_stmt_iterator then_gsi = gsi_start_bb(then_bb);
    gcall *flush = gimple_build_call(flush_decl, 0);
    gimple_set_location(flush, loc);
    gsi_insert_after(&then_gsi, flush, GSI_NEW_STMT);
    tree n = make_ssa_name(word_type);
    gphi *phi = create_phi_node(n, fall_bb);
    add_phi_arg(phi, n0, find_edge(cond_bb, fall_bb), loc);
    add_phi_arg(phi, build_int_cst(word_type, 0), find_edge(then_bb, fall_bb), loc);

    gsi = gsi_for_stmt(at);
    tree ns = make_ssa_name(sizetype), off = make_ssa_name(sizetype), p = make_ssa_name(word_ptr);
    insert_before(&gsi, gimple_build_assign(ns, NOP_EXPR, n), loc);
    insert_before(&gsi, gimple_build_assign(off, MULT_EXPR, ns, size_int(8)), loc);
    insert_before(&gsi, gimple_build_assign(p, POINTER_PLUS_EXPR, b, off), loc);
    *b_out = b;
    *n_out = n;
    return p;
}

/* p[w] = (word) &table[index] | tag, before gsi. */
static void store_tagged_address(gimple_stmt_iterator *gsi, tree p, unsigned w, tree table, unsigned index,
                                 unsigned HOST_WIDE_INT tag, location_t loc)
{
    tree elt = build4(ARRAY_REF, TREE_TYPE(TREE_TYPE(table)), table, size_int(index), NULL_TREE, NULL_TREE);
    tree addr = as_word(gsi, build_fold_addr_expr(elt));
    tree tagged = make_ssa_name(word_type);
    insert_before(gsi, gimple_build_assign(tagged, BIT_IOR_EXPR, addr, build_int_cstu(word_type, tag)), loc);
    insert_before(gsi, gimple_build_assign(word_ref(p, w), tagged), loc);
}

/* b[0] = n + words, before gsi: publishes the records. */
static void commit_words(gimple_stmt_iterator *gsi, tree b, tree n, unsigned words, location_t loc)
{
    tree nk = make_ssa_name(word_type);
    insert_before(gsi, gimple_build_assign(nk, PLUS_EXPR, n, build_int_cst(word_type, words)), loc);
    insert_before(gsi, gimple_build_assign(word_ref(b, 0), nk), loc);
}

/* A block word in a reservation of its own, just before the block's first statement. */
static void emit_block_word(const block &bk, unsigned index, tree blocks)
{
    location_t loc = gimple_location(bk.first);
    tree b, n;
    tree p = reserve_words(bk.first, 1, loc, &b, &n);
    gimple_stmt_iterator gsi = gsi_for_stmt(bk.first);
    store_tagged_address(&gsi, p, 1, blocks, 4 * index, MSPLUG_BLOCK_TAG, loc);
    commit_words(&gsi, b, n, 1, loc);
}

/* Emit group g (sites [first, end)) of the function's table; blk: the index of the block
 * whose word the group carries first (-1 none). */
static void emit_group(fn_state *st, unsigned first, unsigned end, tree table, const char *table_name,
                       const char *comdat, int blk, tree blocks)
{
    unsigned words = 1 + (blk >= 0);
    for (unsigned i = first; i < end; i++) words += msplug_site_words(st->sites[i].kind);
    gimple *s0 = st->sites[first].stmt;
    location_t loc = gimple_location(s0);
    tree b, n;
    tree p = reserve_words(s0, words, loc, &b, &n);

    /* p[1] = block word (if any), then the header (first site, bit 63 set) */
    gimple_stmt_iterator gsi = gsi_for_stmt(s0);
    unsigned w = 1;
    if (blk >= 0) store_tagged_address(&gsi, p, w++, blocks, 4 * (unsigned)blk, MSPLUG_BLOCK_TAG, loc);
    store_tagged_address(&gsi, p, w++, table, 2 * first, HOST_WIDE_INT_1U << 63, loc);

    for (unsigned i = first; i < end; i++) {
        site &s = st->sites[i];
        gsi = gsi_for_stmt(s.stmt);
        location_t sloc = gimple_location(s.stmt);
        unsigned nw = msplug_site_words(s.kind);
        for (unsigned j = 0; j < nw; j++) {
            tree v = as_word(&gsi, s.ops[j]);
            insert_before(&gsi, gimple_build_assign(word_ref(p, w++), v), sloc);
        }
        if (i + 1 == end) commit_words(&gsi, b, n, words, sloc);
        insert_before(&gsi, pc_label(MSPLUG_PCS_SECTION, table_name, 16 * i, comdat), sloc);
    }
}

/* A static table of n 64-bit words of the current function (not yet filled), named
 * prefix.N. */
static tree make_table(const char *prefix, unsigned nwords, char *name, size_t namelen)
{
    snprintf(name, namelen, "%s.%u", prefix, table_counter++);
    tree type = build_array_type_nelts(long_long_unsigned_type_node, nwords);
    tree t = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(name), type);
    TREE_STATIC(t) = 1;
    TREE_PUBLIC(t) = 0;
    DECL_ARTIFICIAL(t) = 1;
    DECL_IGNORED_P(t) = 1;
    TREE_ADDRESSABLE(t) = 1;
    DECL_PRESERVE_P(t) = 1;
    TREE_USED(t) = 1;
    SET_DECL_ALIGN(t, 128);
    DECL_USER_ALIGN(t) = 1;
    SET_DECL_ASSEMBLER_NAME(t, get_identifier(name));
    return t;
}

/* The word (u64) &table[index], as a static initializer. */
static tree table_address(tree table, unsigned index)
{
    tree elt = build4(ARRAY_REF, long_long_unsigned_type_node, table, size_int(index), NULL_TREE, NULL_TREE);
    return fold_convert(long_long_unsigned_type_node, build_fold_addr_expr(elt));
}

/* qsort order of loops: outermost first (then by number: deterministic). */
static int outer_first(const void *a, const void *b)
{
    const class loop *x = *(const class loop *const *)a, *y = *(const class loop *const *)b;
    if (loop_depth(x) != loop_depth(y)) return (int)loop_depth(x) - (int)loop_depth(y);
    return x->num - y->num;
}

/* Give the function's blocks their innermost loops and fill the loop table (if it has
 * loops): {nloops, 0}, then {&header block, MSPLUG_LOOP_INFO(parent, depth)} per loop.
 * Returns the loop table or NULL_TREE. Loops whose header is not a counted block are left out
 * (their blocks count under the enclosing loop). */
static tree make_loop_table(fn_state *st, tree blocks, function *fun)
{
    if (!loops_for_fn(fun) || number_of_loops(fun) <= 1) return NULL_TREE;
    hash_map<int_hash<int, -1, -2>, unsigned> block_of; /* bb index -> block index */
    for (unsigned i = 0; i < st->blocks.length(); i++) block_of.put(st->blocks[i].bb->index, i);
    auto_vec<class loop *> loops;
    hash_map<int_hash<int, -1, -2>, unsigned> index_of; /* loop num -> table index */
    for (auto lp : loops_list(fun, LI_FROM_INNERMOST)) {
        /* a loop the optimizers left behind without its header is no loop any more */
        if (!lp->header || lp->header->loop_father != lp || !block_of.get(lp->header->index)) continue;
        if (loops.length() >= MSPLUG_NO_LOOP - 1) break;
        loops.safe_push(lp);
    }
    if (loops.is_empty()) return NULL_TREE;
    /* outermost first, so that a parent's index is below its children's */
    loops.qsort(outer_first);
    for (unsigned i = 0; i < loops.length(); i++) index_of.put(loops[i]->num, i);
    char name[64];
    tree table = make_table("__memspy_loops", 2 + 2 * loops.length(), name, sizeof name);
    vec<constructor_elt, va_gc> *elts = NULL;
    auto_vec<unsigned> depths;
    CONSTRUCTOR_APPEND_ELT(elts, size_int(0), build_int_cst(long_long_unsigned_type_node, loops.length()));
    CONSTRUCTOR_APPEND_ELT(elts, size_int(1), build_int_cst(long_long_unsigned_type_node, 0));
    for (unsigned i = 0; i < loops.length(); i++) {
        class loop *lp = loops[i];
        unsigned parent = MSPLUG_NO_LOOP;
        for (class loop *o = loop_outer(lp); o && o->num; o = loop_outer(o))
            if (unsigned *pi = index_of.get(o->num)) {
                parent = *pi;
                break;
            }
        unsigned depth = parent == MSPLUG_NO_LOOP ? 1 : depths[parent] + 1; /* parents come first */
        depths.safe_push(depth);
        unsigned hb = *block_of.get(lp->header->index);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(2 + 2 * i), table_address(blocks, 4 * hb));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(3 + 2 * i),
                               build_int_cstu(long_long_unsigned_type_node, MSPLUG_LOOP_INFO(parent, depth)));
    }
    DECL_INITIAL(table) = build_constructor(TREE_TYPE(table), elts);
    varpool_node::finalize_decl(table);
    /* each block's innermost counted loop */
    for (unsigned i = 0; i < st->blocks.length(); i++)
        for (class loop *o = st->blocks[i].bb->loop_father; o && o->num; o = loop_outer(o))
            if (unsigned *li = index_of.get(o->num)) {
                st->blocks[i].loop = *li;
                break;
            }
    return table;
}

/* Fill the block table: {0, MSPLUG_BLOCK_INFO, 0, &loop table or 0} per block. */
static void fill_blocks(fn_state *st, tree blocks, tree loops)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    for (unsigned i = 0; i < st->blocks.length(); i++) {
        const block &bk = st->blocks[i];
        unsigned memops = bk.memops > 0xffffffffu ? 0xffffffffu : bk.memops;
        unsigned stmts = bk.stmts > 0xffffu ? 0xffffu : bk.stmts;
        tree zero = build_int_cst(long_long_unsigned_type_node, 0);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(4 * i), zero);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(4 * i + 1),
                               build_int_cstu(long_long_unsigned_type_node, MSPLUG_BLOCK_INFO(bk.loop, memops, stmts)));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(4 * i + 2), zero);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(4 * i + 3), loops ? table_address(loops, 0) : zero);
    }
    DECL_INITIAL(blocks) = build_constructor(TREE_TYPE(blocks), elts);
    varpool_node::finalize_decl(blocks);
}

/* Fill the table's initializer: {0, info} per site, MSPLUG_F_LAST on each group's last. */
static void fill_table(fn_state *st, tree table)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    unsigned ng = st->group_start.length();
    for (unsigned g = 0; g < ng; g++) {
        unsigned first = st->group_start[g], end = g + 1 < ng ? st->group_start[g + 1] : st->sites.length();
        for (unsigned i = first; i < end; i++) {
            const site &s = st->sites[i];
            uint64_t info = MSPLUG_INFO(s.size, s.kind, i + 1 == end ? MSPLUG_F_LAST : 0);
            if (i == first) {
                unsigned words = 0;
                for (unsigned j = first; j < end; j++) words += msplug_site_words(st->sites[j].kind);
                info |= MSPLUG_INFO_GROUP_WORDS(words);
            }
            CONSTRUCTOR_APPEND_ELT(elts, size_int(2 * i), build_int_cst(long_long_unsigned_type_node, 0));
            CONSTRUCTOR_APPEND_ELT(elts, size_int(2 * i + 1), build_int_cstu(long_long_unsigned_type_node, info));
        }
    }
    DECL_INITIAL(table) = build_constructor(TREE_TYPE(table), elts);
    varpool_node::finalize_decl(table);
}

/* __memspy_func_entry (__builtin_return_address (0)) at entry, __memspy_func_exit () before
 * each return. */
static void emit_entry_exit(void)
{
    gimple_seq seq = NULL;
    tree ra = make_ssa_name(ptr_type_node);
    gcall *g = gimple_build_call(builtin_decl_implicit(BUILT_IN_RETURN_ADDRESS), 1, integer_zero_node);
    gimple_call_set_lhs(g, ra);
    gimple_seq_add_stmt(&seq, g);
    gimple_seq_add_stmt(&seq, gimple_build_call(entry_decl, 1, ra));
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, EXIT_BLOCK_PTR_FOR_FN(cfun)->preds)
    {
        gimple_stmt_iterator gsi = gsi_last_bb(e->src);
        if (gsi_end_p(gsi) || gimple_code(gsi_stmt(gsi)) != GIMPLE_RETURN) continue;
        gcall *x = gimple_build_call(exit_decl, 0);
        gimple_set_location(x, gimple_location(gsi_stmt(gsi)));
        gsi_insert_before(&gsi, x, GSI_SAME_STMT);
    }
    gsi_insert_seq_on_edge_immediate(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(cfun)), seq);
}

/* The pass body: instrument the current function (cfun, in SSA form, after the loop and
 * vector optimisations). */
static unsigned int instrument_function(function *fun)
{
    make_decls();
    fn_state st;
    st.has_calls = 0;
    auto_vec<basic_block> bbs;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) bbs.safe_push(bb);
    for (unsigned i = 0; i < bbs.length(); i++) collect_bb(&st, bbs[i]);
    unsigned nsites = st.sites.length(), nblocks = st.blocks.length();
    if (nsites == 0 && st.has_calls == 0 && nblocks == 0) return 0;
    tree group = DECL_COMDAT_GROUP(current_function_decl);
    const char *comdat = group ? IDENTIFIER_POINTER(group) : NULL;
    char bname[64];
    tree blocks = NULL_TREE, loops = NULL_TREE;
    if (nblocks) {
        blocks = make_table("__memspy_blocks", 4 * nblocks, bname, sizeof bname);
        loops = make_loop_table(&st, blocks, fun); /* before the CFG changes */
    }
    if (opt_verbose)
        fprintf(stderr, "memspy_gcc: %s: %u sites in %u groups, %u blocks, %u loops\n", function_name(fun), nsites,
                st.group_start.length(), nblocks,
                loops ? (unsigned)tree_to_uhwi(CONSTRUCTOR_ELT(DECL_INITIAL(loops), 0)->value) : 0);
    free_dominance_info(CDI_DOMINATORS);
    free_dominance_info(CDI_POST_DOMINATORS);
    if (nsites) {
        char name[64];
        tree table = make_table("__memspy_sites", 2 * nsites, name, sizeof name);
        unsigned ng = st.group_start.length();
        for (unsigned g = 0; g < ng; g++) {
            unsigned first = st.group_start[g], end = g + 1 < ng ? st.group_start[g + 1] : nsites;
            emit_group(&st, first, end, table, name, comdat, st.group_block[g], blocks);
        }
        fill_table(&st, table);
    }
    for (unsigned i = 0; i < nblocks; i++) {
        const block &bk = st.blocks[i];
        if (bk.group < 0) emit_block_word(bk, i, blocks);
        gimple_stmt_iterator gsi = gsi_for_stmt(bk.first);
        insert_before(&gsi, pc_label(MSPLUG_BLOCK_PCS_SECTION, bname, 32 * i, comdat), gimple_location(bk.first));
    }
    if (nblocks) fill_blocks(&st, blocks, loops);
    if (nsites || st.has_calls) emit_entry_exit();
    any_instrumented = true;
    return TODO_update_ssa | TODO_cleanup_cfg;
}

/* ---- the pass ---- */

static const pass_data memspy_pass_data = {
    GIMPLE_PASS, "memspy", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct memspy_pass : gimple_opt_pass {
    memspy_pass(gcc::context *ctx) : gimple_opt_pass(memspy_pass_data, ctx) {}
    /* Skips our constructor, naked functions (no prologue to call from) and functions marked
     * no_instrument_function. */
    bool gate(function *fun) final override
    {
        tree attrs = DECL_ATTRIBUTES(fun->decl);
        return !building_ctor && !lookup_attribute("no_instrument_function", attrs) &&
               !lookup_attribute("naked", attrs);
    }
    unsigned int execute(function *fun) final override { return instrument_function(fun); }
};

/* PLUGIN_FINISH_UNIT: the unit's constructor,
 * __memspy_register_pcs (&__start___memspy_pcs, &__stop___memspy_pcs), which also activates
 * the runtime (as __tsan_init does) before the unit's own constructors run (its priority
 * comes first). */
static void finish_unit(void *, void *)
{
    if (!any_instrumented) return;
    building_ctor = true;
    /* The section's bounds are weak and hidden: declared here, in the constructor's own code,
     * since the unit's external declarations were already written out. */
    static const char directives[] =
        ".weak __start_" MSPLUG_PCS_SECTION "\n\t.hidden __start_" MSPLUG_PCS_SECTION
        "\n\t.weak __stop_" MSPLUG_PCS_SECTION "\n\t.hidden __stop_" MSPLUG_PCS_SECTION
        "\n\t.weak __start_" MSPLUG_BLOCK_PCS_SECTION "\n\t.hidden __start_" MSPLUG_BLOCK_PCS_SECTION
        "\n\t.weak __stop_" MSPLUG_BLOCK_PCS_SECTION "\n\t.hidden __stop_" MSPLUG_BLOCK_PCS_SECTION;
    tree text = build_string(sizeof directives, directives);
    tree asm_stmt = build5(ASM_EXPR, void_type_node, text, NULL_TREE, NULL_TREE, NULL_TREE, NULL_TREE);
    ASM_INPUT_P(asm_stmt) = 1;
    ASM_VOLATILE_P(asm_stmt) = 1;
    tree call =
        build_call_expr(register_decl, 2, build_fold_addr_expr(pcs_start_decl), build_fold_addr_expr(pcs_stop_decl));
    tree call_blocks = build_call_expr(register_blocks_decl, 2, build_fold_addr_expr(bpcs_start_decl),
                                       build_fold_addr_expr(bpcs_stop_decl));
    tree body = alloc_stmt_list();
    append_to_statement_list(asm_stmt, &body);
    append_to_statement_list(call, &body);
    append_to_statement_list(call_blocks, &body);
    cgraph_build_static_cdtor('I', body, MAX_RESERVED_INIT_PRIORITY - 1);
    building_ctor = false;
}

static const ggc_root_tab memspy_roots[] = {
    { &word_type, 1, sizeof word_type, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &word_ptr, 1, sizeof word_ptr, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &buf_decl, 1, sizeof buf_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &flush_decl, 1, sizeof flush_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &entry_decl, 1, sizeof entry_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &exit_decl, 1, sizeof exit_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &register_decl, 1, sizeof register_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &pcs_start_decl, 1, sizeof pcs_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &pcs_stop_decl, 1, sizeof pcs_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &register_blocks_decl, 1, sizeof register_blocks_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &bpcs_start_decl, 1, sizeof bpcs_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &bpcs_stop_decl, 1, sizeof bpcs_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    LAST_GGC_ROOT_TAB,
};

static plugin_info memspy_info = {
    "0.1",
    "memspy: inline capture of memory accesses after vectorisation (see the file header)",
};

/* Entry point: check the GCC version, the options, then register the pass (before
 * "optimized"), the GC roots and the end-of-unit constructor. */
int plugin_init(plugin_name_args *info, plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("%s: built for GCC %s, loaded into GCC %s", info->full_name, gcc_version.basever, version->basever);
        return 1;
    }
    plugin_name_s = info->base_name;
    for (int i = 0; i < info->argc; i++) {
        if (strcmp(info->argv[i].key, "verbose") == 0) {
            opt_verbose = true;
        } else {
            error("%s: unknown option %<-fplugin-arg-%s-%s%>", plugin_name_s, plugin_name_s, info->argv[i].key);
            return 1;
        }
    }
    register_callback(plugin_name_s, PLUGIN_INFO, NULL, &memspy_info);
    struct register_pass_info pass;
    pass.pass = new memspy_pass(g);
    pass.reference_pass_name = "optimized";
    pass.ref_pass_instance_number = 1;
    pass.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(plugin_name_s, PLUGIN_PASS_MANAGER_SETUP, NULL, &pass);
    register_callback(plugin_name_s, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)memspy_roots);
    register_callback(plugin_name_s, PLUGIN_FINISH_UNIT, finish_unit, NULL);
    return 0;
}
