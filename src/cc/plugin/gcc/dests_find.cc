/* memspy's GCC plugin: where the result of a call goes, per inline level (dests.cc's header):
 * the GIMPLE walk that finds the variables, members, elements and slots that name it. */
#include "dests.h"
#include "tree-pretty-print.h"
#include "ssa-iterators.h"
#include "gimple-walk.h"

static tree origin_fn(tree block)
{
    tree o = block_ultimate_origin(block);
    return o && TREE_CODE(o) == FUNCTION_DECL ? DECL_ORIGIN(o) : NULL_TREE;
}

/* The call's levels: its own position and function, then each function it was inlined into. */
void make_levels(gimple *call, auto_vec<level> &lv)
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
int level_of_var(auto_vec<level> &lv, tree var, gimple *s)
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
bool user_var(tree v)
{
    return v && (TREE_CODE(v) == VAR_DECL || TREE_CODE(v) == PARM_DECL || TREE_CODE(v) == RESULT_DECL) &&
           DECL_NAME(v) && !DECL_ARTIFICIAL(v);
}

static bool lvalue_path(tree t, text &out, int depth);

/* The function a variable comes from (the original of an inlined copy), NULL_TREE for a global. */
static tree var_function(tree v)
{
    tree ctx = DECL_CONTEXT(DECL_ORIGIN(v));
    return ctx && TREE_CODE(ctx) == FUNCTION_DECL ? DECL_ORIGIN(ctx) : NULL_TREE;
}

/* Whether v, a variable, comes from a function inlined into the current one. */
static bool inlined_var(tree v)
{
    tree fn = var_function(v);
    return fn && fn != DECL_ORIGIN(current_function_decl);
}

/* The program's local variable of another function than SSA name t's own variable that a
 * debug bind gives t's value (`# DEBUG job => ptr_5`), NULL_TREE if none: the name the
 * program gives a value that an inlined function computed and returned (pigz's `job =
 * alloc(NULL, n)`, whose SSA name keeps alloc's parameter `ptr` as its variable). A local,
 * not a parameter (an inlined callee's parameter bound to the value where it is passed on);
 * the current function's own first, else the first found. Only with debug statements (-g). */
static tree own_debug_var(tree t)
{
    tree from = var_function(SSA_NAME_VAR(t)), first = NULL_TREE;
    imm_use_iterator it;
    use_operand_p use;
    FOR_EACH_IMM_USE_FAST(use, it, t)
    {
        gimple *u = USE_STMT(use);
        if (!u || !gimple_debug_bind_p(u) || gimple_debug_bind_get_value(u) != t) continue;
        tree v = gimple_debug_bind_get_var(u);
        if (!user_var(v) || TREE_CODE(DECL_ORIGIN(v)) != VAR_DECL || var_function(v) == from) continue;
        if (!inlined_var(v)) return v;
        if (!first) first = v;
    }
    return first;
}

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
        /* a system header's local inlined into the program's code (std::map's `__y`, which
         * operator[] returns a part of): no name of the program's */
        if (!is_global_var(t) && DECL_IN_SYSTEM_HEADER(t) && !DECL_IN_SYSTEM_HEADER(current_function_decl))
            return false;
        out.add(IDENTIFIER_POINTER(DECL_NAME(t)));
        return true;
    case SSA_NAME: {
        if (user_var(SSA_NAME_VAR(t))) {
            /* the value of an inlined function's variable that the program's own one holds */
            tree own = inlined_var(SSA_NAME_VAR(t)) ? own_debug_var(t) : NULL_TREE;
            return lvalue_path(own ? own : SSA_NAME_VAR(t), out, depth + 1);
        }
        gimple *def = SSA_NAME_DEF_STMT(t);
        if (tree obj = container_of_reference(t)) { /* m[k] = v: an element of m */
            if (!lvalue_path(obj, out, depth + 1)) return false;
            out.add("[]");
            return true;
        }
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
        if (!base && DECL_IN_SYSTEM_HEADER(f)) return false; /* a library's iterator's `_M_node` */
        /* a union's member, or a member that is a union, is a view of the storage its container
         * names (Lua's `g->l_registry.value_.gc`: g.l_registry) */
        if (base && (TREE_CODE(DECL_CONTEXT(f)) == UNION_TYPE || TREE_CODE(TREE_TYPE(f)) == UNION_TYPE)) return true;
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

/* Whether t is a local of the current function's (or of one inlined into it): an automatic
 * variable or a parameter, not a static or a global. */
static bool local_var(tree t)
{
    if (TREE_CODE(t) == PARM_DECL) return true;
    if (!VAR_P(t) || is_global_var(t)) return false;
    tree ctx = DECL_CONTEXT(DECL_ORIGIN(t));
    return ctx && TREE_CODE(ctx) == FUNCTION_DECL;
}

/* The rank of what level l names: 0 nothing, 1 a local variable or a part of one (or a
 * volatile place: `char *volatile sink` only keeps the block alive), 2 a place that outlives
 * the statement's function or is named by the program's data (a field, an element, a
 * container, a global). */
static int rank_of(const level &l) { return l.kind == '-' ? 0 : l.local ? 1 : 2; }

/* Note at level k what t names, where it ranks above what the level names (rank_of: a store
 * into a named place wins over the local that held the value on the way, `T *p = new T;
 * v.push_back(p)` is v[]), or ranks as high and is a variable declared on the level's line,
 * which wins as in the source (`double *Y = malloc(...)`) over a local named before it. */
void note(auto_vec<level> &lv, int k, tree t, char kind)
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
    level n = {};
    n.kind = kind;
    tree base = kind == 'm' ? get_base_address(t) : NULL_TREE; /* a part of a local struct (`.omp_data_o.x`) */
    n.local = (kind != 'm' && local_var(t)) || (base && local_var(base)) || TREE_THIS_VOLATILE(t) ||
              TYPE_VOLATILE(TREE_TYPE(t));
    text path;
    if (!lvalue_path(t, path, 0)) return;
    if (kind == 'm' && !strchr(path.str(), '.') && !strstr(path.str(), "[]"))
        n.local = true; /* `*obj = v` (a union's member left out): no member or element names it */
    if (rank_of(n) < rank_of(l) || (rank_of(n) == rank_of(l) && !(decl && !l.decl))) return;
    l.kind = kind;
    l.decl = decl;
    l.autov = kind == 'v' && local_var(t);
    l.local = n.local;
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
    l.decl = l.autov = false;
    l.local = false;
    l.ret = true;
    snprintf(l.path, sizeof l.path, "%s", path.str());
    type_text(TREE_TYPE(lhs), l.type, sizeof l.type);
}

/* Where tmp is gcc's temporary (or the program's local) that a member function takes by
 * reference (container_of_temporary, `v.push_back(new T)`, `v.push_back(p)`): note at tmp's
 * level, if it names nothing yet or only a local, an element of the object
 * ("v[]"; a member of an outer function's variable is an inlined member function's `this`'s,
 * "this.items_[]"), or the object that an assignment operator sets (`head_ = make_unique<T>()`);
 * also where tmp is the program's local moved there (`member_ = std::move(p)`). Returns whether
 * tmp is one. */
static bool note_container(auto_vec<level> &lv, tree tmp, gimple *s)
{
    bool assign = false;
    tree obj = TREE_CODE(tmp) == VAR_DECL ? container_of_temporary(tmp, &assign) : NULL_TREE;
    if (!obj && TREE_CODE(tmp) == VAR_DECL) obj = container_of_moved(tmp, &assign); /* member_ = std::move(p) */
    int k = obj ? level_of_var(lv, tmp, s) : -1;
    text path;
    if (k < 0 || rank_of(lv[k]) > 1 || lv[k].ret || lv[k].outp || !lvalue_path(obj, path, 0)) return obj != NULL_TREE;
    tree base = get_base_address(obj);
    const char *dot = strchr(path.str(), '.');
    bool inlined = dot && base != obj && user_var(base) && level_of_var(lv, base, s) > k; /* this's member */
    char own[MSPLUG_DEST_TEXT_MAX];
    snprintf(own, sizeof own, "%s%s%s", inlined ? "this" : "", inlined ? dot : path.str(), assign ? "" : "[]");
    lv[k].kind = 'm';
    lv[k].decl = lv[k].local = lv[k].autov = false;
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
int param_index(tree p)
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
void note_out_param(auto_vec<level> &lv, tree lhs, int pi)
{
    text path;
    if (!lvalue_path(lhs, path, 0)) return;
    level &l = lv.last();
    l.kind = 'm';
    l.decl = l.autov = false;
    l.local = false;
    l.outp = (unsigned)pi + 1;
    snprintf(l.path, sizeof l.path, "%s", path.str());
    type_text(TREE_TYPE(lhs), l.type, sizeof l.type);
}

/* Where local var (the program's, in memory: unoptimised code, or its address taken) is
 * assigned only once in the function, the values read back from it (`_5 = p`), added to work
 * and marked in from_local: where they are stored names the value too (`p = malloc(n); s->f =
 * p;` at -O0). Nothing if var is assigned more than once (a read may be another value). */
static void add_reads(tree var, auto_vec<tree> &work, auto_vec<bool> &from_local)
{
    if (!user_var(var) || !local_var(var) || TREE_CODE(var) != VAR_DECL) return;
    auto_vec<tree> reads;
    unsigned sets = 0;
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        if (gimple_get_lhs(s) == var) sets++;
        if (gimple_assign_single_p(s) && gimple_assign_rhs1(s) == var && TREE_CODE(gimple_assign_lhs(s)) == SSA_NAME)
            reads.safe_push(gimple_assign_lhs(s));
    }
    for (unsigned i = 0; sets == 1 && i < reads.length() && work.length() < 16; i++)
        if (!work.contains(reads[i])) {
            work.safe_push(reads[i]);
            from_local.safe_push(true);
        }
}

/* Whether lhs is memory reached through the value itself (`r->next = r`, a ring of one): the
 * block holds its own address, which names nothing about it. */
static bool self_store(tree lhs, const auto_vec<tree> &work, const auto_vec<tree> &held)
{
    tree base = get_base_address(lhs);
    if (!base || (TREE_CODE(base) != MEM_REF && TREE_CODE(base) != TARGET_MEM_REF)) return false;
    tree p = TREE_OPERAND(base, 0);
    gimple *def = TREE_CODE(p) == SSA_NAME ? SSA_NAME_DEF_STMT(p) : NULL;
    tree from = def && gimple_assign_single_p(def) ? gimple_assign_rhs1(def) : NULL_TREE; /* -O0: _1 = r */
    for (unsigned i = 0; i < work.length(); i++)
        if (work[i] == p) return true;
    for (unsigned i = 0; from && i < held.length(); i++)
        if (held[i] == from) return true;
    return false;
}

/* Whether a and b are one place: one member (of any object: `L->allgc` read through one copy
 * of L and written through another), else equal operands. */
static bool same_place(tree a, tree b)
{
    if (TREE_CODE(a) == COMPONENT_REF && TREE_CODE(b) == COMPONENT_REF) return TREE_OPERAND(a, 1) == TREE_OPERAND(b, 1);
    return operand_equal_p(a, b, 0);
}

/* Whether the store of the value to lhs links it into an intrusive list: the function also
 * stores what lhs held into the block itself (`o->next = g->allgc; g->allgc = o;`, Lua's
 * luaC_newobj): lhs is the list's head, which names no block. */
static bool list_head(tree lhs, const auto_vec<tree> &work, const auto_vec<tree> &held)
{
    basic_block bb;
    FOR_EACH_BB_FN(bb, cfun)
    for (gimple_stmt_iterator gsi = gsi_start_bb(bb); !gsi_end_p(gsi); gsi_next(&gsi)) {
        gimple *s = gsi_stmt(gsi);
        tree rhs = gimple_assign_single_p(s) ? gimple_assign_rhs1(s) : NULL_TREE;
        if (!rhs || TREE_CODE(rhs) != SSA_NAME || !self_store(gimple_assign_lhs(s), work, held)) continue;
        gimple *def = SSA_NAME_DEF_STMT(rhs);
        if (def && gimple_assign_single_p(def) && same_place(gimple_assign_rhs1(def), lhs)) return true;
    }
    return false;
}

/* Follow value v through copies, conversions and phis (and, unoptimised, the local variable it
 * is kept in); note where it goes and which levels use it. Returns whether it reaches a return
 * statement. */
static bool follow(auto_vec<level> &lv, tree v)
{
    auto_vec<tree> work;
    auto_vec<bool> from_local; /* read back from a local (add_reads): only its stores count */
    auto_vec<tree> held;       /* the locals it is kept in */
    bool returned = false;
    work.safe_push(v);
    from_local.safe_push(false);
    for (unsigned i = 0; i < work.length() && i < 16; i++) {
        tree n = work[i];
        bool read = from_local[i];
        tree nv = SSA_NAME_VAR(n);
        if (read)
            ;
        else if (user_var(nv))
            note(lv, level_of_var(lv, nv, SSA_NAME_DEF_STMT(n)), nv, 'v');
        else if (nv && VAR_P(nv) && DECL_HAS_DEBUG_EXPR_P(nv)) /* a part of a scalarized aggregate */
            note(lv, level_of_part(lv, nv, SSA_NAME_DEF_STMT(n)), DECL_DEBUG_EXPR(nv), 'm');
        imm_use_iterator it;
        gimple *use;
        FOR_EACH_IMM_USE_STMT(use, it, n)
        {
            if (gimple_debug_bind_p(use)) {
                tree var = gimple_debug_bind_get_var(use);
                if (read || gimple_debug_bind_get_value(use) != n) continue;
                if (user_var(var))
                    note(lv, level_of_var(lv, var, use), var, 'v');
                else if (var && VAR_P(var) && DECL_HAS_DEBUG_EXPR_P(var))
                    note(lv, level_of_part(lv, var, use), DECL_DEBUG_EXPR(var), 'm');
            } else if (is_gimple_debug(use)) {
                continue;
            } else if (greturn *r = dyn_cast<greturn *>(use)) {
                returned |= !read && gimple_return_retval(r) == n;
            } else if (gphi *p = dyn_cast<gphi *>(use)) {
                if (!work.contains(gimple_phi_result(p))) {
                    work.safe_push(gimple_phi_result(p));
                    from_local.safe_push(read);
                }
            } else if (is_gimple_assign(use) && gimple_assign_rhs1(use) == n &&
                       (gimple_assign_single_p(use) || CONVERT_EXPR_CODE_P(gimple_assign_rhs_code(use)))) {
                tree lhs = gimple_assign_lhs(use);
                if (TREE_CODE(lhs) == SSA_NAME) {
                    if (!work.contains(lhs)) {
                        work.safe_push(lhs);
                        from_local.safe_push(read);
                    }
                } else if (note_container(lv, lhs, use)) { /* v.push_back(new T): v[] */
                } else if (TREE_CODE(lhs) == VAR_DECL) {
                    bool local = local_var(lhs);
                    if ((!read || !local) && (local || !list_head(lhs, work, held))) /* `head = o`: a list's */
                        note(lv, level_of_var(lv, lhs, use), lhs, 'v');
                    held.safe_push(lhs);
                    add_reads(lhs, work, from_local);
                } else if (self_store(lhs, work, held)) { /* r->next = r */
                    int k = level_of_stmt(lv, use);
                    if (k >= 0 && !read) lv[k].used = true;
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
                    if (list_head(lhs, work, held)) continue; /* o->next = g->allgc; g->allgc = o */
                    note(lv, k, lhs, 'm');
                    /* a member of a declared object (the storage of `std::vector<double> v(n)`):
                     * the object, at its own level */
                    if (base && VAR_P(base) && base != lhs) note(lv, level_of_var(lv, base, use), base, 'o');
                }
            } else if (is_gimple_assign(use) && same_address(gimple_assign_rhs1(use), n) &&
                       TREE_CODE(gimple_assign_lhs(use)) == SSA_NAME) {
                if (!work.contains(gimple_assign_lhs(use))) {
                    work.safe_push(gimple_assign_lhs(use));
                    from_local.safe_push(read);
                }
            } else if (!comparison(use) && !read) {
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
 * an allocating builtin (not a member function's reference); posix_memalign. */
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
    /* a member function's reference (std::map's operator[]) is to a part of its object, which
     * names what the call allocates (constructed_object), not an allocation of its own; so is
     * a result nothing reads (the std::pair of an ignored `um.emplace(k, v)`) */
    if (lhs && fndecl && TREE_CODE(TREE_TYPE(fndecl)) == METHOD_TYPE &&
        (TREE_CODE(TREE_TYPE(lhs)) == REFERENCE_TYPE || unread_result(lhs, call)))
        return false;
    return lhs && (POINTER_TYPE_P(TREE_TYPE(lhs)) || holds_pointer(TREE_TYPE(lhs)));
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
bool find_dests(gcall *call, auto_vec<level> &lv, bool *returned, bool *object)
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
