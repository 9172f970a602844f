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
 *   - at -O0, the stack slots of user variables and parameters, which expand loads at each use
 *     and stores at each assignment (SSA names in GIMPLE), the prologue's parameter stores and
 *     the constant-pool loads of floating-point operands (collect.cc);
 *   - masked vector loads/stores (.MASK_LOAD/.MASK_STORE): one access covering the whole
 *     vector, masked lanes included;
 *   - atomic builtins (__atomic_*, __sync_*, and the internal .ATOMIC_* forms): one access
 *     of kind atomic load, store or read-modify-write (a compare-exchange counts as a
 *     read-modify-write whether it succeeds or not);
 *   - __builtin_memcpy/memmove/mempcpy/memset (whatever size; gcc may expand them inline or
 *     call libc) and aggregate copies/clears larger than 64 bytes: one range access per
 *     operand. The runtime's interposed memcpy/memset recognise a call the plugin already
 *     recorded (the last group of the thread's buffer) and do not count it twice.
 * Not seen: gathers/scatters (x86 target builtins), register spills (and loads LRA duplicates
 * from a memory equivalence), call and return traffic, inline assembly operands,
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
#include "memspy_gcc.h"

/* The plugin exports only these two symbols (CMake builds it with hidden visibility, so its own
 * functions cannot clash with cc1's). */
__attribute__((visibility("default"))) int plugin_is_GPL_compatible;

static const char *plugin_name_s = "memspy_gcc";
bool opt_verbose;
static bool opt_noversion; /* -fplugin-arg-memspy_gcc-noversion: no uninstrumented copies */

/* Trees kept across functions: registered as GC roots in plugin_init. */
tree word_type; /* a 64-bit unsigned type with an alias set of its own */
tree word_ptr;  /* word_type * */
tree buf_decl;  /* extern __thread word __memspy_buf[1 + MSPLUG_BUF_WORDS] */
tree flush_decl, entry_decl, exit_decl, register_decl, register_blocks_decl, register_plain_decl;
tree register_dests_decl, dests_start_decl, dests_stop_decl;
tree register_calls_decl, calls_start_decl, calls_stop_decl;
tree plain_decl;                    /* extern int __memspy_plain: run the uninstrumented copies */
tree counts_decl, counts_init_decl; /* extern __thread word *__memspy_counts, its initialiser */
tree pcs_start_decl, pcs_stop_decl, bpcs_start_decl, bpcs_stop_decl, ppcs_start_decl, ppcs_stop_decl;

unsigned table_counter;       /* site tables made in this translation unit */
static bool any_instrumented; /* the unit needs its constructor */
static bool building_ctor;    /* our own constructor is being compiled: not instrumented */

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
    register_plain_decl = runtime_fn(MSPLUG_SYM_REGISTER_PLAIN,
                                     build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE));
    register_dests_decl = runtime_fn(MSPLUG_SYM_REGISTER_DESTS,
                                     build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE));
    register_calls_decl = runtime_fn(MSPLUG_SYM_REGISTER_CALLS,
                                     build_function_type_list(void_type_node, ptr_type_node, ptr_type_node, NULL_TREE));
    counts_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(MSPLUG_SYM_COUNTS), word_ptr);
    TREE_PUBLIC(counts_decl) = 1;
    DECL_EXTERNAL(counts_decl) = 1;
    DECL_ARTIFICIAL(counts_decl) = 1;
    set_decl_tls_model(counts_decl, TLS_MODEL_INITIAL_EXEC);
    counts_init_decl = runtime_fn(MSPLUG_SYM_COUNTS_INIT, build_function_type_list(word_ptr, NULL_TREE));
    DECL_ATTRIBUTES(counts_init_decl) = tree_cons(get_identifier("cold"), NULL_TREE, NULL_TREE);
    plain_decl = build_decl(UNKNOWN_LOCATION, VAR_DECL, get_identifier(MSPLUG_SYM_PLAIN), integer_type_node);
    TREE_PUBLIC(plain_decl) = 1;
    DECL_EXTERNAL(plain_decl) = 1;
    DECL_ARTIFICIAL(plain_decl) = 1;
    pcs_start_decl = linker_symbol("__start_" MSPLUG_PCS_SECTION);
    pcs_stop_decl = linker_symbol("__stop_" MSPLUG_PCS_SECTION);
    bpcs_start_decl = linker_symbol("__start_" MSPLUG_BLOCK_PCS_SECTION);
    bpcs_stop_decl = linker_symbol("__stop_" MSPLUG_BLOCK_PCS_SECTION);
    ppcs_start_decl = linker_symbol("__start_" MSPLUG_PLAIN_PCS_SECTION);
    ppcs_stop_decl = linker_symbol("__stop_" MSPLUG_PLAIN_PCS_SECTION);
    dests_start_decl = linker_symbol("__start_" MSPLUG_DESTS_SECTION);
    dests_stop_decl = linker_symbol("__stop_" MSPLUG_DESTS_SECTION);
    calls_start_decl = linker_symbol("__start_" MSPLUG_CALLS_SECTION);
    calls_stop_decl = linker_symbol("__stop_" MSPLUG_CALLS_SECTION);
}

/* ---- versioning: uninstrumented and counting-only copies (MEMSPY_MODE=time, count) ---- */

/* Where the versions of the current function start and end. */
struct fn_version {
    edge entry;                      /* the edge into the instrumented body (its entry hook) */
    auto_vec<gimple *> returns;      /* the body's return statements (their exit hooks) */
    auto_vec<gcall *> count_calls;   /* per call edge of st->calls: the call in the counting copy */
    auto_vec<gimple *> count_first;  /* per counted block: its first statement in the counting
                                     * copy (empty when not versioned) */
    basic_block count_entry;         /* the counting copy's first block (NULL when not versioned) */
    basic_block body_entry;          /* the body's first block (when versioned) */
    auto_vec<gimple *> count_bounds; /* its calls, returns and resx: the count register is
                                      * stored before them (emit_count_bounds) */
    auto_vec<basic_block> count_eh;  /* its blocks entered by an exception or an abnormal edge */
};

/* Whether the count register must be in memory at stmt of the counting copy: a call (one that
 * may reach the runtime or instrumented code: not an internal function, not a const builtin),
 * a return or a resx. */
static bool count_bound(gimple *stmt)
{
    if (gimple_code(stmt) == GIMPLE_RETURN || gimple_code(stmt) == GIMPLE_RESX) return true;
    gcall *call = dyn_cast<gcall *>(stmt);
    if (!call || gimple_call_internal_p(call)) return false;
    return !(gimple_call_builtin_p(call, BUILT_IN_NORMAL) && (gimple_call_flags(call) & ECF_CONST));
}

/* The first statement of bb that a block word goes before (as collect_bb chooses it). */
static gimple *first_statement(basic_block bb)
{
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *stmt = gsi_stmt(gsi);
        if (!is_gimple_debug(stmt) && !gimple_clobber_p(stmt) && gimple_code(stmt) != GIMPLE_LABEL &&
            gimple_code(stmt) != GIMPLE_NOP)
            return stmt;
    }
    return NULL;
}

/* Whether x takes bb back to itself: x is bb, or an empty latch (no statement, bb its only
 * predecessor and its only successor: gcc keeps a loop's latch apart until the CFG cleanup). */
static bool back_to(basic_block bb, basic_block x)
{
    return x == bb || (single_pred_p(x) && single_pred(x) == bb && single_succ_p(x) && single_succ(x) == bb &&
                       !first_statement(x));
}

/* Whether the counting copy counts bb by its trip count (emit_repeat_word): bb loops to itself
 * (the whole of a loop, but for an empty latch), and has no call or return (count_bound: the
 * count register stays in a register throughout) and no exception or abnormal edge (every way
 * in and out is an edge the pass can put code on). ins and outs (if not NULL) receive the edges
 * that enter bb from elsewhere and those that leave the loop. */
static bool self_loop_block(basic_block bb, auto_vec<edge> *ins, auto_vec<edge> *outs)
{
    bool loops = false, leaves = false;
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, bb->preds)
    {
        if (e->flags & (EDGE_EH | EDGE_ABNORMAL)) return false;
        if (back_to(bb, e->src))
            loops = true;
        else if (ins)
            ins->safe_push(e);
    }
    FOR_EACH_EDGE(e, ei, bb->succs)
    {
        if (e->flags & (EDGE_EH | EDGE_ABNORMAL)) return false;
        if (back_to(bb, e->dest)) continue;
        leaves = true;
        if (outs) outs->safe_push(e);
    }
    if (!loops || !leaves) return false; /* a loop with no way out would never say its count */
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
        if (count_bound(gsi_stmt(gsi))) return false;
    return true;
}

/* The k-th call statement of bb (NULL if none). */
static gcall *nth_call(basic_block bb, unsigned k)
{
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
        if (gcall *c = dyn_cast<gcall *>(gsi_stmt(gsi))) {
            if (k == 0) return c;
            k--;
        }
    return NULL;
}

/* The index of call among the call statements of its block. */
static unsigned call_ordinal(gcall *call)
{
    unsigned k = 0;
    for (gimple_stmt_iterator gsi = gsi_start_bb(gimple_bb(call)); !gsi_end_p(gsi); gsi_next(&gsi)) {
        if (gsi_stmt(gsi) == call) break;
        if (is_a<gcall *>(gsi_stmt(gsi))) k++;
    }
    return k;
}

/* Copy the blocks bbs (all of the function's), with a copy of each loop in outer (the
 * function's outermost loops) and of their inner loops. Returns the copy of first; firsts
 * (if not NULL) receives, per counted block of st, its first statement in the copy, calls per
 * call edge of st its call in the copy, bounds the copy's statements where the count register
 * goes to memory (count_bound) and eh the copy's blocks an exception or abnormal edge enters. */
static basic_block copy_body(function *fun, const auto_vec<basic_block> &bbs, basic_block first,
                             const auto_vec<class loop *> &outer, const fn_state *st, auto_vec<gimple *> *firsts,
                             auto_vec<gcall *> *calls, auto_vec<gimple *> *bounds, auto_vec<basic_block> *eh)
{
    auto_vec<unsigned> ordinals;
    for (unsigned j = 0; calls && j < st->calls.length(); j++) ordinals.safe_push(call_ordinal(st->calls[j]));
    unsigned n = bbs.length();
    initialize_original_copy_tables();
    class loop *root = loops_for_fn(fun) ? loops_for_fn(fun)->tree_root : NULL;
    for (unsigned i = 0; root && i < outer.length(); i++) duplicate_subloops(outer[i], duplicate_loop(outer[i], root));
    auto_vec<basic_block> copies;
    copies.safe_grow_cleared(n);
    copy_bbs(const_cast<basic_block *>(bbs.address()), n, copies.address(), NULL, 0, NULL, root,
             EXIT_BLOCK_PTR_FOR_FN(fun)->prev_bb, false);
    add_phi_args_after_copy(copies.address(), n, NULL);
    basic_block first_copy = get_bb_copy(first);
    for (unsigned i = 0; bounds && i < n; i++) {
        edge e;
        edge_iterator ei;
        FOR_EACH_EDGE(e, ei, copies[i]->preds)
        if (e->flags & (EDGE_EH | EDGE_ABNORMAL)) {
            eh->safe_push(copies[i]);
            break;
        }
        for (gimple_stmt_iterator gsi = gsi_start_bb(copies[i]); !gsi_end_p(gsi); gsi_next(&gsi))
            if (count_bound(gsi_stmt(gsi))) bounds->safe_push(gsi_stmt(gsi));
    }
    for (unsigned i = 0; firsts && i < st->blocks.length(); i++)
        firsts->safe_push(first_statement(get_bb_copy(st->blocks[i].bb)));
    for (unsigned j = 0; calls && j < st->calls.length(); j++)
        calls->safe_push(nth_call(get_bb_copy(gimple_bb(st->calls[j])), ordinals[j]));
    free_original_copy_tables();
    return first_copy;
}

/* At the end of bb: "t == value" (t: an int SSA name) going to yes, else to the fallthru
 * successor no (both edges even). */
static void dispatch(basic_block bb, tree t, int value, basic_block yes, location_t loc)
{
    gimple_stmt_iterator gsi = gsi_last_bb(bb);
    gcond *cond = gimple_build_cond(EQ_EXPR, t, build_int_cst(integer_type_node, value), NULL_TREE, NULL_TREE);
    gimple_set_location(cond, loc);
    gsi_insert_after(&gsi, cond, GSI_NEW_STMT);
    edge no = single_succ_edge(bb);
    no->flags = (no->flags & ~EDGE_FALLTHRU) | EDGE_FALSE_VALUE;
    no->probability = profile_probability::even();
    edge e = make_edge(bb, yes, EDGE_TRUE_VALUE);
    e->probability = profile_probability::even();
}

/* Give the body (the blocks from body on) and the counting copy (from count on) copies of their
 * own of the function's word-sized integer and pointer parameters: at each one's first block,
 * "own = p" as an asm move (x86-64: "mov %1, %0"), and its uses there renamed to own. Then the
 * parameter's incoming register is live only in the dispatch and the plain copy, whose code
 * gcc keeps as it was: a register parameter that the body keeps across its calls (the entry
 * and exit hooks) went into a callee-saved register at entry, before the dispatch, with the
 * register's push and pop on every version's way, the plain copy's included (a one-add
 * function ran 12 instructions a call instead of 2). A plain copy that needs no callee-saved
 * register now runs without the prologue (gcc's shrink-wrapping puts it on the other versions'
 * way). An asm, because a GIMPLE copy would be coalesced back into the parameter's register
 * (out-of-SSA, then RTL's copy propagation). With optimisation only (at -O0 every parameter is
 * in its stack slot, which the body's records name). After all the emission (the records use
 * the parameters too); dominators must be computed. */
static void own_params(function *fun, basic_block body, basic_block count)
{
    basic_block starts[2] = { body, count };
    for (tree parm = DECL_ARGUMENTS(fun->decl); parm; parm = DECL_CHAIN(parm)) {
        tree def = ssa_default_def(fun, parm);
        if (!def || has_zero_uses(def)) continue;
        tree type = TREE_TYPE(def);
        if (!(INTEGRAL_TYPE_P(type) || POINTER_TYPE_P(type)) || !tree_fits_uhwi_p(TYPE_SIZE_UNIT(type)) ||
            tree_to_uhwi(TYPE_SIZE_UNIT(type)) > UNITS_PER_WORD)
            continue;
        for (int k = 0; k < 2; k++) {
            vec<tree, va_gc> *in = NULL, *out = NULL;
            tree own = make_ssa_name(type);
            vec_safe_push(out, build_tree_list(build_tree_list(NULL_TREE, build_string(2, "=r")), own));
            vec_safe_push(in, build_tree_list(build_tree_list(NULL_TREE, build_string(1, "r")), def));
            gasm *g = gimple_build_asm_vec("mov %1, %0", in, out, NULL, NULL);
            SSA_NAME_DEF_STMT(own) = g;
            gimple_stmt_iterator gsi = gsi_after_labels(starts[k]);
            gsi_insert_before(&gsi, g, GSI_NEW_STMT);
            if (MAY_HAVE_DEBUG_BIND_STMTS) gsi_insert_after(&gsi, gimple_build_debug_bind(parm, own, g), GSI_NEW_STMT);
            imm_use_iterator it;
            gimple *use;
            FOR_EACH_IMM_USE_STMT(use, it, def)
            {
                if (use == g) continue;
                use_operand_p up;
                bool changed = false;
                FOR_EACH_IMM_USE_ON_STMT(up, it)
                {
                    basic_block at = gimple_bb(use);
                    if (gphi *phi = dyn_cast<gphi *>(use))
                        at = gimple_phi_arg_edge(phi, PHI_ARG_INDEX_FROM_USE(up))->src;
                    if (at && dominated_by_p(CDI_DOMINATORS, at, starts[k])) {
                        SET_USE(up, own);
                        changed = true;
                    }
                }
                if (changed && !is_a<gphi *>(use)) update_stmt(use);
            }
        }
    }
}

/* Version the current function, whose blocks `collected` were just collected into st (CFG in
 * SSA form, after the optimisers): copy every block twice, loops included, and dispatch once
 * at entry on the runtime's flag:
 *     t = __memspy_plain;
 *     if (t == MSPLUG_RUN_PLAIN) goto <plain copy>;
 *     if (t == MSPLUG_RUN_COUNT) goto <counting copy>;
 *     <the body>
 * The pass then instruments the body fully and gives the counting copy block words only
 * (same descriptors, so the counts are the same blocks'); the plain copy stays as gcc had it,
 * so it runs at native speed. The copies' statements keep their locations, so their pcs
 * symbolize to the same functions and lines (their own DWARF line rows). Not versioned
 * (returns false; v still describes the body): with -fplugin-arg-memspy_gcc-noversion,
 * functions calling setjmp or with nonlocal labels, and blocks GCC cannot duplicate (abnormal
 * edges, some internal calls). */
static bool version_function(function *fun, const auto_vec<basic_block> &collected, const fn_state *st, fn_version *v)
{
    for (unsigned i = 0; i < collected.length(); i++) {
        gimple_stmt_iterator gsi = gsi_last_bb(collected[i]);
        if (!gsi_end_p(gsi) && gimple_code(gsi_stmt(gsi)) == GIMPLE_RETURN) v->returns.safe_push(gsi_stmt(gsi));
    }
    v->entry = single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun));
    if (opt_noversion || fun->calls_setjmp || fun->has_nonlocal_label || fun->has_forced_label_in_static ||
        !can_copy_bbs_p(const_cast<basic_block *>(collected.address()), collected.length()))
        return false;
    /* a fresh first block (one predecessor, no phis): the copies' way in */
    basic_block first = split_edge(v->entry);
    auto_vec<basic_block> bbs;
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun) bbs.safe_push(bb);
    auto_vec<class loop *> outer;
    class loop *root = loops_for_fn(fun) ? loops_for_fn(fun)->tree_root : NULL;
    for (class loop *l = root ? root->inner : NULL; l; l = l->next) outer.safe_push(l);
    free_dominance_info(CDI_DOMINATORS);
    free_dominance_info(CDI_POST_DOMINATORS);
    basic_block plain = copy_body(fun, bbs, first, outer, st, NULL, NULL, NULL, NULL);
    basic_block count =
        copy_body(fun, bbs, first, outer, st, &v->count_first, &v->count_calls, &v->count_bounds, &v->count_eh);
    v->count_entry = count;

    /* the dispatch, in two blocks before the body */
    location_t loc = DECL_SOURCE_LOCATION(fun->decl);
    basic_block d2 = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
    basic_block d1 = split_edge(single_succ_edge(ENTRY_BLOCK_PTR_FOR_FN(fun)));
    gimple_stmt_iterator gsi = gsi_last_bb(d1);
    tree t = make_ssa_name(integer_type_node);
    gimple *load = gimple_build_assign(t, plain_decl);
    gimple_set_location(load, loc);
    gsi_insert_after(&gsi, load, GSI_NEW_STMT);
    dispatch(d1, t, MSPLUG_RUN_PLAIN, plain, loc);
    dispatch(d2, t, MSPLUG_RUN_COUNT, count, loc);
    v->entry = find_edge(d2, first);
    update_ssa(TODO_update_ssa); /* the copies' definitions */
    v->body_entry = first;
    return true;
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
    for (unsigned i = 0; i < bbs.length(); i++) {
        collect_bb(&st, bbs[i]);
        collect_dests(&st, bbs[i]);
    }
    unsigned nsites = st.sites.length(), nblocks = st.blocks.length();
    if (nsites == 0 && st.has_calls == 0 && nblocks == 0) return 0;
    tree group = DECL_COMDAT_GROUP(current_function_decl);
    const char *comdat = group ? IDENTIFIER_POINTER(group) : NULL;
    char bname[64];
    tree blocks = NULL_TREE, loops = NULL_TREE;
    if (nblocks) {
        blocks = make_table("__memspy_blocks", MSPLUG_BLOCK_WORDS * nblocks, bname, sizeof bname);
        loops = make_loop_table(&st, blocks, fun); /* before the CFG changes */
    }
    if (opt_verbose)
        fprintf(stderr, "memspy_gcc: %s: %u sites in %u groups, %u blocks, %u loops\n", function_name(fun), nsites,
                st.group_start.length(), nblocks,
                loops ? (unsigned)tree_to_uhwi(CONSTRUCTOR_ELT(DECL_INITIAL(loops), 0)->value) : 0);
    basic_block entry_bb = single_succ(ENTRY_BLOCK_PTR_FOR_FN(fun)); /* before versioning */
    fn_version ver;
    ver.count_entry = NULL;
    bool versioned = version_function(fun, bbs, &st, &ver);
    if (opt_verbose && versioned) fprintf(stderr, "memspy_gcc: %s: versioned\n", function_name(fun));
    free_dominance_info(CDI_DOMINATORS);
    free_dominance_info(CDI_POST_DOMINATORS);
    /* each block's pc label first, so that it precedes the block's own code and records */
    for (unsigned i = 0; i < nblocks; i++) {
        gimple_stmt_iterator gsi = gsi_for_stmt(st.blocks[i].first);
        insert_before(&gsi, pc_label(MSPLUG_BLOCK_PCS_SECTION, bname, 8 * MSPLUG_BLOCK_WORDS * i, comdat),
                      gimple_location(st.blocks[i].first));
    }
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
    /* the counting copy's block counters (the thread's array, ABI 5) and, for its call words,
     * its count register; not at -O0, where either would be a stack slot of the frame the body
     * shares (its layout, and so the stack's simulated addresses, kept): block words there */
    auto_vec<bool> direct; /* per call edge: in the table of direct call sites, no call word (ABI 6) */
    bool copy_calls = false;
    for (unsigned j = 0; j < st.calls.length(); j++) {
        direct.safe_push(nblocks && !comdat && direct_call_site(&st, j));
        copy_calls |= !direct[j] && j < ver.count_calls.length() && ver.count_calls[j] != NULL;
    }
    /* a block counted by its function's calls (ABI 7): no counter in the counting copy */
    int derived = ver.count_entry && nblocks && optimize ? derived_entry(&st, entry_bb) : -1;
    bool counted = false; /* a block of the counting copy with a counter of its own */
    for (unsigned i = 0; i < ver.count_first.length(); i++) counted |= ver.count_first[i] && (int)i != derived;
    tree ctr = ver.count_entry && nblocks && optimize && counted ? counters_register() : NULL_TREE;
    tree cnt = ctr && copy_calls ? count_register() : NULL_TREE;
    auto_vec<unsigned> repeats; /* the counting copy's blocks counted by their trip counts */
    for (unsigned i = 0; i < nblocks; i++) {
        const block &bk = st.blocks[i];
        if (bk.group < 0) emit_block_word(bk, i, blocks, NULL_TREE);
        if (i < ver.count_first.length() && ver.count_first[i]) { /* the counting copy's word */
            block copy = bk;
            copy.first = ver.count_first[i];
            if ((int)i == derived)
                ; /* its count is its function's calls */
            else if (ctr && self_loop_block(gimple_bb(copy.first), NULL, NULL))
                repeats.safe_push(i); /* after every other word: its edges are final then */
            else if (ctr)
                emit_block_counter(copy.first, i, blocks, ctr);
            else
                emit_block_word(copy, i, blocks, cnt);
            /* and its pc, the code MTOOL costs: the plain copy's own code with only block words
             * added (a label in the plain copy itself changes gcc's register allocation there) */
            gimple_stmt_iterator cgsi = gsi_for_stmt(ver.count_first[i]);
            insert_before(&cgsi, pc_label(MSPLUG_PLAIN_PCS_SECTION, bname, 8 * MSPLUG_BLOCK_WORDS * i, comdat),
                          gimple_location(ver.count_first[i]));
        }
    }
    for (unsigned j = 0; nblocks && j < st.calls.length(); j++) { /* call edges, in the body and the counting copy */
        if (direct[j]) continue;
        emit_call_word(st.calls[j], st.call_block[j], blocks, NULL_TREE);
        if (j < ver.count_calls.length() && ver.count_calls[j])
            emit_call_word(ver.count_calls[j], st.call_block[j], blocks, cnt);
    }
    for (unsigned k = 0; k < repeats.length(); k++) {
        gimple *first = ver.count_first[repeats[k]];
        auto_vec<edge> ins, outs;
        self_loop_block(gimple_bb(first), &ins, &outs);
        emit_repeat_word(first, ins, outs, repeats[k], blocks, ctr);
    }
    if (cnt) emit_count_bounds(cnt, ver.count_entry, ver.count_bounds, ver.count_eh);
    if (ctr) {
        gsi_commit_edge_inserts();
        emit_counters_entry(ctr, ver.count_entry); /* before the count's load: it may adopt the thread */
    }
    if (nblocks) fill_blocks(&st, blocks, loops);
    if (nblocks) emit_call_sites(&st, direct, blocks, derived);
    if (nsites || st.has_calls) emit_entry_exit(ver.entry, ver.returns);
    emit_dests(&st, comdat);
    emit_omp_record(&st, comdat);
    for (unsigned j = 0; j < st.atomics.length(); j++) route_atomic(st.atomics[j]); /* the body's only */
    any_instrumented = true;
    /* -O0 slots (collect.cc): the records' address computations marked these variables
     * addressable; they stay register variables of SSA form, whose slot expand gives them */
    for (unsigned j = 0; j < st.slot_decls.length(); j++) TREE_ADDRESSABLE(st.slot_decls[j]) = 0;
    if (versioned && optimize) { /* after all the emission: the records use the parameters too */
        calculate_dominance_info(CDI_DOMINATORS);
        own_params(fun, ver.body_entry, ver.count_entry);
        free_dominance_info(CDI_DOMINATORS);
    }
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

/* The early pass (after "ssa", before any optimisation): allocation destinations as written,
 * for the records the main pass makes (dests.cc). Changes nothing. */
static const pass_data memspy_early_data = {
    GIMPLE_PASS, "memspy_dests", OPTGROUP_NONE, TV_NONE, PROP_ssa | PROP_cfg, 0, 0, 0, 0,
};

struct memspy_early_pass : gimple_opt_pass {
    memspy_early_pass(gcc::context *ctx) : gimple_opt_pass(memspy_early_data, ctx) {}
    bool gate(function *fun) final override
    {
        tree attrs = DECL_ATTRIBUTES(fun->decl);
        return !building_ctor && !lookup_attribute("no_instrument_function", attrs) &&
               !lookup_attribute("naked", attrs);
    }
    unsigned int execute(function *fun) final override
    {
        early_dests_function(fun);
        return 0;
    }
};

/* Around "omplower" (OpenMP programs only): before it, the combined constructs as written;
 * after it, the regions and the child functions they are outlined into, for the main pass's
 * records (dests.cc). Change nothing. */
static const pass_data memspy_omp_data = {
    GIMPLE_PASS, "memspy_omp", OPTGROUP_NONE, TV_NONE, PROP_gimple_any, 0, 0, 0, 0,
};
static const pass_data memspy_omp_pre_data = {
    GIMPLE_PASS, "memspy_omp_pre", OPTGROUP_NONE, TV_NONE, PROP_gimple_any, 0, 0, 0, 0,
};

struct memspy_omp_pass : gimple_opt_pass {
    bool before;
    memspy_omp_pass(gcc::context *ctx, bool pre)
        : gimple_opt_pass(pre ? memspy_omp_pre_data : memspy_omp_data, ctx), before(pre)
    {
    }
    bool gate(function *) final override { return flag_openmp && !building_ctor; }
    unsigned int execute(function *fun) final override
    {
        if (before)
            omp_combined_function(fun);
        else
            omp_regions_function(fun);
        return 0;
    }
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
        "\n\t.weak __stop_" MSPLUG_BLOCK_PCS_SECTION "\n\t.hidden __stop_" MSPLUG_BLOCK_PCS_SECTION
        "\n\t.weak __start_" MSPLUG_PLAIN_PCS_SECTION "\n\t.hidden __start_" MSPLUG_PLAIN_PCS_SECTION
        "\n\t.weak __stop_" MSPLUG_PLAIN_PCS_SECTION "\n\t.hidden __stop_" MSPLUG_PLAIN_PCS_SECTION
        "\n\t.weak __start_" MSPLUG_DESTS_SECTION "\n\t.hidden __start_" MSPLUG_DESTS_SECTION
        "\n\t.weak __stop_" MSPLUG_DESTS_SECTION "\n\t.hidden __stop_" MSPLUG_DESTS_SECTION
        "\n\t.weak __start_" MSPLUG_CALLS_SECTION "\n\t.hidden __start_" MSPLUG_CALLS_SECTION
        "\n\t.weak __stop_" MSPLUG_CALLS_SECTION "\n\t.hidden __stop_" MSPLUG_CALLS_SECTION;
    tree text = build_string(sizeof directives, directives);
    tree asm_stmt = build5(ASM_EXPR, void_type_node, text, NULL_TREE, NULL_TREE, NULL_TREE, NULL_TREE);
    ASM_INPUT_P(asm_stmt) = 1;
    ASM_VOLATILE_P(asm_stmt) = 1;
    tree call =
        build_call_expr(register_decl, 2, build_fold_addr_expr(pcs_start_decl), build_fold_addr_expr(pcs_stop_decl));
    tree call_blocks = build_call_expr(register_blocks_decl, 2, build_fold_addr_expr(bpcs_start_decl),
                                       build_fold_addr_expr(bpcs_stop_decl));
    tree call_plain = build_call_expr(register_plain_decl, 2, build_fold_addr_expr(ppcs_start_decl),
                                      build_fold_addr_expr(ppcs_stop_decl));
    tree call_dests = build_call_expr(register_dests_decl, 2, build_fold_addr_expr(dests_start_decl),
                                      build_fold_addr_expr(dests_stop_decl));
    tree call_sites = build_call_expr(register_calls_decl, 2, build_fold_addr_expr(calls_start_decl),
                                      build_fold_addr_expr(calls_stop_decl));
    tree body = alloc_stmt_list();
    append_to_statement_list(asm_stmt, &body);
    append_to_statement_list(call, &body);
    append_to_statement_list(call_blocks, &body);
    append_to_statement_list(call_plain, &body);
    append_to_statement_list(call_dests, &body);
    append_to_statement_list(call_sites, &body); /* after the blocks: it reads their ids at the dump */
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
    { &plain_decl, 1, sizeof plain_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &counts_decl, 1, sizeof counts_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &counts_init_decl, 1, sizeof counts_init_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &pcs_stop_decl, 1, sizeof pcs_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &register_blocks_decl, 1, sizeof register_blocks_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &bpcs_start_decl, 1, sizeof bpcs_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &bpcs_stop_decl, 1, sizeof bpcs_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &register_plain_decl, 1, sizeof register_plain_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &ppcs_start_decl, 1, sizeof ppcs_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &ppcs_stop_decl, 1, sizeof ppcs_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &atomic_hook_decls[0], ATOMIC_HOOK_DECLS, sizeof atomic_hook_decls[0], &gt_ggc_mx_tree_node,
      &gt_pch_nx_tree_node },
    { &register_dests_decl, 1, sizeof register_dests_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &dests_start_decl, 1, sizeof dests_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &dests_stop_decl, 1, sizeof dests_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &register_calls_decl, 1, sizeof register_calls_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &calls_start_decl, 1, sizeof calls_start_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    { &calls_stop_decl, 1, sizeof calls_stop_decl, &gt_ggc_mx_tree_node, &gt_pch_nx_tree_node },
    LAST_GGC_ROOT_TAB,
};

static plugin_info memspy_info = {
    "0.1",
    "memspy: inline capture of memory accesses after vectorisation (see the file header)",
};

/* Entry point: check the GCC version, the options, then register the pass (before
 * "optimized"), the early destinations pass (after "ssa"), the OpenMP regions passes (around
 * "omplower"), the GC roots and the end-of-unit
 * constructor. */
__attribute__((visibility("default"))) int plugin_init(plugin_name_args *info, plugin_gcc_version *version)
{
    if (!plugin_default_version_check(version, &gcc_version)) {
        error("%s: built for GCC %s, loaded into GCC %s", info->full_name, gcc_version.basever, version->basever);
        return 1;
    }
    plugin_name_s = info->base_name;
    for (int i = 0; i < info->argc; i++) {
        if (strcmp(info->argv[i].key, "verbose") == 0) {
            opt_verbose = true;
        } else if (strcmp(info->argv[i].key, "noversion") == 0) {
            opt_noversion = true;
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
    struct register_pass_info early;
    early.pass = new memspy_early_pass(g);
    early.reference_pass_name = "ssa";
    early.ref_pass_instance_number = 1;
    early.pos_op = PASS_POS_INSERT_AFTER;
    register_callback(plugin_name_s, PLUGIN_PASS_MANAGER_SETUP, NULL, &early);
    struct register_pass_info omp_pre, omp;
    omp_pre.pass = new memspy_omp_pass(g, true);
    omp_pre.reference_pass_name = "omplower";
    omp_pre.ref_pass_instance_number = 1;
    omp_pre.pos_op = PASS_POS_INSERT_BEFORE;
    register_callback(plugin_name_s, PLUGIN_PASS_MANAGER_SETUP, NULL, &omp_pre);
    omp.pass = new memspy_omp_pass(g, false);
    omp.reference_pass_name = "omplower";
    omp.ref_pass_instance_number = 1;
    omp.pos_op = PASS_POS_INSERT_AFTER;
    register_callback(plugin_name_s, PLUGIN_PASS_MANAGER_SETUP, NULL, &omp);
    register_callback(plugin_name_s, PLUGIN_REGISTER_GGC_ROOTS, NULL, (void *)memspy_roots);
    register_callback(plugin_name_s, PLUGIN_FINISH_UNIT, finish_unit, NULL);
    return 0;
}
