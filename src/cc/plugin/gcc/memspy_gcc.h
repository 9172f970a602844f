/* Shared declarations of memspy's GCC plugin (memspy_gcc.cc: the pass and versioning;
 * collect.cc: what is an access and how accesses group; emit.cc: the emitted code and tables). */
#ifndef MEMSPY_GCC_PLUGIN_H
#define MEMSPY_GCC_PLUGIN_H
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
#include "memmodel.h"
#include "alias.h"
#include "varasm.h"
#include "diagnostic-core.h"
#include "cfgloop.h"
#include "cfgloopmanip.h"
#include "cfghooks.h"
#include "tree-into-ssa.h"
#include "tree-dfa.h"
#include "tree-cfg.h"
#include "attribs.h"
#include "tree-iterator.h"
#include "ggc.h"
#include "gtype-desc.h"

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"

/* One access site of the current function, before code is emitted for it. */
struct site {
    gimple *stmt; /* records go just before this statement */
    tree ops[3];  /* the words to store (pointer or integer expressions) */
    unsigned kind, size;
    bool alone; /* a group of its own, committed right before stmt (copies, sets) */
    int order;  /* an atomic's memory order (MSPLUG_F_ORDER), -1 unknown or not atomic */
};

/* A counted basic block of the function being instrumented. */
struct block {
    basic_block bb;
    gimple *first;                  /* its first statement: the block word's and the pc label's place */
    int group;                      /* the group whose reservation carries the block word, -1: one of its own */
    unsigned memops;                /* sites in it */
    unsigned stmts;                 /* statements in it (debug statements and clobbers excluded) */
    unsigned loop;                  /* index of its innermost loop in the function's loop table, MSPLUG_NO_LOOP */
    unsigned first_line, last_line; /* its statements' lines in the function's own file, 0 unknown */
};

/* The function being instrumented: its sites in statement order, its groups and its blocks. */
struct fn_state {
    auto_vec<site> sites;
    auto_vec<unsigned> group_start; /* index of each group's first site */
    auto_vec<block> blocks;
    auto_vec<int> group_block;     /* per group: the block whose word it carries, -1 none */
    auto_vec<gcall *> calls;       /* calls of other functions (not builtins): call words */
    auto_vec<unsigned> call_block; /* per call: the index of its block */
    auto_vec<gcall *> atomics;     /* ordered atomics that become calls of the runtime's hooks */
    unsigned has_calls;
    auto_vec<gcall *> dest_calls; /* calls with an allocation destination record (dests.cc) */
    auto_vec<char *> dest_records;
    auto_vec<tree> slot_decls; /* -O0: register variables whose stack slots have sites (collect.cc) */
};

/* Options and the trees kept across functions (memspy_gcc.cc; GC roots there). */
extern bool opt_verbose;
extern tree word_type;
extern tree word_ptr;
extern tree buf_decl;
extern tree flush_decl, entry_decl, exit_decl, register_decl, register_blocks_decl, register_plain_decl;
extern tree register_dests_decl, dests_start_decl, dests_stop_decl;
extern tree register_calls_decl, calls_start_decl, calls_stop_decl;
extern tree plain_decl;
extern tree counts_decl, counts_init_decl;
extern tree pcs_start_decl, pcs_stop_decl, bpcs_start_decl, bpcs_stop_decl, ppcs_start_decl, ppcs_stop_decl;
extern unsigned table_counter;

/* collect.cc and emit.cc (each defined with its comment). */
void collect_bb(fn_state *st, basic_block bb);
void insert_before(gimple_stmt_iterator *gsi, gimple *g, location_t loc);
gimple *pc_label(const char *section, const char *table, unsigned offset, const char *comdat);
void emit_block_word(const block &bk, unsigned index, tree blocks, tree cnt);
void emit_call_word(gcall *call, unsigned blk, tree blocks, tree cnt);
bool direct_call_site(const fn_state *st, unsigned j);
int derived_entry(const fn_state *st, basic_block entry);
void emit_call_sites(const fn_state *st, const auto_vec<bool> &direct, tree blocks, int entry);
void emit_repeat_word(gimple *first, const auto_vec<edge> &ins, const auto_vec<edge> &outs, unsigned index, tree blocks,
                      tree cnt);
tree count_register(void);
tree counters_register(void);
void emit_block_counter(gimple *first, unsigned index, tree blocks, tree ctr);
void emit_counters_entry(tree ctr, basic_block entry);
void emit_count_bounds(tree cnt, basic_block entry, const auto_vec<gimple *> &stmts, const auto_vec<basic_block> &eh);
void emit_group(fn_state *st, unsigned first, unsigned end, tree table, const char *table_name, const char *comdat,
                int blk, tree blocks);
tree make_table(const char *prefix, unsigned nwords, char *name, size_t namelen);
tree make_loop_table(fn_state *st, tree blocks, function *fun);
void fill_blocks(fn_state *st, tree blocks, tree loops);
void fill_table(fn_state *st, tree table);
void emit_entry_exit(edge entry, const auto_vec<gimple *> &returns);
/* dests.cc: the early pass notes what each call of fun names at its own level, before the
 * optimisers; the records made after them fall back on it where they name nothing there. */
void early_dests_function(function *fun);
void collect_dests(fn_state *st, basic_block bb);
/* parts.cc: the object whose member function (not a constructor) takes the address of gcc's
 * temporary tmp as an argument other than the object (`v.push_back(new T)`: the pointer goes
 * into container v through a reference parameter), or of a local variable tmp of the program's
 * as a reference parameter (`T *p = new T; v.push_back(p);`), NULL_TREE if none; *assign: the function is
 * an assignment operator (`head_ = std::make_unique<T>()`: the object itself holds it). */
tree container_of_temporary(tree tmp, bool *assign);
/* parts.cc: the same for the program's local var moved into the object with std::move
 * (`auto p = std::make_unique<T>(); member_ = std::move(p);`, `v.push_back(std::move(p))`). */
tree container_of_moved(tree var, bool *assign);
/* parts.cc: the object whose element accessor (operator[], at, front, back) returned
 * reference ref (`m[k] = new T`: the pointer is stored into container m's element), NULL_TREE
 * if ref is no such call's result. */
tree container_of_reference(tree ref);
/* parts.cc: whether lhs, the result of call, is gcc's temporary that nothing reads (the
 * std::pair that an ignored `um.emplace(k, v)` returns). */
bool unread_result(tree lhs, gimple *call);
void emit_dests(fn_state *st, const char *comdat);
/* dests.cc: the source language's code in records ("c", "c++", "f"), and the asm statement
 * that puts record into the destinations section with a label here (record_asm). */
const char *lang_code(void);
gimple *record_asm(const char *record, const char *comdat, bool end_label);
/* A growable text. */
struct text {
    auto_vec<char> s;
    void add(const char *p)
    {
        while (p && *p) s.safe_push(*p++);
    }
    void addn(long v)
    {
        char b[32];
        snprintf(b, sizeof b, "%ld", v);
        add(b);
    }
    const char *str()
    {
        s.safe_push('\0');
        s.pop();
        return s.address();
    }
};

/* omp.cc: OpenMP regions. The pass before "omplower" notes the combined constructs as the
 * front end wrote them; the pass after it each construct of fun that is outlined (its child
 * function, the construct, its line); the main pass puts the record of the function it
 * instruments, if that is such a child, at its entry. */
void omp_combined_function(function *fun);
void omp_regions_function(function *fun);
void emit_omp_record(fn_state *st, const char *comdat);

/* atomics.cc: ordered atomics as calls of the runtime's atomic hooks. Whether call (an atomic
 * builtin or internal function of memory order `order`, -1 unknown) becomes a hook call, and
 * the rewrite itself (in the instrumented body, after everything else is emitted). */
bool atomic_routed(gcall *call, int order);
void route_atomic(gcall *call);
#define ATOMIC_HOOK_DECLS 48 /* 12 operations x 4 sizes: a GC root */
extern tree atomic_hook_decls[ATOMIC_HOOK_DECLS];

#endif
