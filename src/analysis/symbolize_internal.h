/* State and helpers shared by the parts of the symbolizer (symbolize.c, symbolize_pcs.c,
 * symbolize_units.c, symbolize_vars.c, symbolize_types.c). Internal to src/analysis. */
#ifndef MEMSPY_ANALYSIS_SYMBOLIZE_INTERNAL_H
#define MEMSPY_ANALYSIS_SYMBOLIZE_INTERNAL_H
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize.h"

/* A global or static variable found in DWARF (addr: its runtime address), or a thread-local
 * one (addr: its offset in the module's TLS block). */
typedef struct {
    uint64_t addr;
    const char *name, *scope_func, *decl_file;
    int decl_line;
    uint64_t row;     /* an array of two or more static dimensions: the bytes of its innermost one */
    const char *unit; /* the compilation unit's name (DW_AT_name), NULL unknown */
} dwarf_var;

/* The variables of one module, read on first use: static ones and thread-local ones. */
typedef struct {
    Dwfl_Module *mod;
    dwarf_var *vars;
    size_t nvars, cap;
    dwarf_var *tls;
    size_t ntls, tls_cap;
} module_vars;

/* A function's code range in one compilation unit (module addresses without bias). */
typedef struct {
    Dwarf_Addr lo, hi;
    Dwarf_Die die; /* its DW_TAG_subprogram */
} fn_range;

/* The functions with code of one compilation unit, sorted by lo, indexed on first use: a pc's
 * scopes are then found by descending from its function alone, where dwarf_getscopes walks
 * the whole unit (4 ms a pc on lz4's units: 29 s for the 6,789 blocks of its program). */
typedef struct {
    void *cu_addr; /* the unit DIE's address in the debug data: its identity */
    fn_range *fns;
    size_t nfns, cap;
    Dwarf_Off *members; /* the functions declared in a class, structure or union, sorted */
    size_t nmembers, members_cap;
} cu_index;

struct ms_symbolizer {
    Dwfl *dwfl;
    Dwfl_Callbacks callbacks;
    char *debuginfo_path;
    ms_sym **slots; /* open-addressing hash of cached results, by (pc, return_address) */
    size_t nslots, nused;
    module_vars *modvars;
    size_t nmodvars;
    Dwfl_Module **raw_mods; /* per raw module index, NULL if not reported */
    Dwfl_Module *exe;       /* the program's own module, NULL if not reported */
    ms_raw_module *mods;    /* the raw profile's modules (paths owned here), for code libdw has no module for */
    size_t nmods;
    const char **libs; /* libraries whose code was named from their symbol tables */
    size_t nlibs, libs_cap;
    size_t nraw_mods;
    char **paths; /* source paths made absolute, owned here */
    size_t npaths, paths_cap;
    cu_index *cus;
    size_t ncus, cus_cap, last_cu;
};

/* A DIE's DW_AT_name, else its DW_AT_linkage_name; NULL if it has neither. */
const char *symbolize_die_name(Dwarf_Die *die);

/* The file of a DW_AT_call_file index in cu's line table; NULL if out of range. */
const char *symbolize_cu_file(Dwarf_Die *cu, Dwarf_Word idx);

/* The declaration file of die (DWARF 5's file index 0 included); NULL if unknown. */
const char *symbolize_decl_file(Dwarf_Die *die);

/* Take ownership of a malloc'd string and return the pooled copy (s owns it from now on);
 * NULL if out of memory. */
const char *symbolize_intern_owned(ms_symbolizer *s, char *owned);

/* The scopes at addr in cu from the unit's function index, innermost first up to the
 * function: their number (*out malloc'd), 0 when no function holds addr, -1 when out of memory. */
int symbolize_indexed_scopes(ms_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **out);

/* Whether fn (a DW_TAG_subprogram or DW_TAG_inlined_subroutine) is a member function of a
 * class, structure or union: the declaration it stems from (through DW_AT_abstract_origin and
 * DW_AT_specification) is a child of one. 0 no, 1 yes, -1 out of memory. */
int symbolize_is_member(ms_symbolizer *s, Dwarf_Die *fn);

/* A variable of an array type with two or more static dimensions: the bytes of one row; else 0. */
uint64_t symbolize_row_bytes(Dwarf_Die *var);

#endif
