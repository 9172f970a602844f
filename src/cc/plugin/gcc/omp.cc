/* memspy's GCC plugin: the records of OpenMP regions (src/rt/msplug_abi.h, MSPLUG_OMP_RECORD),
 * in the destinations section beside the allocation records (dests.cc). */
#include "memspy_gcc.h"
#include "langhooks.h"
#include "gimple-walk.h"

/* ---- OpenMP regions (record format MSPLUG_OMP_RECORD in msplug_abi.h) ----
 *
 * After "omplower" a parallel (task, teams) construct is still one GIMPLE_OMP_* statement of
 * the function that holds it, and already names the child function its body will be outlined
 * into (gcc's PARENT._omp_fn.N). For each, the record says the enclosing function, the
 * construct ("parallel for" for the combined `parallel for`, "parallel" for a parallel region
 * whatever it holds) and the pragma's line; the main pass emits it at the child's entry. */

struct omp_region {
    unsigned uid; /* DECL_UID of the child function */
    char *record;
};
static auto_vec<omp_region> omp_regions;

/* The parallel statements the front end marked combined (`parallel for`, `parallel do`,
 * `parallel sections`), seen before "omplower": lowering marks any parallel whose body holds
 * one worksharing construct as combined too, and the records name the construct as written. */
static auto_vec<gimple *> omp_combined;

static tree omp_combined_cb(gimple_stmt_iterator *gsi, bool *, struct walk_stmt_info *)
{
    gimple *g = gsi_stmt(*gsi);
    if (gimple_code(g) == GIMPLE_OMP_PARALLEL && gimple_omp_parallel_combined_p(g)) omp_combined.safe_push(g);
    return NULL_TREE;
}

void omp_combined_function(function *fun)
{
    omp_combined.truncate(0);
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    walk_gimple_seq(gimple_body(fun->decl), omp_combined_cb, NULL, &wi);
}

/* The worksharing construct of a combined parallel: "for" ("do" in Fortran), "sections". */
static tree omp_inner_cb(gimple_stmt_iterator *gsi, bool *handled, struct walk_stmt_info *wi)
{
    gimple *g = gsi_stmt(*gsi);
    switch (gimple_code(g)) {
    case GIMPLE_OMP_FOR:
        *handled = true;
        if (gimple_omp_for_kind(g) != GF_OMP_FOR_KIND_FOR) return NULL_TREE;
        wi->info = (void *)(strcmp(lang_code(), "f") ? "for" : "do");
        return integer_zero_node;
    case GIMPLE_OMP_SECTIONS:
        *handled = true;
        wi->info = (void *)"sections";
        return integer_zero_node;
    case GIMPLE_OMP_PARALLEL:
    case GIMPLE_OMP_TASK:
    case GIMPLE_OMP_TEAMS:
    case GIMPLE_OMP_TARGET: *handled = true; return NULL_TREE; /* a region of its own */
    default: return NULL_TREE;
    }
}

static void omp_note(gimple *g, tree child, const char *what)
{
    if (!child || TREE_CODE(child) != FUNCTION_DECL || !DECL_NAME(child)) return;
    expanded_location x = expand_location(gimple_location(g));
    char kind[64];
    snprintf(kind, sizeof kind, "%s", what);
    bool combined = false;
    for (unsigned i = 0; i < omp_combined.length() && !combined; i++) combined = omp_combined[i] == g;
    if (combined) {
        struct walk_stmt_info wi;
        memset(&wi, 0, sizeof wi);
        walk_gimple_seq(gimple_omp_body(g), omp_inner_cb, NULL, &wi);
        if (wi.info) snprintf(kind, sizeof kind, "%s %s", what, (const char *)wi.info);
    }
    text r;
    r.add(MSPLUG_OMP_RECORD "\t");
    r.add(x.file ? x.file : "");
    r.add("\t");
    /* C++: the symbol, which the analysis demangles into the qualified name; else as DWARF names it */
    r.add(strcmp(lang_code(), "c++") == 0 ? IDENTIFIER_POINTER(DECL_ASSEMBLER_NAME(current_function_decl))
                                          : lang_hooks.decl_printable_name(current_function_decl, 0));
    r.add("\t");
    r.add(kind);
    r.add("\t");
    r.addn(x.line);
    r.add("\t");
    r.add(IDENTIFIER_POINTER(DECL_NAME(child)));
    omp_region o = { DECL_UID(child), xstrdup(r.str()) };
    omp_regions.safe_push(o);
}

static tree omp_region_cb(gimple_stmt_iterator *gsi, bool *, struct walk_stmt_info *)
{
    gimple *g = gsi_stmt(*gsi);
    switch (gimple_code(g)) {
    case GIMPLE_OMP_PARALLEL: omp_note(g, gimple_omp_parallel_child_fn(as_a<gomp_parallel *>(g)), "parallel"); break;
    case GIMPLE_OMP_TASK:
        omp_note(g, gimple_omp_task_child_fn(g), gimple_omp_task_taskloop_p(g) ? "taskloop" : "task");
        break;
    default: break;
    }
    return NULL_TREE; /* nested regions too: all are named after this function */
}

void omp_regions_function(function *fun)
{
    struct walk_stmt_info wi;
    memset(&wi, 0, sizeof wi);
    walk_gimple_seq(gimple_body(fun->decl), omp_region_cb, NULL, &wi);
    omp_combined.truncate(0);
}

void emit_omp_record(fn_state *st, const char *comdat)
{
    if (st->blocks.is_empty()) return;
    unsigned uid = DECL_UID(current_function_decl);
    for (unsigned i = 0; i < omp_regions.length(); i++) {
        if (omp_regions[i].uid != uid) continue;
        gimple_stmt_iterator gsi = gsi_for_stmt(st->blocks[0].first);
        location_t loc = gimple_location(st->blocks[0].first);
        if (LOCATION_LOCUS(loc) == UNKNOWN_LOCATION) loc = DECL_SOURCE_LOCATION(current_function_decl);
        insert_before(&gsi, record_asm(omp_regions[i].record, comdat, false),
                      LOCATION_LOCUS(loc) == UNKNOWN_LOCATION ? BUILTINS_LOCATION : loc);
        return;
    }
}
