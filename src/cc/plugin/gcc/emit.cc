/* memspy's GCC plugin: the code and static tables emitted for records, blocks, loops and
 * entry/exit (see memspy_gcc.cc and src/rt/msplug_abi.h). */
#include "memspy_gcc.h"

/* ---- emitting ---- */

static tree word_ref(tree base, unsigned word)
{
    return build2(MEM_REF, word_type, base, build_int_cst(word_ptr, 8 * word));
}

/* The buffer's count, b[0], as a volatile word: GCC marks a function that only reads memory
 * pure (or const) before this pass, and code generation then keeps a count loaded before a
 * call to it for use after it (RTL CSE takes a pure call to write no memory), while the
 * instrumented callee, or the runtime's strlen or memcmp, appended records meanwhile: they were
 * overwritten. A volatile count is loaded after every call; groups are separated by calls, so
 * no other reuse is lost. */
static gimple *count_access(tree lhs, tree rhs)
{
    tree ref = TREE_CODE(lhs) == MEM_REF ? lhs : rhs;
    TREE_THIS_VOLATILE(ref) = 1;
    TREE_SIDE_EFFECTS(ref) = 1;
    gimple *g = gimple_build_assign(lhs, rhs);
    gimple_set_has_volatile_ops(g, true);
    return g;
}

/* tmp = expr (as a word), before gsi. */
static tree as_word(gimple_stmt_iterator *gsi, tree expr)
{
    if (TREE_CODE(expr) == ADDR_EXPR && DECL_P(TREE_OPERAND(expr, 0)) && is_gimple_reg(TREE_OPERAND(expr, 0))) {
        /* the -O0 stack slot of a register variable (collect.cc): the gimplifier would copy the
         * variable into a temporary to take its address; the slot is its DECL_RTL at expand */
        tree t = make_ssa_name(TREE_TYPE(expr));
        gsi_insert_before(gsi, gimple_build_assign(t, expr), GSI_SAME_STMT);
        expr = t;
    }
    return force_gimple_operand_gsi(gsi, fold_convert(word_type, expr), true, NULL_TREE, true, GSI_SAME_STMT);
}

void insert_before(gimple_stmt_iterator *gsi, gimple *g, location_t loc)
{
    gimple_set_location(g, loc);
    gsi_insert_before(gsi, g, GSI_SAME_STMT);
}

/* An asm label "1:" here, and the pair (1b + 1, table + offset) into section (the function's
 * COMDAT group if it has one, so the pair goes with the code): the runtime writes the pc into
 * the table entry at offset. */
gimple *pc_label(const char *section, const char *table, unsigned offset, const char *comdat)
{
    /* sized to fit: a C++ template's COMDAT group (its mangled name) can be thousands of
     * characters, and a text cut short is assembler garbage */
    char *text =
        comdat ? xasprintf("1:\n\t.pushsection %s,\"awG\",@progbits,%s,comdat\n\t.balign 8\n\t.quad 1b+1, "
                           "%s+%u\n\t.popsection",
                           section, comdat, table, offset)
               : xasprintf("1:\n\t.pushsection %s,\"aw\",@progbits\n\t.balign 8\n\t.quad 1b+1, %s+%u\n\t.popsection",
                           section, table, offset);
    gasm *g = gimple_build_asm_vec(ggc_strdup(text), NULL, NULL, NULL, NULL);
    free(text);
    gimple_asm_set_volatile(g, true);
    return g;
}

/* b = &__memspy_buf[0] before gsi; returns b. */
static tree buf_address(gimple_stmt_iterator *gsi, location_t loc)
{
    tree b = make_ssa_name(word_ptr);
    tree elt0 = build4(ARRAY_REF, word_type, buf_decl, integer_zero_node, NULL_TREE, NULL_TREE);
    insert_before(gsi, gimple_build_assign(b, build_fold_addr_expr(elt0)), loc);
    return b;
}

/* Reserve `words` words of the thread's buffer just before statement at: emits
 *   b = &__memspy_buf[0]; n0 = b[0]; if (n0 > CAP - words) __memspy_flush (); n = PHI <n0, 0>;
 *   p = b + 8 * n;
 * and returns p (records go to p[1 ..]); *b_out and *n_out: b and n, for the commit. With a
 * count register cnt (the counting copy's, count_register), n0 = cnt instead of the load, and
 * the cold path stores n0 into b[0] before the flush. */
static tree reserve_words(gimple *at, unsigned words, location_t loc, tree *b_out, tree *n_out, tree cnt)
{
    gimple_stmt_iterator gsi = gsi_for_stmt(at);
    tree b = buf_address(&gsi, loc);
    tree n0 = make_ssa_name(word_type);
    insert_before(&gsi, cnt ? gimple_build_assign(n0, cnt) : count_access(n0, word_ref(b, 0)), loc);
    gcond *cond =
        gimple_build_cond(GT_EXPR, n0, build_int_cst(word_type, MSPLUG_BUF_WORDS - words), NULL_TREE, NULL_TREE);
    gimple_set_location(cond, loc);
    basic_block then_bb, fall_bb;
    gimple_stmt_iterator split_at = gsi;
    gimple_stmt_iterator cond_gsi = create_cond_insert_point(&split_at, true, false, true, &then_bb, &fall_bb);
    gsi_insert_after(&cond_gsi, cond, GSI_NEW_STMT);
    basic_block cond_bb = gimple_bb(cond);
    gimple_stmt_iterator then_gsi = gsi_start_bb(then_bb);
    if (cnt) {
        gimple *publish = count_access(word_ref(b, 0), n0);
        gimple_set_location(publish, loc);
        gsi_insert_after(&then_gsi, publish, GSI_NEW_STMT);
    }
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

/* b[0] = n + words (cnt = n + words with a count register), before gsi: publishes the
 * records. */
static void commit_words(gimple_stmt_iterator *gsi, tree b, tree n, unsigned words, location_t loc, tree cnt)
{
    tree nk = make_ssa_name(word_type);
    insert_before(gsi, gimple_build_assign(nk, PLUS_EXPR, n, build_int_cst(word_type, words)), loc);
    insert_before(gsi, cnt ? gimple_build_assign(cnt, nk) : count_access(word_ref(b, 0), nk), loc);
}

/* A block word in a reservation of its own, just before the block's first statement (cnt:
 * the counting copy's count register, NULL_TREE for the buffer's count in memory). */
void emit_block_word(const block &bk, unsigned index, tree blocks, tree cnt)
{
    location_t loc = gimple_location(bk.first);
    tree b, n;
    tree p = reserve_words(bk.first, 1, loc, &b, &n, cnt);
    gimple_stmt_iterator gsi = gsi_for_stmt(bk.first);
    store_tagged_address(&gsi, p, 1, blocks, MSPLUG_BLOCK_WORDS * index, MSPLUG_BLOCK_TAG, loc);
    commit_words(&gsi, b, n, 1, loc, cnt);
}

/* The counting copy's array of block counters: a local variable (a GIMPLE register, renamed
 * into SSA form by the pass's TODO_update_ssa, like the count register) holding the thread's
 * __memspy_counts for the whole copy (emit_counters_entry). */
tree counters_register(void) { return create_tmp_reg(word_ptr, "memspy_ctr"); }

/* ctr[table[index].id] += value, before gsi: the block's counter in the thread's array (ABI
 * version 5). The id is read from the descriptor (the runtime numbers blocks at
 * registration); the counter's type has the word type's alias set, apart from the program's
 * data. */
static void add_to_counter(gimple_stmt_iterator *gsi, tree ctr, tree blocks, unsigned index, tree value, location_t loc)
{
    tree elt = build4(ARRAY_REF, TREE_TYPE(TREE_TYPE(blocks)), blocks, size_int(MSPLUG_BLOCK_WORDS * index + 2),
                      NULL_TREE, NULL_TREE);
    tree id = make_ssa_name(TREE_TYPE(elt)), ids = make_ssa_name(sizetype), off = make_ssa_name(sizetype);
    tree base = make_ssa_name(word_ptr), slot = make_ssa_name(word_ptr);
    tree old = make_ssa_name(word_type), sum = make_ssa_name(word_type);
    insert_before(gsi, gimple_build_assign(id, elt), loc);
    insert_before(gsi, gimple_build_assign(ids, NOP_EXPR, id), loc);
    insert_before(gsi, gimple_build_assign(off, MULT_EXPR, ids, size_int(8)), loc);
    insert_before(gsi, gimple_build_assign(base, ctr), loc);
    insert_before(gsi, gimple_build_assign(slot, POINTER_PLUS_EXPR, base, off), loc);
    insert_before(gsi, gimple_build_assign(old, word_ref(slot, 0)), loc);
    insert_before(gsi, gimple_build_assign(sum, PLUS_EXPR, old, value), loc);
    insert_before(gsi, gimple_build_assign(word_ref(slot, 0), sum), loc);
}

/* The counting copy's block counter (index of table blocks) incremented just before first,
 * the block's first statement: no buffer word, no bounds check, no drain. */
void emit_block_counter(gimple *first, unsigned index, tree blocks, tree ctr)
{
    gimple_stmt_iterator gsi = gsi_for_stmt(first);
    add_to_counter(&gsi, ctr, blocks, index, build_int_cst(word_type, 1), gimple_location(first));
}

/* At the counting copy's entry block: ctr = __memspy_counts, and the first time in the thread
 * (NULL) ctr = __memspy_counts_init () on a cold path. Called once every counter is emitted
 * (the statements go first in the block, before the count register's load). */
void emit_counters_entry(tree ctr, basic_block entry)
{
    location_t loc = DECL_SOURCE_LOCATION(current_function_decl);
    gimple_stmt_iterator gsi = gsi_after_labels(entry);
    tree c0 = make_ssa_name(word_ptr);
    gimple *load = gimple_build_assign(c0, counts_decl);
    insert_before(&gsi, load, loc);
    gimple *set = gimple_build_assign(ctr, c0);
    insert_before(&gsi, set, loc);
    gimple_stmt_iterator at = gsi_for_stmt(set);
    basic_block then_bb, fall_bb;
    gimple_stmt_iterator cond_gsi = create_cond_insert_point(&at, false, false, true, &then_bb, &fall_bb);
    gcond *cond = gimple_build_cond(EQ_EXPR, c0, build_int_cst(word_ptr, 0), NULL_TREE, NULL_TREE);
    gimple_set_location(cond, loc);
    gsi_insert_after(&cond_gsi, cond, GSI_NEW_STMT);
    gimple_stmt_iterator then_gsi = gsi_start_bb(then_bb);
    tree c1 = make_ssa_name(word_ptr);
    gcall *init = gimple_build_call(counts_init_decl, 0);
    gimple_call_set_lhs(init, c1);
    gimple_set_location(init, loc);
    gsi_insert_after(&then_gsi, init, GSI_NEW_STMT);
    gimple *reset = gimple_build_assign(ctr, c1);
    gimple_set_location(reset, loc);
    gsi_insert_after(&then_gsi, reset, GSI_NEW_STMT);
}

/* The counting copy's block whose first statement is first (index of table blocks), a block
 * that loops to itself, counted by its trip count: a local trip (a register variable, as the
 * counters) set to 0 on each of ins (the edges that enter the block from elsewhere; inserted
 * on the edges: the caller commits them), plus one at first, and on each of outs (the edges
 * that leave the loop) a new block that adds trip to the block's counter (ctr: the counters,
 * emit_block_counter). The block has no call: trip stays in a register throughout the loop.
 * (Before the counters, ABI 4, the exits appended a repeat word pair, MSPLUG_REPEAT_TAG,
 * which the runtime still reads: the LLVM plugin's counting copies write them.) */
void emit_repeat_word(gimple *first, const auto_vec<edge> &ins, const auto_vec<edge> &outs, unsigned index, tree blocks,
                      tree ctr)
{
    location_t loc = gimple_location(first);
    tree trip = create_tmp_reg(word_type, "memspy_trip");
    gimple_stmt_iterator gsi = gsi_for_stmt(first);
    insert_before(&gsi, gimple_build_assign(trip, PLUS_EXPR, trip, build_int_cst(word_type, 1)), loc);
    for (unsigned k = 0; k < ins.length(); k++) {
        gimple *zero = gimple_build_assign(trip, build_int_cst(word_type, 0));
        gimple_set_location(zero, loc);
        gsi_insert_on_edge(ins[k], zero);
    }
    for (unsigned k = 0; k < outs.length(); k++) {
        basic_block x = split_edge(outs[k]);
        gimple_stmt_iterator gx = gsi_start_bb(x);
        tree t = make_ssa_name(word_type);
        gimple *read = gimple_build_assign(t, trip);
        gimple_set_location(read, loc);
        gsi_insert_after(&gx, read, GSI_NEW_STMT);
        /* the anchor the counter's update goes before (dead: every entry sets trip again) */
        gimple *reset = gimple_build_assign(trip, build_int_cst(word_type, 0));
        gimple_set_location(reset, loc);
        gsi_insert_after(&gx, reset, GSI_NEW_STMT);
        gsi = gsi_for_stmt(reset);
        add_to_counter(&gsi, ctr, blocks, index, t, loc);
    }
}

/* A call word just before call (a reservation of two words): the descriptor of the caller's
 * block (index blk of table blocks) tagged MSPLUG_CALL_TAG, then the callee's address (cnt as
 * for emit_block_word). */
void emit_call_word(gcall *call, unsigned blk, tree blocks, tree cnt)
{
    location_t loc = gimple_location(call);
    tree fn = gimple_call_fn(call);
    if (!fn) return;
    if (TREE_CODE(fn) == OBJ_TYPE_REF) fn = OBJ_TYPE_REF_EXPR(fn); /* a virtual call: the pointer */
    tree b, n;
    tree p = reserve_words(call, 2, loc, &b, &n, cnt);
    gimple_stmt_iterator gsi = gsi_for_stmt(call);
    store_tagged_address(&gsi, p, 1, blocks, MSPLUG_BLOCK_WORDS * blk, MSPLUG_CALL_TAG, loc);
    tree callee = as_word(&gsi, unshare_expr(fn));
    insert_before(&gsi, gimple_build_assign(word_ref(p, 2), callee), loc);
    commit_words(&gsi, b, n, 2, loc, cnt);
}

static tree table_address(tree table, unsigned index);

/* Whether call edge j of st is a direct call site (ABI 6): its block's first call edge, with a
 * callee the compiler names (a function's address, not a pointer). Nothing in the block before
 * it can leave the block, so it runs exactly as often as its block: no call word. */
bool direct_call_site(const fn_state *st, unsigned j)
{
    if (j > 0 && st->call_block[j] == st->call_block[j - 1]) return false;
    tree fn = gimple_call_fndecl(st->calls[j]);
    return fn && TREE_CODE(fn) == FUNCTION_DECL;
}

/* The block of the current function whose count is its calls' (ABI 7), or -1: its entry block
 * (entry: the first block after ENTRY, as collected), when the function is only called directly
 * (not visible outside the unit, its address not taken, no alias) and only by functions the pass
 * instruments (their call edges are counted, words or direct sites), with optimisation, and the
 * block holds no call (its count is then final before any call site's: no chain) and is entered
 * only from the function's entry (once per call; a loop header is not). */
int derived_entry(const fn_state *st, basic_block entry)
{
    cgraph_node *node = cgraph_node::get(current_function_decl);
    /* local, as IPA set it (all its calls known and direct): not only_called_directly_p, which
     * the tables of direct call sites of callers emitted before it would make false (a function's
     * address in a variable's initializer marks it taken) */
    if (!optimize || !node || !node->local || !single_pred_p(entry)) return -1;
    for (cgraph_edge *e = node->callers; e; e = e->next_caller) {
        tree attrs = DECL_ATTRIBUTES(e->caller->decl);
        if (lookup_attribute("no_instrument_function", attrs) || lookup_attribute("naked", attrs)) return -1;
    }
    int k = -1;
    for (unsigned i = 0; i < st->blocks.length(); i++)
        if (st->blocks[i].bb == entry) k = (int)i;
    for (unsigned j = 0; k >= 0 && j < st->call_block.length(); j++)
        if (st->call_block[j] == (unsigned)k) return -1;
    return k;
}

/* The function's direct call sites (ABI 6): {&caller block's descriptor, &callee} per call edge
 * marked in direct, and {&entry's descriptor | MSPLUG_CALL_ENTRY, &the function} for the block
 * entry (>= 0) counted by its function's calls (ABI 7), a table of its own in
 * MSPLUG_CALLS_SECTION (nothing if none). */
void emit_call_sites(const fn_state *st, const auto_vec<bool> &direct, tree blocks, int entry)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    unsigned n = 0;
    if (entry >= 0) {
        tree at = table_address(blocks, MSPLUG_BLOCK_WORDS * (unsigned)entry);
        at = fold_build2(PLUS_EXPR, long_long_unsigned_type_node, at,
                         build_int_cst(long_long_unsigned_type_node, MSPLUG_CALL_ENTRY));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(0), at);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(1),
                               fold_convert(long_long_unsigned_type_node, build_fold_addr_expr(current_function_decl)));
        n++;
    }
    for (unsigned j = 0; j < st->calls.length(); j++) {
        if (!direct[j]) continue;
        tree callee = build_fold_addr_expr(gimple_call_fndecl(st->calls[j]));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(2 * n), table_address(blocks, MSPLUG_BLOCK_WORDS * st->call_block[j]));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(2 * n + 1), fold_convert(long_long_unsigned_type_node, callee));
        n++;
    }
    if (!n) return;
    char name[64];
    tree table = make_table("__memspy_calls", 2 * n, name, sizeof name);
    set_decl_section_name(table, MSPLUG_CALLS_SECTION);
    DECL_INITIAL(table) = build_constructor(TREE_TYPE(table), elts);
    varpool_node::finalize_decl(table);
}

/* Emit group g (sites [first, end)) of the function's table; blk: the index of the block
 * whose word the group carries first (-1 none). */
void emit_group(fn_state *st, unsigned first, unsigned end, tree table, const char *table_name, const char *comdat,
                int blk, tree blocks)
{
    unsigned words = 1 + (blk >= 0);
    for (unsigned i = first; i < end; i++) words += msplug_site_words(st->sites[i].kind);
    gimple *s0 = st->sites[first].stmt;
    location_t loc = gimple_location(s0);
    tree b, n;
    tree p = reserve_words(s0, words, loc, &b, &n, NULL_TREE);

    /* p[1] = block word (if any), then the header (first site, bit 63 set) */
    gimple_stmt_iterator gsi = gsi_for_stmt(s0);
    unsigned w = 1;
    if (blk >= 0) store_tagged_address(&gsi, p, w++, blocks, MSPLUG_BLOCK_WORDS * (unsigned)blk, MSPLUG_BLOCK_TAG, loc);
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
        if (i + 1 == end) commit_words(&gsi, b, n, words, sloc, NULL_TREE);
        insert_before(&gsi, pc_label(MSPLUG_PCS_SECTION, table_name, 16 * i, comdat), sloc);
    }
}

/* The counting copy's count register: a local variable (a GIMPLE register, renamed into SSA
 * form by the pass's TODO_update_ssa) that holds the buffer's word count between the copy's
 * entry and its next call or exit, so that a block word costs a compare, a store and an add
 * where the count in memory costs a load and a store more (a store-to-load chain per block in
 * a short loop). */
tree count_register(void) { return create_tmp_reg(word_type, "memspy_cnt"); }

/* The statements that load the count register cnt from the buffer's count (load) or store it
 * there: b = &__memspy_buf[0]; then n = b[0]; cnt = n, or n = cnt; b[0] = n (volatile). */
static gimple_seq count_move(tree cnt, bool load, location_t loc)
{
    gimple_seq seq = NULL;
    tree b = make_ssa_name(word_ptr), n = make_ssa_name(word_type);
    tree elt0 = build4(ARRAY_REF, word_type, buf_decl, integer_zero_node, NULL_TREE, NULL_TREE);
    gimple_seq_add_stmt(&seq, gimple_build_assign(b, build_fold_addr_expr(elt0)));
    if (load) {
        gimple_seq_add_stmt(&seq, count_access(n, word_ref(b, 0)));
        gimple_seq_add_stmt(&seq, gimple_build_assign(cnt, n));
    } else {
        gimple_seq_add_stmt(&seq, gimple_build_assign(n, cnt));
        gimple_seq_add_stmt(&seq, count_access(word_ref(b, 0), n));
    }
    for (gimple_stmt_iterator i = gsi_start(seq); !gsi_end_p(i); gsi_next(&i)) gimple_set_location(gsi_stmt(i), loc);
    return seq;
}

/* count_move on each edge into or out of bb (preds: into it; succs: out of it) that is not an
 * exception's or an abnormal one. */
static void count_move_on_edges(vec<edge, va_gc> *edges, tree cnt, bool load, location_t loc)
{
    edge e;
    edge_iterator ei;
    FOR_EACH_EDGE(e, ei, edges)
    if (!(e->flags & (EDGE_EH | EDGE_ABNORMAL))) gsi_insert_seq_on_edge(e, count_move(cnt, load, loc));
}

/* Where the counting copy's count register meets memory (cnt from count_register): loaded at
 * the copy's entry block and at the blocks an exception or an abnormal edge enters (every
 * other edge into such a block stores it first); stored before each of stmts (the copy's
 * calls, returns and resx) and loaded again after each call (a callee appends to the buffer:
 * its words come after the caller's). Called after every word is emitted; the caller commits
 * the edge inserts (gsi_commit_edge_inserts). */
void emit_count_bounds(tree cnt, basic_block entry, const auto_vec<gimple *> &stmts, const auto_vec<basic_block> &eh)
{
    location_t loc = DECL_SOURCE_LOCATION(current_function_decl);
    gimple_stmt_iterator gsi = gsi_after_labels(entry);
    gsi_insert_seq_before(&gsi, count_move(cnt, true, loc), GSI_SAME_STMT);
    for (unsigned i = 0; i < eh.length(); i++) {
        gsi = gsi_after_labels(eh[i]);
        gsi_insert_seq_before(&gsi, count_move(cnt, true, loc), GSI_SAME_STMT);
        count_move_on_edges(eh[i]->preds, cnt, false, loc);
    }
    for (unsigned i = 0; i < stmts.length(); i++) {
        gimple *s = stmts[i];
        location_t sloc = gimple_location(s);
        gsi = gsi_for_stmt(s);
        gsi_insert_seq_before(&gsi, count_move(cnt, false, sloc), GSI_SAME_STMT);
        if (!is_gimple_call(s)) continue;
        if (stmt_ends_bb_p(s)) {
            count_move_on_edges(gimple_bb(s)->succs, cnt, true, sloc);
        } else {
            gsi = gsi_for_stmt(s);
            gsi_insert_seq_after(&gsi, count_move(cnt, true, sloc), GSI_SAME_STMT);
        }
    }
}

/* A static table of n 64-bit words of the current function (not yet filled), named
 * prefix.N. */
tree make_table(const char *prefix, unsigned nwords, char *name, size_t namelen)
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
tree make_loop_table(fn_state *st, tree blocks, function *fun)
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
        CONSTRUCTOR_APPEND_ELT(elts, size_int(2 + 2 * i), table_address(blocks, MSPLUG_BLOCK_WORDS * hb));
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
void fill_blocks(fn_state *st, tree blocks, tree loops)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    for (unsigned i = 0; i < st->blocks.length(); i++) {
        const block &bk = st->blocks[i];
        unsigned memops = bk.memops > 0xffffffffu ? 0xffffffffu : bk.memops;
        unsigned stmts = bk.stmts > 0xffffu ? 0xffffu : bk.stmts;
        tree zero = build_int_cst(long_long_unsigned_type_node, 0);
        unsigned w = MSPLUG_BLOCK_WORDS * i;
        CONSTRUCTOR_APPEND_ELT(elts, size_int(w), zero);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(w + 1),
                               build_int_cstu(long_long_unsigned_type_node, MSPLUG_BLOCK_INFO(bk.loop, memops, stmts)));
        CONSTRUCTOR_APPEND_ELT(elts, size_int(w + 2), zero);
        CONSTRUCTOR_APPEND_ELT(elts, size_int(w + 3), loops ? table_address(loops, 0) : zero);
        CONSTRUCTOR_APPEND_ELT(
            elts, size_int(w + 4),
            build_int_cstu(long_long_unsigned_type_node, MSPLUG_BLOCK_LINES(bk.first_line, bk.last_line)));
    }
    DECL_INITIAL(blocks) = build_constructor(TREE_TYPE(blocks), elts);
    varpool_node::finalize_decl(blocks);
}

/* Fill the table's initializer: {0, info} per site, MSPLUG_F_LAST on each group's last. */
void fill_table(fn_state *st, tree table)
{
    vec<constructor_elt, va_gc> *elts = NULL;
    unsigned ng = st->group_start.length();
    for (unsigned g = 0; g < ng; g++) {
        unsigned first = st->group_start[g], end = g + 1 < ng ? st->group_start[g + 1] : st->sites.length();
        for (unsigned i = first; i < end; i++) {
            const site &s = st->sites[i];
            unsigned flags = (i + 1 == end ? MSPLUG_F_LAST : 0) | (s.order >= 0 ? MSPLUG_F_ORDER(s.order) : 0);
            uint64_t info = MSPLUG_INFO(s.size, s.kind, flags);
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
void emit_entry_exit(edge entry, const auto_vec<gimple *> &returns)
{
    gimple_seq seq = NULL;
    tree ra = make_ssa_name(ptr_type_node);
    gcall *g = gimple_build_call(builtin_decl_implicit(BUILT_IN_RETURN_ADDRESS), 1, integer_zero_node);
    gimple_call_set_lhs(g, ra);
    gimple_seq_add_stmt(&seq, g);
    gimple_seq_add_stmt(&seq, gimple_build_call(entry_decl, 1, ra));
    for (unsigned i = 0; i < returns.length(); i++) {
        gimple_stmt_iterator gsi = gsi_for_stmt(returns[i]);
        gcall *x = gimple_build_call(exit_decl, 0);
        gimple_set_location(x, gimple_location(returns[i]));
        gsi_insert_before(&gsi, x, GSI_SAME_STMT);
    }
    gsi_insert_seq_on_edge_immediate(entry, seq);
}
