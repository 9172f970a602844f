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
 * The same section carries a record per OpenMP region (omp.cc). */
#include "memspy_gcc.h"
#include "langhooks.h"
#include "tree-pretty-print.h"
#include "ssa-iterators.h"
#include "gimple-walk.h"

/* What one inline level of the call names. */
struct level {
    location_t loc; /* level 0: the call; level k: where level k-1's function was inlined */
    tree fn;        /* the level's function (the origin of an inlined one) */
    char kind;      /* '-', 'v' (variable), 'm' (memory through a pointer, field, element), 'o' (a
                     * declared object the value is stored in, or that a constructor builds) */
    bool decl;      /* a variable declared on loc's line */
    bool used;      /* a statement of the level uses the value: dereferences or offsets it, passes it
                     * to a call (besides copying, comparing, storing or returning it) */
    bool ret;       /* stored in a part of a local aggregate that the function returns by value
                     * (`buffer.start = start; return buffer;`): path names that part */
    bool slot;      /* stored in a slot no variable or field names: through a cursor computed by
                     * pointer arithmetic (an interpreter's stack slot `ra = base + A`, a hash
                     * chain's head `*list`, list = &tb->hash[h]); type: the value's if no path */
    unsigned outp;  /* 1 + the index of the pointer parameter of the level's function the value
                     * is stored through (`*coder_ptr = v`: the caller's argument names it), 0 none */
    char type[MSPLUG_DEST_TEXT_MAX], path[MSPLUG_DEST_TEXT_MAX];
};

static tree origin_fn(tree block)
{
    tree o = block_ultimate_origin(block);
    return o && TREE_CODE(o) == FUNCTION_DECL ? DECL_ORIGIN(o) : NULL_TREE;
}

/* The call's levels: its own position and function, then each function it was inlined into. */
static void make_levels(gimple *call, auto_vec<level> &lv)
{
    level l0 = {};
    l0.loc = gimple_location(call);
    l0.kind = '-';
    lv.safe_push(l0);
    for (tree b = gimple_block(call); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b)) {
        if (!inlined_function_outer_scope_p(b)) continue;
        lv.last().fn = origin_fn(b);
        level l = {};
        l.loc = BLOCK_SOURCE_LOCATION(b);
        l.kind = '-';
        lv.safe_push(l);
    }
    lv.last().fn = DECL_ORIGIN(current_function_decl);
}

/* The level whose function is fn, -1 if none. */
static int level_of_fn(auto_vec<level> &lv, tree fn)
{
    for (unsigned k = 0; fn && k < lv.length(); k++)
        if (lv[k].fn == fn) return (int)k;
    return -1;
}

/* The level of statement s: that of the innermost function its code comes from. */
static int level_of_stmt(auto_vec<level> &lv, gimple *s)
{
    for (tree b = gimple_block(s); b && TREE_CODE(b) == BLOCK; b = BLOCK_SUPERCONTEXT(b))
        if (inlined_function_outer_scope_p(b)) return level_of_fn(lv, origin_fn(b));
    return level_of_fn(lv, DECL_ORIGIN(current_function_decl));
}

/* The level of variable var found at statement s: its function's for a local, s's otherwise. */
static int level_of_var(auto_vec<level> &lv, tree var, gimple *s)
{
    tree ctx = DECL_CONTEXT(DECL_ORIGIN(var));
    if (ctx && TREE_CODE(ctx) == FUNCTION_DECL) return level_of_fn(lv, DECL_ORIGIN(ctx));
    return level_of_stmt(lv, s);
}

/* The level of part, a variable SRA made for a part of an aggregate (its DECL_DEBUG_EXPR):
 * that of the aggregate's variable (SRA makes the part in the function it runs on, an outer
 * one once the aggregate's function is inlined there). */
static int level_of_part(auto_vec<level> &lv, tree part, gimple *s)
{
    tree base = get_base_address(DECL_DEBUG_EXPR(part));
    return level_of_var(lv, base && VAR_P(base) ? base : part, s);
}

/* A variable the user named (not one gcc made). */
static bool user_var(tree v)
{
    return v && (TREE_CODE(v) == VAR_DECL || TREE_CODE(v) == PARM_DECL || TREE_CODE(v) == RESULT_DECL) &&
           DECL_NAME(v) && !DECL_ARTIFICIAL(v);
}

static bool lvalue_path(tree t, text &out, int depth);

/* The member of aggregate type ty that starts off bytes in and has type want (NULL: any),
 * searched through nested members: its path (".mf", ".mf.hash") added to out. */
static bool member_path(tree ty, HOST_WIDE_INT off, tree want, text &out, int depth)
{
    if (!ty || depth > 4 || !RECORD_OR_UNION_TYPE_P(ty)) return false;
    for (tree f = TYPE_FIELDS(ty); f; f = DECL_CHAIN(f)) {
        if (TREE_CODE(f) != FIELD_DECL || !tree_fits_shwi_p(bit_position(f))) continue;
        tree size = TYPE_SIZE_UNIT(TREE_TYPE(f));
        HOST_WIDE_INT pos = int_byte_position(f);
        if (off < pos || !size || !tree_fits_shwi_p(size) || off >= pos + tree_to_shwi(size)) continue;
        unsigned len = out.s.length();
        if (DECL_NAME(f)) {
            out.add(".");
            out.add(IDENTIFIER_POINTER(DECL_NAME(f)));
        }
        if (off == pos && (!want || TYPE_MAIN_VARIANT(TREE_TYPE(f)) == TYPE_MAIN_VARIANT(want))) return true;
        if (member_path(TREE_TYPE(f), off - pos, want, out, depth + 1)) return true;
        out.s.truncate(len);
    }
    return false;
}

/* A MEM_REF at a constant offset into the struct its pointer points to, as inlining leaves
 * `&coder->mf` passed to a function that stores into `mf->hash`: the member there
 * (coder.mf), so that the path does not read as an element (coder[]). */
static bool member_at(tree t, text &out)
{
    tree ptr = TREE_OPERAND(t, 0), off = TREE_OPERAND(t, 1);
    if (!POINTER_TYPE_P(TREE_TYPE(ptr)) || !tree_fits_shwi_p(off)) return false;
    return member_path(TREE_TYPE(TREE_TYPE(ptr)), tree_to_shwi(off), TREE_TYPE(t), out, 0);
}

/* lvalue_path, leaving out as it was when it fails. */
static bool try_path(tree t, text &out, int depth)
{
    unsigned len = out.s.length();
    if (lvalue_path(t, out, depth)) return true;
    out.s.truncate(len);
    return false;
}

/* The parts of lvalue (or pointer) t joined with '.', "[]" for an element. */
static bool lvalue_path(tree t, text &out, int depth)
{
    if (!t || depth > 8) return false;
    switch (TREE_CODE(t)) {
    case VAR_DECL:
    case PARM_DECL:
    case RESULT_DECL:
        if (DECL_ARTIFICIAL(t) && DECL_HAS_DEBUG_EXPR_P(t)) return lvalue_path(DECL_DEBUG_EXPR(t), out, depth + 1);
        if (!DECL_NAME(t)) return false;
        out.add(IDENTIFIER_POINTER(DECL_NAME(t)));
        return true;
    case SSA_NAME: {
        if (user_var(SSA_NAME_VAR(t))) return lvalue_path(SSA_NAME_VAR(t), out, depth + 1);
        gimple *def = SSA_NAME_DEF_STMT(t);
        if (def && is_gimple_assign(def) &&
            (gimple_assign_single_p(def) || CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(def))))
            return lvalue_path(gimple_assign_rhs1(def), out, depth + 1);
        /* a pointer stepping through an object (after ivopts): an element of the object where
         * it starts (the phi's argument that is not a step) */
        bool step = def && is_gimple_assign(def) &&
                    (gimple_assign_rhs_code(def) == POINTER_PLUS_EXPR || gimple_assign_rhs_code(def) == PLUS_EXPR);
        gphi *phi = def ? dyn_cast<gphi *>(def) : NULL;
        if (!step && !(phi && gimple_phi_num_args(phi) > 0)) return false;
        bool found = false;
        if (step) found = try_path(gimple_assign_rhs1(def), out, depth + 1);
        for (unsigned a = 0; phi && !found && a < gimple_phi_num_args(phi); a++) {
            tree arg = gimple_phi_arg_def(phi, a); /* the start: an argument not defined by a step */
            gimple *ad = TREE_CODE(arg) == SSA_NAME ? SSA_NAME_DEF_STMT(arg) : NULL;
            if (ad && is_gimple_assign(ad) &&
                (gimple_assign_rhs_code(ad) == POINTER_PLUS_EXPR || gimple_assign_rhs_code(ad) == PLUS_EXPR))
                continue;
            found = try_path(arg, out, depth + 1);
        }
        if (!found) return false;
        unsigned len = out.s.length();
        if (len < 2 || out.s[len - 2] != '[' || out.s[len - 1] != ']') out.add("[]");
        return true;
    }
    case COMPONENT_REF: {
        tree f = TREE_OPERAND(t, 1);
        bool base = try_path(TREE_OPERAND(t, 0), out, depth + 1);
        if (!DECL_NAME(f)) return base;
        if (base) out.add(".");
        out.add(IDENTIFIER_POINTER(DECL_NAME(f)));
        return true;
    }
    case MEM_REF:
    case TARGET_MEM_REF: {
        if (!lvalue_path(TREE_OPERAND(t, 0), out, depth + 1)) return false;
        unsigned len = out.s.length();
        bool elt = len >= 2 && out.s[len - 2] == '[' && out.s[len - 1] == ']';
        if (elt || (TREE_CODE(t) == MEM_REF && integer_zerop(TREE_OPERAND(t, 1)))) return true;
        if (TREE_CODE(t) == MEM_REF && member_at(t, out)) return true;
        out.add("[]");
        return true;
    }
    case ARRAY_REF:
    case ARRAY_RANGE_REF:
        if (!lvalue_path(TREE_OPERAND(t, 0), out, depth + 1)) return false;
        out.add("[]");
        return true;
    case ADDR_EXPR:
    case VIEW_CONVERT_EXPR:
    case NOP_EXPR: return lvalue_path(TREE_OPERAND(t, 0), out, depth + 1);
    default: return false;
    }
}

const char *lang_code(void)
{
    const char *n = lang_hooks.name;
    if (strstr(n, "Fortran")) return "f";
    if (strstr(n, "C++")) return "c++";
    return "c";
}

/* The C++ front end's type printer (cc1plus exports it to plugins; null in cc1 and f951). */
extern const char *type_as_string(tree, int) __attribute__((weak));
#define MS_TFF_UNQUALIFIED_NAME (1 << 11) /* cp-tree.h's TFF_UNQUALIFIED_NAME */

/* The type as the front end writes it in C++ ("vector<double>", "Node*"), else as gcc prints
 * it ("struct S *", "long int *": the analysis tidies it). */
static void type_text(tree type, char *out, size_t size)
{
    if (type_as_string && strcmp(lang_code(), "c++") == 0) {
        snprintf(out, size, "%s", type_as_string(type, MS_TFF_UNQUALIFIED_NAME));
        return;
    }
    char *s = print_generic_expr_to_str(type);
    snprintf(out, size, "%s", s);
    free(s);
}

/* Note at level k (if it names nothing yet, or this is a variable declared on the level's
 * line, which wins as in the source: `double *Y = malloc(...)`) what t names. */
static void note(auto_vec<level> &lv, int k, tree t, char kind)
{
    bool is_var = kind != 'm';
    if (k < 0) return;
    level &l = lv[k];
    if (l.ret || l.outp) return; /* the returned aggregate's part (the out-parameter) says where it goes */
    bool decl = false;
    if (is_var) {
        expanded_location d = expand_location(DECL_SOURCE_LOCATION(DECL_ORIGIN(t)));
        expanded_location c = expand_location(l.loc);
        decl = d.line && d.line == c.line && d.file && c.file && strcmp(d.file, c.file) == 0;
    }
    if (l.kind != '-' && !(decl && !l.decl)) return;
    text path;
    if (!lvalue_path(t, path, 0)) return;
    l.kind = kind;
    l.decl = decl;
    snprintf(l.path, sizeof l.path, "%s", path.str());
    type_text(TREE_TYPE(t), l.type, sizeof l.type);
}

/* Whether the function returns var itself: `return var;`. */
static bool returned_var(tree var)
{
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi))
        if (greturn *r = dyn_cast<greturn *>(gsi_stmt(gsi)))
            if (gimple_return_retval(r) == var) return true;
    return false;
}

/* Whether the function returns local aggregate var by value: `return var;`, `<retval> = var;`,
 * `D.1234 = var; return D.1234;` (gcc -O0's copy into a temporary), or var is the return
 * value itself (the named-return-value optimisation's <retval>). */
static bool returned_aggregate(tree var)
{
    if (!var || !AGGREGATE_TYPE_P(TREE_TYPE(var))) return false;
    if (TREE_CODE(var) == RESULT_DECL) return true;
    if (!VAR_P(var) || !DECL_CONTEXT(var) || TREE_CODE(DECL_CONTEXT(var)) != FUNCTION_DECL) return false;
    if (returned_var(var)) return true;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        if (!gimple_assign_single_p(s) || gimple_assign_rhs1(s) != var) continue;
        tree lhs = gimple_assign_lhs(s);
        if (TREE_CODE(lhs) == RESULT_DECL) return true;
        if (VAR_P(lhs) && DECL_ARTIFICIAL(lhs) && lhs != var && returned_var(lhs)) return true;
    }
    return false;
}

/* Note at level k that the value is stored in part lhs of an aggregate its function returns
 * by value: the part's path wins over a variable that only carried the value there. */
static void note_returned_part(auto_vec<level> &lv, int k, tree lhs)
{
    if (k < 0) return;
    text path;
    if (!lvalue_path(lhs, path, 0)) return;
    level &l = lv[k];
    l.kind = 'm';
    l.decl = false;
    l.ret = true;
    snprintf(l.path, sizeof l.path, "%s", path.str());
    type_text(TREE_TYPE(lhs), l.type, sizeof l.type);
}

/* Where tmp is gcc's temporary that a member function takes by reference (container_of_temporary,
 * `v.push_back(new T)`): note at tmp's level, if it names nothing yet, an element of the object
 * ("v[]"; a member of an outer function's variable is an inlined member function's `this`'s,
 * "this.items_[]"), or the object that an assignment operator sets (`head_ = make_unique<T>()`).
 * Returns whether tmp is one. */
static bool note_container(auto_vec<level> &lv, tree tmp, gimple *s)
{
    bool assign = false;
    tree obj = TREE_CODE(tmp) == VAR_DECL ? container_of_temporary(tmp, &assign) : NULL_TREE;
    int k = obj ? level_of_var(lv, tmp, s) : -1;
    text path;
    if (k < 0 || lv[k].kind != '-' || lv[k].ret || lv[k].outp || !lvalue_path(obj, path, 0)) return obj != NULL_TREE;
    tree base = get_base_address(obj);
    const char *dot = strchr(path.str(), '.');
    bool inlined = dot && base != obj && user_var(base) && level_of_var(lv, base, s) > k; /* this's member */
    char own[MSPLUG_DEST_TEXT_MAX];
    snprintf(own, sizeof own, "%s%s%s", inlined ? "this" : "", inlined ? dot : path.str(), assign ? "" : "[]");
    lv[k].kind = 'm';
    snprintf(lv[k].path, sizeof lv[k].path, "%s", own);
    type_text(TREE_TYPE(obj), lv[k].type, sizeof lv[k].type);
    return true;
}

static bool computed_element(tree p, int depth);

/* Whether local pointer variable var is assigned an element's address computed with a variable
 * offset somewhere in the function (unoptimised code, where var lives in memory). */
static bool assigned_element(tree var, int depth)
{
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        if (is_gimple_assign(s) && gimple_assign_lhs(s) == var && computed_element(gimple_assign_rhs1(s), depth + 1))
            return true;
    }
    return false;
}

/* Whether pointer p is an element's address computed with a variable offset (`base + a`,
 * `&tb->hash[h]`), through copies, conversions, phis and the local variables it is read from. */
static bool computed_element(tree p, int depth)
{
    if (!p || depth > 6) return false;
    if (TREE_CODE(p) == ADDR_EXPR) { /* &a[i], &p->x with p computed so */
        tree r = TREE_OPERAND(p, 0);
        for (; handled_component_p(r); r = TREE_OPERAND(r, 0))
            if (TREE_CODE(r) == ARRAY_REF && TREE_CODE(TREE_OPERAND(r, 1)) != INTEGER_CST) return true;
        return TREE_CODE(r) == MEM_REF && computed_element(TREE_OPERAND(r, 0), depth + 1);
    }
    if (VAR_P(p) && !is_global_var(p) && POINTER_TYPE_P(TREE_TYPE(p))) return assigned_element(p, depth);
    if (TREE_CODE(p) != SSA_NAME) return false;
    gimple *def = SSA_NAME_DEF_STMT(p);
    if (gphi *phi = def ? dyn_cast<gphi *>(def) : NULL) {
        for (unsigned a = 0; a < gimple_phi_num_args(phi); a++)
            if (gimple_phi_arg_def(phi, a) != p && computed_element(gimple_phi_arg_def(phi, a), depth + 1)) return true;
        return false;
    }
    if (!def || !is_gimple_assign(def)) return false;
    enum tree_code code = gimple_assign_rhs_code(def);
    if (code == POINTER_PLUS_EXPR)
        return TREE_CODE(gimple_assign_rhs2(def)) != INTEGER_CST ||
               computed_element(gimple_assign_rhs1(def), depth + 1);
    if (gimple_assign_single_p(def) || CONVERT_EXPR_CODE_P(code))
        return computed_element(gimple_assign_rhs1(def), depth + 1);
    return false;
}

/* The field that pointer p was loaded from (`L->top`: top), at an offset (`L->top - n`),
 * through copies, conversions, phis and, at -O0, the local variables it is read from (`TValue *io =
 * s2v(L->top)`); NULL_TREE if none. */
static tree loaded_field(tree p, int depth)
{
    if (!p || depth > 6) return NULL_TREE;
    if (TREE_CODE(p) == COMPONENT_REF) return TREE_OPERAND(p, 1);
    if (VAR_P(p) && !is_global_var(p)) { /* -O0: the variable's assignments */
        basic_block bb;
        FOR_EACH_BB_FN(bb, cfun)
        for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
            gimple *s = gsi_stmt(gsi);
            tree f = is_gimple_assign(s) && gimple_assign_lhs(s) == p ? loaded_field(gimple_assign_rhs1(s), depth + 1)
                                                                      : NULL_TREE;
            if (f) return f;
        }
        return NULL_TREE;
    }
    if (TREE_CODE(p) == ADDR_EXPR) { /* &L->top->val */
        tree r = TREE_OPERAND(p, 0);
        while (handled_component_p(r) && (TREE_CODE(r) != ARRAY_REF || TREE_CODE(TREE_OPERAND(r, 1)) == INTEGER_CST))
            r = TREE_OPERAND(r, 0);
        return TREE_CODE(r) == MEM_REF ? loaded_field(TREE_OPERAND(r, 0), depth + 1) : NULL_TREE;
    }
    gimple *def = TREE_CODE(p) == SSA_NAME ? SSA_NAME_DEF_STMT(p) : NULL;
    if (gphi *phi = def ? dyn_cast<gphi *>(def) : NULL) {
        for (unsigned a = 0; a < gimple_phi_num_args(phi); a++) {
            tree f = gimple_phi_arg_def(phi, a) != p ? loaded_field(gimple_phi_arg_def(phi, a), depth + 1) : NULL_TREE;
            if (f) return f;
        }
        return NULL_TREE;
    }
    if (!def || !is_gimple_assign(def)) return NULL_TREE;
    enum tree_code code = gimple_assign_rhs_code(def);
    if (code == POINTER_PLUS_EXPR || gimple_assign_single_p(def) || CONVERT_EXPR_CODE_P(code)) /* L->top - n */
        return loaded_field(gimple_assign_rhs1(def), depth + 1);
    return NULL_TREE;
}

/* Whether field f is a cursor in the current function: assigned a pointer computed from its
 * own value (`L->top++`, `api_incr_top(L)`), an interpreter's stack top. */
static bool cursor_field(tree f)
{
    if (!f || !POINTER_TYPE_P(TREE_TYPE(f))) return false;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        tree lhs = is_gimple_assign(s) ? gimple_assign_lhs(s) : NULL_TREE;
        if (!lhs || TREE_CODE(lhs) != COMPONENT_REF || TREE_OPERAND(lhs, 1) != f) continue;
        tree v = gimple_assign_rhs1(s);
        gimple *def = TREE_CODE(v) == SSA_NAME ? SSA_NAME_DEF_STMT(v) : NULL;
        if (def && is_gimple_assign(def) && gimple_assign_rhs_code(def) == POINTER_PLUS_EXPR &&
            loaded_field(gimple_assign_rhs1(def), 0) == f)
            return true;
    }
    return false;
}

/* Whether a store to lhs puts the value in a slot that no variable or field names: memory
 * through a cursor, a local pointer variable computed by pointer arithmetic (`ra->gc = t` with
 * ra = base + a; `*list = ts` with list = &tb->hash[h]), or a field the function moves as a
 * stack top (`setobj(L->top, t); L->top++`), not an element named by its array (`m->rows[i]`,
 * `rows[i]`). */
static bool slot_store(tree lhs)
{
    tree base = get_base_address(lhs);
    if (!base || TREE_CODE(base) != MEM_REF || TREE_CODE(TREE_OPERAND(base, 0)) != SSA_NAME) return false;
    tree p = TREE_OPERAND(base, 0), var = SSA_NAME_VAR(p);
    if (cursor_field(loaded_field(p, 0))) return true; /* a slot of a stack top */
    gimple *def = SSA_NAME_DEF_STMT(p);
    if (!var && def && gimple_assign_single_p(def) && VAR_P(gimple_assign_rhs1(def))) /* -O0: read from var */
        var = gimple_assign_rhs1(def);
    if (!user_var(var) || !VAR_P(var) || is_global_var(var)) return false;
    return computed_element(p, 0);
}

/* Whether t (a slot's type) is a pointer to a type that can name a block: not `void *`, not
 * `char *` (xz's `thr->in = lzma_alloc(...)`, thr = &coder->threads[i], keeps its path
 * `thr.in`; Lua's `ra->value_.gc` is a GCObject *). */
static bool typed_pointer(tree t)
{
    if (!POINTER_TYPE_P(t)) return false;
    tree p = TYPE_MAIN_VARIANT(TREE_TYPE(t));
    return !VOID_TYPE_P(p) && !(TREE_CODE(p) == INTEGER_TYPE && TYPE_PRECISION(p) == CHAR_TYPE_SIZE);
}

/* Whether t is the address of a member at offset 0 of what n points to: n itself, cast
 * through a union (Lua's gco2t(o): `&((union GCUnion *)o)->h`). */
static bool same_address(tree t, tree n)
{
    if (TREE_CODE(t) != ADDR_EXPR) return false;
    tree r = TREE_OPERAND(t, 0);
    while (TREE_CODE(r) == COMPONENT_REF && integer_zerop(DECL_FIELD_OFFSET(TREE_OPERAND(r, 1))) &&
           integer_zerop(DECL_FIELD_BIT_OFFSET(TREE_OPERAND(r, 1))))
        r = TREE_OPERAND(r, 0);
    return TREE_CODE(r) == MEM_REF && TREE_OPERAND(r, 0) == n && integer_zerop(TREE_OPERAND(r, 1));
}

/* Whether use only compares n (a check against NULL). */
static bool comparison(gimple *use)
{
    if (gimple_code(use) == GIMPLE_COND) return true;
    return is_gimple_assign(use) && TREE_CODE_CLASS(gimple_assign_rhs_code(use)) == tcc_comparison;
}

/* The index of the current function's parameter that pointer p is (its value on entry, or at
 * -O0 read from its slot), -1 if none. */
static int param_index(tree p)
{
    if (!p || TREE_CODE(p) != SSA_NAME || !POINTER_TYPE_P(TREE_TYPE(p))) return -1;
    tree parm = SSA_NAME_IS_DEFAULT_DEF(p) ? SSA_NAME_VAR(p) : NULL_TREE;
    gimple *def = SSA_NAME_IS_DEFAULT_DEF(p) ? NULL : SSA_NAME_DEF_STMT(p);
    if (def && gimple_assign_single_p(def)) parm = gimple_assign_rhs1(def);
    if (!parm || TREE_CODE(parm) != PARM_DECL || DECL_CONTEXT(parm) != current_function_decl) return -1;
    int i = 0;
    for (tree a = DECL_ARGUMENTS(current_function_decl); a; a = DECL_CHAIN(a), i++)
        if (a == parm) return i;
    return -1;
}

/* Note at the function's own level (the outermost) that the value is stored through its
 * pointer parameter number pi (`*coder_ptr = v`): an out-parameter, which the caller's argument
 * names; it wins over a local that only carried the value there. */
static void note_out_param(auto_vec<level> &lv, tree lhs, int pi)
{
    text path;
    if (!lvalue_path(lhs, path, 0)) return;
    level &l = lv.last();
    l.kind = 'm';
    l.decl = false;
    l.outp = (unsigned)pi + 1;
    snprintf(l.path, sizeof l.path, "%s", path.str());
    type_text(TREE_TYPE(lhs), l.type, sizeof l.type);
}

/* Follow value v through copies, conversions and phis; note where it goes and which levels use
 * it. Returns whether it reaches a return statement. */
static bool follow(auto_vec<level> &lv, tree v)
{
    auto_vec<tree> work;
    bool returned = false;
    work.safe_push(v);
    for (unsigned i = 0; i < work.length() && i < 16; i++) {
        tree n = work[i];
        tree nv = SSA_NAME_VAR(n);
        if (user_var(nv))
            note(lv, level_of_var(lv, nv, SSA_NAME_DEF_STMT(n)), nv, 'v');
        else if (nv && VAR_P(nv) && DECL_HAS_DEBUG_EXPR_P(nv)) /* a part of a scalarized aggregate */
            note(lv, level_of_part(lv, nv, SSA_NAME_DEF_STMT(n)), DECL_DEBUG_EXPR(nv), 'm');
        imm_use_iterator it;
        gimple *use;
        FOR_EACH_IMM_USE_STMT(use, it, n)
        {
            if (gimple_debug_bind_p(use)) {
                tree var = gimple_debug_bind_get_var(use);
                if (gimple_debug_bind_get_value(use) != n) continue;
                if (user_var(var))
                    note(lv, level_of_var(lv, var, use), var, 'v');
                else if (var && VAR_P(var) && DECL_HAS_DEBUG_EXPR_P(var))
                    note(lv, level_of_part(lv, var, use), DECL_DEBUG_EXPR(var), 'm');
            } else if (is_gimple_debug(use)) {
                continue;
            } else if (greturn *r = dyn_cast<greturn *>(use)) {
                returned |= gimple_return_retval(r) == n;
            } else if (gphi *p = dyn_cast<gphi *>(use)) {
                if (!work.contains(gimple_phi_result(p))) work.safe_push(gimple_phi_result(p));
            } else if (is_gimple_assign(use) && gimple_assign_rhs1(use) == n &&
                       (gimple_assign_single_p(use) || CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(use)))) {
                tree lhs = gimple_assign_lhs(use);
                if (TREE_CODE(lhs) == SSA_NAME) {
                    if (!work.contains(lhs)) work.safe_push(lhs);
                } else if (note_container(lv, lhs, use)) { /* v.push_back(new T): v[] */
                } else if (TREE_CODE(lhs) == VAR_DECL) {
                    note(lv, level_of_var(lv, lhs, use), lhs, 'v');
                } else {
                    /* a part of a local: the local's level (the statement's block may be an
                     * outer function's once inlined code is merged) */
                    tree base = get_base_address(lhs);
                    bool local = base && VAR_P(base) && DECL_CONTEXT(DECL_ORIGIN(base)) &&
                                 TREE_CODE(DECL_CONTEXT(DECL_ORIGIN(base))) == FUNCTION_DECL;
                    bool result = base && TREE_CODE(base) == RESULT_DECL;
                    int k = local    ? level_of_var(lv, base, use)
                            : result ? level_of_fn(lv, DECL_ORIGIN(current_function_decl))
                                     : level_of_stmt(lv, use);
                    if ((local || result) && returned_aggregate(base)) { /* carried out in the returned value */
                        note_returned_part(lv, k, lhs);
                        returned = true;
                        continue;
                    }
                    int pi = TREE_CODE(lhs) == MEM_REF && integer_zerop(TREE_OPERAND(lhs, 1))
                                 ? param_index(TREE_OPERAND(lhs, 0))
                                 : -1;
                    if (pi >= 0) { /* *param = v: the caller's argument names it */
                        note_out_param(lv, lhs, pi);
                        continue;
                    }
                    if (slot_store(lhs) && typed_pointer(TREE_TYPE(lhs))) { /* named by the value's type */
                        if (k >= 0 && !lv[k].slot && lv[k].kind == '-' && !lv[k].type[0])
                            type_text(TREE_TYPE(n), lv[k].type, sizeof lv[k].type);
                        if (k >= 0) lv[k].slot = true;
                        continue;
                    }
                    if (base && VAR_P(base) && !user_var(base) && note_container(lv, base, use))
                        continue; /* into gcc's temporary std::unique_ptr that push_back takes */
                    note(lv, k, lhs, 'm');
                    /* a member of a declared object (the storage of `std::vector<double> v(n)`):
                     * the object, at its own level */
                    if (base && VAR_P(base) && base != lhs) note(lv, level_of_var(lv, base, use), base, 'o');
                }
            } else if (is_gimple_assign(use) && same_address(gimple_assign_rhs1(use), n) &&
                       TREE_CODE(gimple_assign_lhs(use)) == SSA_NAME) {
                if (!work.contains(gimple_assign_lhs(use))) work.safe_push(gimple_assign_lhs(use));
            } else if (!comparison(use)) {
                int k = level_of_stmt(lv, use);
                if (k >= 0) lv[k].used = true;
            }
        }
    }
    return returned;
}

/* Follow what a call stores at the address of temporary tmp (gcc's copy of `&p` for
 * posix_memalign): the values read back from it. Returns whether one reaches a return. */
static bool follow_temporary(auto_vec<level> &lv, tree tmp)
{
    bool returned = false;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        if (gimple_assign_single_p(s) && gimple_assign_rhs1(s) == tmp && TREE_CODE(gimple_assign_lhs(s)) == SSA_NAME)
            returned |= follow(lv, gimple_assign_lhs(s));
    }
    return returned;
}

/* Whether type is a struct with a pointer member (a buffer returned by value: the callee's
 * record says which member holds its allocation, this call's where the struct goes). */
static bool holds_pointer(tree type, int depth = 0)
{
    if (TREE_CODE(type) != RECORD_TYPE || depth > 8) return false;
    for (tree f = TYPE_FIELDS(type); f; f = DECL_CHAIN(f))
        if (TREE_CODE(f) == FIELD_DECL &&
            (POINTER_TYPE_P(TREE_TYPE(f)) || holds_pointer(TREE_TYPE(f), depth + 1))) /* std::unique_ptr<T> */
            return true;
    return false;
}

/* Whether call gets a record: a pointer result of a function that is not a builtin, or of
 * an allocating builtin; posix_memalign. */
static bool recorded_call(gcall *call, tree *dest_arg)
{
    *dest_arg = NULL_TREE;
    if (gimple_call_internal_p(call)) return false;
    tree fndecl = gimple_call_fndecl(call);
    if (fndecl && fndecl_built_in_p(fndecl, BUILT_IN_NORMAL)) {
        switch (DECL_FUNCTION_CODE(fndecl)) {
        case BUILT_IN_POSIX_MEMALIGN:
            if (gimple_call_num_args(call) < 1) return false;
            *dest_arg = gimple_call_arg(call, 0);
            return true;
        case BUILT_IN_MALLOC:
        case BUILT_IN_CALLOC:
        case BUILT_IN_REALLOC:
        case BUILT_IN_ALIGNED_ALLOC:
        case BUILT_IN_STRDUP:
        case BUILT_IN_STRNDUP: break;
        default: return false;
        }
    } else if (fndecl && fndecl_built_in_p(fndecl)) {
        return false;
    }
    tree lhs = gimple_call_lhs(call);
    return lhs && (POINTER_TYPE_P(TREE_TYPE(lhs)) || holds_pointer(TREE_TYPE(lhs)));
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

/* A C++ constructor or other member function (not a destructor) called on an object whose
 * address is known (`std::vector<double> v(n)`, a member initialiser, `edges.push_back(e)`):
 * the object, what the call allocates is named after. */
static tree constructed_object(gcall *call)
{
    tree fndecl = gimple_call_fndecl(call);
    if (!fndecl || gimple_call_num_args(call) < 1 || DECL_CXX_DESTRUCTOR_P(fndecl) ||
        !(DECL_CXX_CONSTRUCTOR_P(fndecl) || TREE_CODE(TREE_TYPE(fndecl)) == METHOD_TYPE))
        return NULL_TREE;
    tree obj = gimple_call_arg(call, 0);
    gimple *def = TREE_CODE(obj) == SSA_NAME ? SSA_NAME_DEF_STMT(obj) : NULL;
    if (def && gimple_assign_single_p(def)) obj = gimple_assign_rhs1(def); /* _1 = &this->cells_ */
    return TREE_CODE(obj) == ADDR_EXPR ? obj : NULL_TREE;
}

/* The parameter or variable that the object of member p (`this->data_`) is reached through,
 * NULL_TREE if none. */
static tree member_root(tree p)
{
    tree base = get_base_address(p);
    if (!base || TREE_CODE(base) != MEM_REF || TREE_CODE(TREE_OPERAND(base, 0)) != SSA_NAME) return NULL_TREE;
    tree v = SSA_NAME_VAR(TREE_OPERAND(base, 0));
    return user_var(v) ? v : NULL_TREE;
}

/* Whether call gets a record; if so its levels in lv and what each names, *returned whether
 * the value reaches a return statement, *object whether the levels name the object the call
 * works on (a C++ constructor or member function) rather than its result. */
static bool find_dests(gcall *call, auto_vec<level> &lv, bool *returned, bool *object)
{
    tree dest_arg;
    bool recorded = recorded_call(call, &dest_arg);
    if (!recorded && !(dest_arg = constructed_object(call))) return false;
    make_levels(call, lv);
    *returned = false;
    *object = !recorded;
    bool &returned_ = *returned;
    if (dest_arg) { /* posix_memalign (&p, ...), a constructor's object */
        if (TREE_CODE(dest_arg) == ADDR_EXPR) {
            tree p = TREE_OPERAND(dest_arg, 0);
            bool var = TREE_CODE(p) == VAR_DECL;
            if (var && recorded && !user_var(p) && !DECL_HAS_DEBUG_EXPR_P(p))
                returned_ = follow_temporary(lv, p); /* gcc's temporary for `&buf` at -O2 */
            else
                note(lv, var ? level_of_var(lv, p, call) : 0, p, !var ? 'm' : recorded ? 'v' : 'o');
            tree base = var ? NULL_TREE : get_base_address(p); /* a member of a declared object */
            if (base && VAR_P(base) && user_var(base)) note(lv, level_of_var(lv, base, call), p, 'm');
            /* a member of the object a function works on (`data_.append(piece)` in a member
             * function, the library's code inlined from a system header): at that function's level */
            tree root = var || recorded ? NULL_TREE : member_root(p);
            if (root) note(lv, level_of_var(lv, root, call), p, 'm');
        }
    } else {
        tree lhs = gimple_call_lhs(call);
        if (TREE_CODE(lhs) == SSA_NAME)
            returned_ = follow(lv, lhs);
        else if (!note_container(lv, lhs, call))
            note(lv, TREE_CODE(lhs) == VAR_DECL ? level_of_var(lv, lhs, call) : 0, lhs,
                 TREE_CODE(lhs) == VAR_DECL ? 'v' : 'm');
    }
    return true;
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
    bool decl, used, ret, slot;
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
        char kd[8] = { '\t', lv[k].kind, '\t', 0, 0, 0, 0 };
        int nf = 3;
        if (lv[k].decl) kd[nf++] = 'd';
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
    for (unsigned k = 0; k < lv.length(); k++) /* what the optimisers lost on the way */
        if (const early_dest *e =
                lv[k].kind == '-' || bare_element(lv[k].kind, lv[k].path) ? early_find(call, lv, k) : NULL) {
            if (lv[k].kind != '-' && (e->kind != 'm' || bare_element(e->kind, e->path))) continue;
            lv[k].kind = e->kind;
            lv[k].decl = e->decl;
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
            gasm *end = basic_asm("2:");
            gimple_set_location(end, loc);
            gsi_insert_after(&gsi, end, GSI_SAME_STMT);
        }
        free(st->dest_records[i]);
    }
    st->dest_calls.truncate(0);
    st->dest_records.truncate(0);
}
