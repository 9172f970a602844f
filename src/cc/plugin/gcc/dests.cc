/* memspy's GCC plugin: allocation destinations (src/rt/msplug_abi.h, MSPLUG_DESTS_SECTION).
 *
 * For each call of the current function whose result is a pointer (the malloc family, operator
 * new, any function returning a pointer or a struct with a pointer member) and each
 * posix_memalign, this walks the GIMPLE uses of
 * the result and notes where it goes: the variable the call's SSA name stands for, the user
 * variables debug statements bind it to, the variables and memory (a field, an element, a
 * global) it is copied or stored into, and whether it reaches a return statement. Each finding
 * belongs to the function (inline level) whose statement or variable made it: the call's own
 * function, or one it was inlined into. The record is text in a read-only section, emitted by
 * an asm statement before the call; the runtime copies it unread and the analysis turns it
 * into a name (src/analysis/dests.c). Only the instrumented body gets the asm statements.
 * The same section carries a record per OpenMP region (omp.cc). The walk is in dests_find.cc;
 * this file makes the records from what it finds. */
#include "dests.h"
#include "langhooks.h"

const char *lang_code(void)
{
    const char *n = lang_hooks.name;
    if (strstr(n, "Fortran")) return "f";
    if (strstr(n, "C++")) return "c++";
    return "c";
}

/* A volatile basic asm statement (the text is not a template). */
static gasm *basic_asm(const char *text)
{
    gasm *g = gimple_build_asm_vec(ggc_strdup(text), NULL, NULL, NULL, NULL);
    gimple_asm_set_volatile(g, true);
    gimple_asm_set_input(g, true);
    return g;
}

/* Text into an asm string literal. */
static void add_escaped(text &out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char b[8];
        if (c == '"' || c == '\\') {
            b[0] = '\\', b[1] = (char)c, b[2] = 0;
        } else if (c < 32 || c >= 127) {
            snprintf(b, sizeof b, "\\%03o", c);
        } else {
            b[0] = (char)c, b[1] = 0;
        }
        out.add(b);
    }
}

/* What the early pass found at one call's own level, before the optimisers (dead stores,
 * dropped debug bindings) could lose it: keyed by the call's function, position and callee
 * (for an inlined call: the function it was inlined into, where, and the inlined function). */
struct early_dest {
    unsigned fn_uid, callee_uid; /* DECL_UIDs, callee 0 if unknown */
    const char *file;
    int line, col;
    bool ambiguous; /* several calls at that position found different things */
    char kind;
    bool decl, autov, local, used, ret, slot;
    char type[MSPLUG_DEST_TEXT_MAX], path[MSPLUG_DEST_TEXT_MAX];
};
static auto_vec<early_dest> early_dests;
static bool early_sorted; /* sorted by key, duplicates merged (before the first lookup) */

static int early_cmp(const void *a, const void *b)
{
    const early_dest *x = (const early_dest *)a, *y = (const early_dest *)b;
    if (x->fn_uid != y->fn_uid) return x->fn_uid < y->fn_uid ? -1 : 1;
    if (x->line != y->line) return x->line < y->line ? -1 : 1;
    if (x->col != y->col) return x->col < y->col ? -1 : 1;
    if (x->callee_uid != y->callee_uid) return x->callee_uid < y->callee_uid ? -1 : 1;
    return strcmp(x->file, y->file);
}

/* Sort the early findings and merge those of one key (ambiguous where they differ). */
static void early_sort(void)
{
    early_dests.qsort(early_cmp);
    unsigned n = 0;
    for (unsigned i = 0; i < early_dests.length(); i++) {
        early_dest &e = early_dests[i];
        if (n && early_cmp(&early_dests[n - 1], &e) == 0) {
            early_dest &o = early_dests[n - 1];
            o.ambiguous |= o.kind != e.kind || strcmp(o.path, e.path) != 0 || strcmp(o.type, e.type) != 0;
        } else {
            early_dests[n++] = e;
        }
    }
    early_dests.truncate(n);
    early_sorted = true;
}

static unsigned callee_uid(gcall *call)
{
    tree f = gimple_call_fndecl(call);
    return f ? DECL_UID(DECL_ORIGIN(f)) : 0; /* a C++ constructor's clone: the constructor */
}

/* The early finding for level k of call's levels lv, NULL if none (or an ambiguous one). */
static const early_dest *early_find(gcall *call, const auto_vec<level> &lv, unsigned k)
{
    if (!early_sorted) early_sort();
    expanded_location x = expand_location(lv[k].loc);
    if (!x.file) return NULL;
    unsigned fn = lv[k].fn ? DECL_UID(lv[k].fn) : 0;
    unsigned callee = k == 0 ? callee_uid(call) : lv[k - 1].fn ? DECL_UID(lv[k - 1].fn) : 0;
    unsigned lo = 0, hi = early_dests.length(); /* the first finding at (fn, line, col) */
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        const early_dest &m = early_dests[mid];
        if (m.fn_uid < fn || (m.fn_uid == fn && (m.line < x.line || (m.line == x.line && m.col < x.column))))
            lo = mid + 1;
        else
            hi = mid;
    }
    for (unsigned i = lo; i < early_dests.length(); i++) {
        const early_dest &e = early_dests[i];
        if (e.fn_uid != fn || e.line != x.line || e.col != x.column) break;
        if (strcmp(e.file, x.file) == 0 && (!e.callee_uid || !callee || e.callee_uid == callee))
            return e.ambiguous ? NULL : &e;
    }
    return NULL;
}

void early_dests_function(function *fun)
{
    basic_block bb;
    FOR_EACH_BB_FN(bb, fun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
        auto_vec<level> lv;
        bool returned, object;
        if (!call || !find_dests(call, lv, &returned, &object) || (lv[0].kind == '-' && !lv[0].slot)) continue;
        expanded_location x = expand_location(lv[0].loc);
        if (!x.file || !x.line) continue;
        early_dest e = {};
        e.fn_uid = lv[0].fn ? DECL_UID(lv[0].fn) : 0;
        e.callee_uid = callee_uid(call);
        e.file = x.file;
        e.line = x.line;
        e.col = x.column;
        e.kind = lv[0].kind;
        e.decl = lv[0].decl;
        e.autov = lv[0].autov;
        e.local = lv[0].local;
        e.used = lv[0].used;
        e.ret = lv[0].ret;
        e.slot = lv[0].slot;
        memcpy(e.type, lv[0].type, sizeof e.type);
        memcpy(e.path, lv[0].path, sizeof e.path);
        early_dests.safe_push(e);
        early_sorted = false;
    }
}

/* The text of a record of call with levels lv: `arg` -1, or the argument (a pointer to a
 * pointer) whose target the levels name. */
static char *record_text(gcall *call, auto_vec<level> &lv, bool returned, bool object, int arg)
{
    expanded_location xl = expand_location(lv[0].loc);
    tree fndecl = gimple_call_fndecl(call);
    text r;
    r.add(MSPLUG_DEST_RECORD_VERSION "\t");
    r.add(lang_code());
    r.add("\t");
    r.add(xl.file ? xl.file : "");
    r.add("\t");
    r.add(fndecl && DECL_NAME(fndecl) ? lang_hooks.decl_printable_name(fndecl, 0) : "*");
    if (arg >= 0) {
        r.add("\ta");
        r.addn(arg);
        r.add("\t");
    } else {
        r.add(returned && object ? "\tro\t" : returned ? "\tr\t" : object ? "\to\t" : "\t-\t");
    }
    r.addn((long)lv.length());
    for (unsigned k = 0; k < lv.length(); k++) {
        expanded_location x = expand_location(lv[k].loc);
        r.add("\t");
        r.addn(x.line);
        r.add("\t");
        r.addn(x.column);
        char kd[10] = { '\t', lv[k].kind, '\t', 0, 0, 0, 0, 0, 0, 0 };
        int nf = 3;
        if (lv[k].decl) kd[nf++] = 'd';
        if (lv[k].kind == 'v' && lv[k].autov) kd[nf++] = 'l';
        if (lv[k].used) kd[nf++] = 'u';
        if (lv[k].ret) kd[nf++] = 'r';
        if (lv[k].slot) kd[nf++] = 's';
        if (nf == 3 && !lv[k].outp) kd[nf++] = '-';
        r.add(kd);
        if (lv[k].outp) {
            r.add("p");
            r.addn((long)lv[k].outp - 1);
        }
        r.add("\t");
        r.add(lv[k].type);
        r.add("\t");
        r.add(lv[k].path);
    }
    return xstrdup(r.str());
}

/* Whether a level's path is an element with no member after it (`coder[]`): where the
 * optimisers folded a member of an element reached through a cursor into the array's address
 * (`thr->in`, thr = &coder->threads[i]), the early pass's member path says more. */
static bool bare_element(char kind, const char *path)
{
    size_t n = strlen(path);
    return kind == 'm' && n >= 2 && strcmp(path + n - 2, "[]") == 0;
}

/* The record of call, or NULL if it gets none. */
static char *dest_record(gcall *call)
{
    auto_vec<level> lv;
    bool returned, object;
    if (!find_dests(call, lv, &returned, &object)) return NULL;
    for (unsigned k = 0; k < lv.length(); k++) { /* what the optimisers lost on the way */
        bool bare = bare_element(lv[k].kind, lv[k].path);
        bool local = lv[k].kind != '-' && lv[k].local; /* a store the optimisers folded away outranks it */
        const early_dest *e = lv[k].kind == '-' || bare || local ? early_find(call, lv, k) : NULL;
        if (!e) continue;
        if (bare && (e->kind != 'm' || bare_element(e->kind, e->path))) continue;
        if (local && (e->kind == '-' || e->local || e->ret)) continue; /* a store only */
        lv[k].kind = e->kind;
        lv[k].decl = e->decl;
        lv[k].autov = e->autov;
        lv[k].local = e->local;
        lv[k].used |= e->used;
        lv[k].ret = e->ret;
        lv[k].slot |= e->slot;
        memcpy(lv[k].type, e->type, sizeof lv[k].type);
        memcpy(lv[k].path, e->path, sizeof lv[k].path);
    }
    bool any = returned;
    for (unsigned k = 0; k < lv.length(); k++) any |= lv[k].kind != '-' || lv[k].slot;
    if (!any) return NULL;
    return record_text(call, lv, returned, object, -1);
}

/* The record of argument i of call, a pointer to a pointer (`create(&lz->coder)`, where the
 * callee may store an allocation: `*coder_ptr = malloc(...)`), or NULL if it names nothing: what
 * it points to (a variable at its level, a member at the call's and at its declared object's),
 * or the caller's own pointer parameter passed on (an out-parameter again: its caller names it). */
static char *arg_record(gcall *call, unsigned i)
{
    tree a = gimple_call_arg(call, i);
    if (!POINTER_TYPE_P(TREE_TYPE(a)) || !POINTER_TYPE_P(TREE_TYPE(TREE_TYPE(a)))) return NULL;
    gimple *def = TREE_CODE(a) == SSA_NAME && !SSA_NAME_IS_DEFAULT_DEF(a) ? SSA_NAME_DEF_STMT(a) : NULL;
    if (def && gimple_assign_single_p(def) && TREE_CODE(gimple_assign_rhs1(def)) == ADDR_EXPR)
        a = gimple_assign_rhs1(def); /* _5 = &lz->coder */
    auto_vec<level> lv;
    make_levels(call, lv);
    int pi = param_index(a);
    if (TREE_CODE(a) == ADDR_EXPR) {
        tree p = TREE_OPERAND(a, 0);
        bool var = VAR_P(p) || TREE_CODE(p) == PARM_DECL;
        note(lv, var ? level_of_var(lv, p, call) : 0, p, var ? 'v' : 'm');
        tree base = var ? NULL_TREE : get_base_address(p); /* a member of a declared object */
        if (base && VAR_P(base) && user_var(base)) note(lv, level_of_var(lv, base, call), p, 'm');
    } else if (pi >= 0) {
        note_out_param(lv, a, pi);
    }
    bool any = false;
    for (unsigned k = 0; k < lv.length(); k++) any |= lv[k].kind != '-';
    return any ? record_text(call, lv, false, false, (int)i) : NULL;
}

/* The asm statement that puts record into the destinations section (the function's COMDAT
 * group if it has one, 8-byte aligned) after the addresses of a label here, just before the
 * call, and of the label `2:` just after it (end_label; else 0): calls at one source position
 * (Fortran's `allocate (a(n), b(n))`) are told apart by the label that precedes each one's
 * return address, and a binary without line information finds the record whose two labels
 * enclose the return address. */
gimple *record_asm(const char *record, const char *comdat, bool end_label)
{
    text a;
    a.add("\t.pushsection " MSPLUG_DESTS_SECTION);
    if (comdat) {
        a.add(",\"awG\",@progbits,");
        a.add(comdat);
        a.add(",comdat");
    } else {
        a.add(",\"aw\",@progbits");
    }
    a.add(end_label ? "\n\t.balign 8\n\t.quad 1f, 2f\n\t.asciz \"" : "\n\t.balign 8\n\t.quad 1f, 0\n\t.asciz \"");
    add_escaped(a, record);
    a.add("\"\n\t.popsection\n1:");
    return basic_asm(a.str());
}

/* Whether call's arguments get records (arg_record): a call of a function that is no builtin. */
static bool args_recorded(gcall *call)
{
    tree fndecl = gimple_call_fndecl(call);
    return !gimple_call_internal_p(call) && !(fndecl && fndecl_built_in_p(fndecl));
}

void collect_dests(fn_state *st, basic_block bb)
{
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gcall *call = dyn_cast<gcall *>(gsi_stmt(gsi));
        if (!call) continue;
        if (char *rec = dest_record(call)) {
            st->dest_calls.safe_push(call);
            st->dest_records.safe_push(rec);
        }
        for (unsigned i = 0; args_recorded(call) && i < gimple_call_num_args(call); i++)
            if (char *rec = arg_record(call, i)) {
                st->dest_calls.safe_push(call);
                st->dest_records.safe_push(rec);
            }
    }
}

/* Where a basic asm statement for call is said to be: the call's own location, else the
 * function's. Never UNKNOWN_LOCATION: GCC 12's final pass reads the file name of a basic asm's
 * location without a null test (a call made by ipa-split, `snocString.part.0` inlined into
 * bzip2's addFlagsFromEnvVar at -O2, has none: an internal compiler error). */
static location_t asm_location(gcall *call)
{
    location_t loc = gimple_location(call);
    if (LOCATION_LOCUS(loc) == UNKNOWN_LOCATION) loc = DECL_SOURCE_LOCATION(current_function_decl);
    return LOCATION_LOCUS(loc) == UNKNOWN_LOCATION ? BUILTINS_LOCATION : loc;
}

void emit_dests(fn_state *st, const char *comdat)
{
    for (unsigned i = 0; i < st->dest_calls.length(); i++) {
        gcall *call = st->dest_calls[i];
        bool end_label = !stmt_ends_bb_p(call); /* a call that may throw ends its block: no end label */
        gimple_stmt_iterator gsi = gsi_for_stmt(call);
        location_t loc = asm_location(call);
        insert_before(&gsi, record_asm(st->dest_records[i], comdat, end_label), loc);
        if (end_label) {
            /* a text of its own (a number in a comment): RTL cross-jumping merges identical
             * tails, and a call with its `2:` shared by several records' paths (leveldb's
             * EnvWrapper calls inlined into each other) left their `2f` to a later record's
             * label, or to none (an assembler error) */
            static unsigned serial;
            char end_text[40];
            snprintf(end_text, sizeof end_text, "2:\t# memspy %u", serial++);
            gasm *end = basic_asm(end_text);
            gimple_set_location(end, loc);
            gsi_insert_after(&gsi, end, GSI_SAME_STMT);
        }
        free(st->dest_records[i]);
    }
    st->dest_calls.truncate(0);
    st->dest_records.truncate(0);
}
