/* Symbolization with elfutils libdwfl/libdw: opening the profile's modules, the string pool,
 * C++ names made readable and the DIE attributes every part reads. The parts: pcs to frames
 * (symbolize_pcs.c), the units' function index (symbolize_units.c), global and thread-local
 * variables (symbolize_vars.c), types, rows and structure members (symbolize_types.c). */
#include "symbolize.h"
#include "symbolize_internal.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether elf has a .symtab (a stripped file keeps only .dynsym). */
static bool has_symtab(Elf *elf)
{
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while (elf && (scn = elf_nextscn(elf, scn)))
        if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) return true;
    return false;
}

/* Append to note what the program's names lack when it has no DWARF or no symbol table, and
 * why (bad input that still runs: memspy names what it can). */
static void debug_info_note(Dwfl_Module *mod, const char *path, char *note, size_t cap)
{
    Dwarf_Addr bias;
    bool dwarf = dwfl_module_getdwarf(mod, &bias) != NULL;
    bool symtab = has_symtab(dwfl_module_getelf(mod, &bias));
    if (dwarf) return;
    size_t used = strlen(note);
    snprintf(note + used, cap - used,
             symtab ? "%s%s has no debug information (built without -g): no source lines, heap bins are "
                      "named from the compiler plugin's records where it made them, else by function (heap@FUNC), "
                      "globals and functions by their ELF symbols, stack frames by function without their "
                      "variables (stack:FUNC)"
                    : "%s%s has no debug information and no symbol table (stripped): no source lines, heap "
                      "bins are named from the compiler plugin's records where it made them, else by site "
                      "(heap@FILE+0xOFFSET), functions by their start (FILE+0xOFFSET), its data by mapping "
                      "(other:FILE); "
                      "rebuild "
                      "with -g and do not strip",
             used ? "; " : "", path);
}

int ms_symbolizer_new(const ms_raw *raw, ms_symbolizer **out, char **note_out, char *err, size_t errlen)
{
    *out = NULL;
    *note_out = NULL;
    ms_symbolizer *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    s->callbacks.find_elf = dwfl_build_id_find_elf;
    s->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
    s->callbacks.section_address = dwfl_offline_section_address;
    s->callbacks.debuginfo_path = &s->debuginfo_path;
    s->dwfl = dwfl_begin(&s->callbacks);
    if (!s->dwfl) {
        snprintf(err, errlen, "libdw: %s", dwfl_errmsg(-1));
        free(s);
        return -1;
    }
    s->mods = calloc(raw->nmodules ? raw->nmodules : 1, sizeof *s->mods);
    for (size_t i = 0; s->mods && i < raw->nmodules; i++) {
        s->mods[i] = raw->modules[i];
        s->mods[i].path = raw->modules[i].path ? strdup(raw->modules[i].path) : NULL;
        s->nmods = i + 1;
    }
    s->raw_mods = calloc(raw->nmodules ? raw->nmodules : 1, sizeof *s->raw_mods);
    s->nraw_mods = s->raw_mods ? raw->nmodules : 0;
    dwfl_report_begin(s->dwfl);
    size_t skipped = 0;
    char first_skipped[256] = "";
    Dwfl_Module *exe = NULL;
    for (size_t i = 0; i < raw->nmodules; i++) {
        const char *path = raw->modules[i].path;
        if (!path || path[0] != '/') continue; /* vdso and anonymous mappings have no file */
        /* add_p_vaddr: raw's base is the load bias (dlpi_addr), so this is right for ET_EXEC
         * (bias 0) and for ET_DYN whatever its first segment's address. */
        Dwfl_Module *mod = dwfl_report_elf(s->dwfl, path, path, -1, raw->modules[i].base, true);
        if (i < s->nraw_mods) s->raw_mods[i] = mod;
        if (!mod) {
            if (skipped++ == 0) snprintf(first_skipped, sizeof first_skipped, "%s (%s)", path, dwfl_errmsg(-1));
        } else if (raw->exe && strcmp(path, raw->exe) == 0) {
            exe = mod;
        }
    }
    dwfl_report_end(s->dwfl, NULL, NULL);
    char note[1024] = "";
    if (skipped) snprintf(note, sizeof note, "%zu module(s) could not be symbolized, e.g. %s", skipped, first_skipped);
    if (exe) debug_info_note(exe, raw->exe, note, sizeof note);
    s->exe = exe;
    if (note[0]) *note_out = strdup(note);
    *out = s;
    return 0;
}

void ms_symbolizer_free(ms_symbolizer *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->nslots; i++)
        if (s->slots[i]) {
            free(s->slots[i]->frames);
            free(s->slots[i]);
        }
    free(s->slots);
    for (size_t i = 0; i < s->npaths; i++) free(s->paths[i]);
    free(s->paths);
    for (size_t i = 0; i < s->nmodvars; i++) {
        free(s->modvars[i].vars);
        free(s->modvars[i].tls);
    }
    free(s->modvars);
    for (size_t i = 0; i < s->ncus; i++) {
        free(s->cus[i].fns);
        free(s->cus[i].members);
    }
    free(s->cus);
    free(s->raw_mods);
    for (size_t i = 0; i < s->nmods; i++) free(s->mods[i].path);
    free(s->mods);
    free(s->libs);
    dwfl_end(s->dwfl);
    free(s);
}

/* ---- DIE attributes ---- */

const char *symbolize_die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    if (!name) name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    return name;
}

/* The file of a DW_AT_call_file index in cu's line table. */
const char *symbolize_cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles) return NULL;
    return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The declaration file of die. Not dwarf_decl_file: elfutils 0.188 rejects file index 0,
 * which DWARF 5 (clang) uses for the primary source file. */
const char *symbolize_decl_file(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word idx;
    Dwarf_Die cu;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) != 0 ||
        !dwarf_diecu(die, &cu, NULL, NULL))
        return NULL;
    return symbolize_cu_file(&cu, idx);
}

/* Take ownership of a malloc'd string and return the pooled copy (s owns it from now on);
 * NULL if out of memory. */
const char *symbolize_intern_owned(ms_symbolizer *s, char *owned)
{
    if (!owned) return NULL;
    for (size_t i = 0; i < s->npaths; i++)
        if (strcmp(s->paths[i], owned) == 0) {
            free(owned);
            return s->paths[i];
        }
    if (s->npaths == s->paths_cap) {
        size_t cap = s->paths_cap ? s->paths_cap * 2 : 16;
        char **p = realloc(s->paths, cap * sizeof *p);
        if (!p) {
            free(owned);
            return NULL;
        }
        s->paths = p;
        s->paths_cap = cap;
    }
    return s->paths[s->npaths++] = owned;
}

/* The C++ ABI's demangler (libstdc++), the one the toolchain itself uses. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* A C++ symbol as people write it: "Matrix::multiply" for _ZN6Matrix8multiplyEi (the
 * parameter list dropped, `operator()` kept); other names unchanged. Interned in s. */
static const char *readable(ms_symbolizer *s, const char *name)
{
    if (!name || strncmp(name, "_Z", 2) != 0) return name;
    int status = 0;
    char *d = __cxa_demangle(name, NULL, NULL, &status);
    if (!d || status != 0) {
        free(d);
        return name;
    }
    /* "ns::(anonymous namespace)::kTable" is written "ns::kTable" (its '(' is no parameter list) */
    static const char anon[] = "(anonymous namespace)::";
    for (char *a; (a = strstr(d, anon));) memmove(a, a + sizeof anon - 1, strlen(a + sizeof anon - 1) + 1);
    /* Cut the parameter list; remember where the name starts after a template function's
     * return type (the last space outside <>, unless it belongs to "operator new" & co). */
    int depth = 0;
    bool function = false;
    char *start = d;
    for (char *p = d; *p; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>')
            depth--;
        else if (*p == ' ' && depth == 0 && !(p - d >= 8 && strncmp(p - 8, "operator", 8) == 0))
            start = p + 1;
        else if (*p == '(' && depth == 0) {
            if (p - d >= 8 && strncmp(p - 8, "operator", 8) == 0 && p[1] == ')') {
                p++; /* operator() */
                continue;
            }
            *p = '\0';
            function = true;
            break;
        }
    }
    if (function && start != d) /* "typeinfo name for X", "vtable for X" keep their words */
        memmove(d, start, strlen(start) + 1);
    const char *pooled = symbolize_intern_owned(s, d);
    return pooled ? pooled : name;
}

const char *ms_symbolizer_readable(ms_symbolizer *s, const char *name) { return readable(s, name); }
