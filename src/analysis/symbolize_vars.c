/* Symbolization of global, static and thread-local variables: each module's variables with a
 * static address or a TLS offset, read from DWARF on first use. */
#include "symbolize_internal.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* ---- global variables ---- */

static int push_var(dwarf_var **vars, size_t *n, size_t *cap, const dwarf_var *v)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        dwarf_var *p = realloc(*vars, c * sizeof *p);
        if (!p) return -1;
        *vars = p;
        *cap = c;
    }
    (*vars)[(*n)++] = *v;
    return 0;
}

static int add_var(module_vars *mv, const dwarf_var *v) { return push_var(&mv->vars, &mv->nvars, &mv->cap, v); }

/* The TLS offset of a thread-local variable's location: a constant, then
 * DW_OP_form_tls_address (DWARF 5) or DW_OP_GNU_push_tls_address (gcc, clang). */
static bool tls_offset(const Dwarf_Op *expr, size_t len, Dwarf_Addr *offset)
{
    if (len != 2 || (expr[1].atom != DW_OP_form_tls_address && expr[1].atom != DW_OP_GNU_push_tls_address))
        return false;
    switch (expr[0].atom) {
    case DW_OP_const1u:
    case DW_OP_const2u:
    case DW_OP_const4u:
    case DW_OP_const8u:
    case DW_OP_constu:
    case DW_OP_addr: *offset = expr[0].number; return true;
    default: return false;
    }
}

/* The address of a location that is a single DW_OP_addr (gcc) or DW_OP_addrx (clang,
 * DWARF 5: an index into .debug_addr, resolved by libdw). */
static bool static_address(Dwarf_Attribute *loc, Dwarf_Op *op, Dwarf_Addr *addr)
{
    if (op->atom == DW_OP_addr) {
        *addr = op->number;
        return true;
    }
    Dwarf_Attribute result;
    return (op->atom == DW_OP_addrx || op->atom == DW_OP_GNU_addr_index) &&
           dwarf_getlocation_attr(loc, op, &result) == 0 && dwarf_formaddr(&result, addr) == 0;
}

/* Collect variables with a static address (a single DW_OP_addr) under die. */
static int walk_vars(module_vars *mv, Dwarf_Die *die, Dwarf_Addr bias, const char *scope_func, const char *unit)
{
    Dwarf_Die child;
    if (dwarf_child(die, &child) != 0) return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_variable) {
            Dwarf_Attribute attr;
            Dwarf_Op *expr;
            size_t len;
            Dwarf_Addr addr;
            if (dwarf_attr(&child, DW_AT_location, &attr) && dwarf_getlocation(&attr, &expr, &len) == 0) {
                bool is_static = len == 1 && static_address(&attr, &expr[0], &addr);
                bool is_tls = !is_static && tls_offset(expr, len, &addr);
                dwarf_var v = { is_static ? addr + bias : addr,
                                symbolize_die_name(&child),
                                scope_func,
                                symbolize_decl_file(&child),
                                0,
                                symbolize_row_bytes(&child),
                                unit };
                dwarf_decl_line(&child, &v.decl_line);
                if ((is_static && add_var(mv, &v) != 0) ||
                    (is_tls && push_var(&mv->tls, &mv->ntls, &mv->tls_cap, &v) != 0))
                    return -1;
            }
        } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
                   tag == DW_TAG_inlined_subroutine) {
            const char *scope = scope_func;
            if (tag == DW_TAG_subprogram) scope = symbolize_die_name(&child);
            if (walk_vars(mv, &child, bias, scope, unit) != 0) return -1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int cmp_var(const void *a, const void *b)
{
    const dwarf_var *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static module_vars *vars_of(ms_symbolizer *s, Dwfl_Module *mod)
{
    for (size_t i = 0; i < s->nmodvars; i++)
        if (s->modvars[i].mod == mod) return &s->modvars[i];
    module_vars *p = realloc(s->modvars, (s->nmodvars + 1) * sizeof *p);
    if (!p) return NULL;
    s->modvars = p;
    module_vars *mv = &s->modvars[s->nmodvars++];
    memset(mv, 0, sizeof *mv);
    mv->mod = mod;
    Dwarf_Addr bias;
    Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
    Dwarf_Off off = 0, next;
    size_t header;
    while (dw && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        if (dwarf_offdie(dw, off + header, &cu) && walk_vars(mv, &cu, bias, NULL, dwarf_diename(&cu)) != 0) break;
        off = next;
    }
    if (mv->nvars > 1) qsort(mv->vars, mv->nvars, sizeof *mv->vars, cmp_var);
    if (mv->ntls > 1) qsort(mv->tls, mv->ntls, sizeof *mv->tls, cmp_var);
    return mv;
}

/* The global variable that starts at addr, NULL if none. */
static const dwarf_var *global_at(ms_symbolizer *s, uint64_t addr)
{
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    module_vars *mv = mod ? vars_of(s, mod) : NULL;
    if (!mv || mv->nvars == 0) return NULL;
    dwarf_var key = { addr, NULL, NULL, NULL, 0, 0, NULL };
    return bsearch(&key, mv->vars, mv->nvars, sizeof key, cmp_var);
}

int ms_symbolize_global(ms_symbolizer *s, uint64_t addr, const char **name, const char **scope_func,
                        const char **decl_file, int *decl_line)
{
    *name = *scope_func = *decl_file = NULL;
    *decl_line = 0;
    const dwarf_var *v = global_at(s, addr);
    if (!v) return -1;
    *name = v->name;
    *scope_func = v->scope_func;
    *decl_file = v->decl_file;
    *decl_line = v->decl_line;
    return 0;
}

int ms_symbolize_global_row(ms_symbolizer *s, uint64_t addr, uint64_t *row)
{
    const dwarf_var *v = global_at(s, addr);
    *row = v ? v->row : 0;
    return v ? 0 : -1;
}

int ms_symbolize_global_unit(ms_symbolizer *s, uint64_t addr, const char **unit)
{
    const dwarf_var *v = global_at(s, addr);
    *unit = v ? v->unit : NULL;
    return v ? 0 : -1;
}

int ms_symbolize_tls(ms_symbolizer *s, uint32_t module, uint64_t offset, const char **name, const char **scope_func,
                     const char **decl_file, int *decl_line)
{
    *name = *scope_func = *decl_file = NULL;
    *decl_line = 0;
    Dwfl_Module *mod = module < s->nraw_mods ? s->raw_mods[module] : NULL;
    module_vars *mv = mod ? vars_of(s, mod) : NULL;
    if (!mv || mv->ntls == 0) return -1;
    dwarf_var key = { offset, NULL, NULL, NULL, 0, 0, NULL };
    const dwarf_var *v = bsearch(&key, mv->tls, mv->ntls, sizeof key, cmp_var);
    if (!v) return -1;
    *name = v->name;
    *scope_func = v->scope_func;
    *decl_file = v->decl_file;
    *decl_line = v->decl_line;
    return 0;
}
