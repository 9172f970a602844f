/* Symbolization with elfutils libdwfl/libdw: pcs to (inlined) function frames with source
 * positions, global addresses to their DWARF variables. */
#include "symbolize.h"
#include "../util/strbuf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNKNOWN_FUNC "??"

/* A global or static variable found in DWARF (addr: its runtime address), or a thread-local
 * one (addr: its offset in the module's TLS block). */
typedef struct {
    uint64_t addr;
    const char *name, *scope_func, *decl_file;
    int decl_line;
    uint64_t row; /* an array of two or more static dimensions: the bytes of its innermost one */
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
    for (size_t i = 0; i < s->ncus; i++) free(s->cus[i].fns);
    free(s->cus);
    free(s->raw_mods);
    for (size_t i = 0; i < s->nmods; i++) free(s->mods[i].path);
    free(s->mods);
    free(s->libs);
    dwfl_end(s->dwfl);
    free(s);
}

/* ---- pcs ---- */

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    if (!name) name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    return name;
}

/* The file of a DW_AT_call_file index in cu's line table. */
static const char *cu_file(Dwarf_Die *cu, Dwarf_Word idx)
{
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles) return NULL;
    return dwarf_filesrc(files, idx, NULL, NULL);
}

/* The declaration file of die. Not dwarf_decl_file: elfutils 0.188 rejects file index 0,
 * which DWARF 5 (clang) uses for the primary source file. */
static const char *decl_file(Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    Dwarf_Word idx;
    Dwarf_Die cu;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_file, &attr), &idx) != 0 ||
        !dwarf_diecu(die, &cu, NULL, NULL))
        return NULL;
    return cu_file(&cu, idx);
}

static int attr_int(Dwarf_Die *die, unsigned name)
{
    Dwarf_Attribute attr;
    Dwarf_Word v;
    return dwarf_formudata(dwarf_attr(die, name, &attr), &v) == 0 ? (int)v : 0;
}

static int push_frame(ms_sym *sym, size_t *cap, const ms_frame *f)
{
    if (sym->nframes == *cap) {
        size_t n = *cap ? *cap * 2 : 4;
        ms_frame *p = realloc(sym->frames, n * sizeof *p);
        if (!p) return -1;
        sym->frames = p;
        *cap = n;
    }
    sym->frames[sym->nframes++] = *f;
    return 0;
}

/* Take ownership of a malloc'd string and return the pooled copy (s owns it from now on);
 * NULL if out of memory. */
static const char *intern_owned(ms_symbolizer *s, char *owned)
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

/* A relative source path as the compiler recorded it, joined to its compilation directory
 * when that names an existing file (so sources are found wherever the program runs);
 * otherwise the path unchanged. Joined paths are interned in s. */
static const char *absolute_path(ms_symbolizer *s, const char *comp_dir, const char *file)
{
    if (!file || file[0] == '/' || !comp_dir || !comp_dir[0]) return file;
    size_t n = strlen(comp_dir) + strlen(file) + 2;
    char *joined = malloc(n);
    if (!joined) return file;
    snprintf(joined, n, "%s/%s", comp_dir, file);
    if (access(joined, R_OK) != 0) {
        free(joined);
        return file;
    }
    const char *pooled = intern_owned(s, joined);
    return pooled ? pooled : file;
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
    const char *pooled = intern_owned(s, d);
    return pooled ? pooled : name;
}

const char *ms_symbolizer_readable(ms_symbolizer *s, const char *name) { return readable(s, name); }

/* A function's name: its demangled linkage name (qualified with class and namespace) when it
 * has one, else DW_AT_name. */
static const char *function_name(ms_symbolizer *s, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (linkage) return readable(s, linkage);
    return die_name(die);
}

static const char *cu_comp_dir(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    return cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : NULL;
}

static int add_fn_ranges(cu_index *c, Dwarf_Die *fn)
{
    Dwarf_Addr base, lo, hi;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0;) {
        if (c->nfns == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 64;
            fn_range *p = realloc(c->fns, cap * sizeof *p);
            if (!p) return -1;
            c->fns = p;
            c->cap = cap;
        }
        if (hi > lo) c->fns[c->nfns++] = (fn_range){ lo, hi, *fn };
    }
    return 0;
}

/* The functions with code under parent, descending into namespaces, modules and classes (a
 * function defined there) but not into functions (their nested ones are found by descent). */
static int collect_fns(cu_index *c, Dwarf_Die *parent, int depth)
{
    Dwarf_Die child;
    if (depth > 32 || dwarf_child(parent, &child) != 0) return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_subprogram) {
            if (add_fn_ranges(c, &child) != 0) return -1;
        } else if (tag == DW_TAG_namespace || tag == DW_TAG_module || tag == DW_TAG_class_type ||
                   tag == DW_TAG_structure_type || tag == DW_TAG_union_type) {
            if (collect_fns(c, &child, depth + 1) != 0) return -1;
        }
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

static int by_lo(const void *a, const void *b)
{
    const fn_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of cu, built on first use; NULL if out of memory. */
static cu_index *index_of(ms_symbolizer *s, Dwarf_Die *cu)
{
    if (s->last_cu < s->ncus && s->cus[s->last_cu].cu_addr == cu->addr) return &s->cus[s->last_cu];
    for (size_t i = 0; i < s->ncus; i++)
        if (s->cus[i].cu_addr == cu->addr) return &s->cus[s->last_cu = i];
    if (s->ncus == s->cus_cap) {
        size_t cap = s->cus_cap ? s->cus_cap * 2 : 16;
        cu_index *p = realloc(s->cus, cap * sizeof *p);
        if (!p) return NULL;
        s->cus = p;
        s->cus_cap = cap;
    }
    cu_index *c = &s->cus[s->ncus];
    *c = (cu_index){ cu->addr, NULL, 0, 0 };
    if (collect_fns(c, cu, 0) != 0) {
        free(c->fns);
        return NULL;
    }
    qsort(c->fns, c->nfns, sizeof *c->fns, by_lo);
    s->last_cu = s->ncus++;
    return c;
}

/* The scopes at addr (innermost first, as dwarf_getscopes gives them, up to the function),
 * found from the unit's function index: the function whose range holds addr, then its lexical
 * blocks, inlined subroutines and nested functions that hold addr, each the concrete (physical)
 * parent of the next. Returns their number (*out malloc'd), 0 when no function holds addr,
 * -1 when out of memory. */
static int indexed_scopes(ms_symbolizer *s, Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **out)
{
    *out = NULL;
    cu_index *c = index_of(s, cu);
    if (!c) return -1;
    size_t lo = 0, hi = c->nfns; /* the last range starting at or below addr */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->fns[mid].lo <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr >= c->fns[lo - 1].hi) return 0;
    enum { MAX_DEPTH = 64 };
    Dwarf_Die path[MAX_DEPTH];
    int n = 0;
    path[n++] = c->fns[lo - 1].die;
    for (bool deeper = true; deeper && n < MAX_DEPTH;) {
        deeper = false;
        Dwarf_Die child;
        if (dwarf_child(&path[n - 1], &child) != 0) break;
        do {
            int tag = dwarf_tag(&child);
            if ((tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram ||
                 tag == DW_TAG_try_block || tag == DW_TAG_catch_block) &&
                dwarf_haspc(&child, addr) > 0) {
                path[n++] = child;
                deeper = true;
                break;
            }
        } while (dwarf_siblingof(&child, &child) == 0);
    }
    Dwarf_Die *scopes = malloc((size_t)n * sizeof *scopes);
    if (!scopes) return -1;
    for (int i = 0; i < n; i++) scopes[i] = path[n - 1 - i];
    *out = scopes;
    return n;
}

/* The start of the function holding addr (the ELF file's own address, not biased) from the
 * module's .eh_frame_hdr search table, which stripped libraries keep (the usual encoding:
 * 4-byte entries relative to the table); addr itself where the table is missing or holds no
 * function at or below addr. */
static Dwarf_Addr function_start(Dwfl_Module *mod, Dwarf_Addr addr)
{
    Dwarf_Addr bias = 0;
    Elf *elf = dwfl_module_getelf(mod, &bias);
    size_t shstrndx;
    if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0) return addr;
    Elf_Scn *scn = NULL;
    GElf_Shdr sh;
    while ((scn = elf_nextscn(elf, scn))) {
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
        if (name && strcmp(name, ".eh_frame_hdr") == 0) break;
    }
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    const unsigned char *h = data ? data->d_buf : NULL;
    /* version 1, table encoding DW_EH_PE_datarel|sdata4 (0x3b), count udata4 (0x03) */
    if (!h || data->d_size < 12 || h[0] != 1 || h[2] != 0x03 || h[3] != 0x3b) return addr;
    uint32_t count;
    memcpy(&count, h + 8, 4);
    if (12 + (uint64_t)count * 8 > data->d_size) return addr;
    size_t lo = 0, hi = count; /* entries sorted by start: find the last start <= addr */
    Dwarf_Addr found = addr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int32_t rel;
        memcpy(&rel, h + 12 + mid * 8, 4);
        Dwarf_Addr start = sh.sh_addr + (Dwarf_Addr)(int64_t)rel;
        if (start <= addr) {
            found = start;
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return found;
}

/* Remember that library file's code was named from its symbol table (for the run's note). */
static void remember_library(ms_symbolizer *s, const char *file)
{
    if (!file) return;
    for (size_t i = 0; i < s->nlibs; i++)
        if (s->libs[i] == file) return; /* interned */
    if (s->nlibs == s->libs_cap) {
        size_t cap = s->libs_cap ? s->libs_cap * 2 : 8;
        const char **p = realloc(s->libs, cap * sizeof *p);
        if (!p) return;
        s->libs = p;
        s->libs_cap = cap;
    }
    s->libs[s->nlibs++] = file;
}

char *ms_symbolizer_library_note(const ms_symbolizer *s)
{
    if (!s->nlibs) return NULL;
    size_t len = 0;
    for (size_t i = 0; i < s->nlibs; i++) len += strlen(s->libs[i]) + 2;
    char *list = malloc(len + 1);
    if (!list) return NULL;
    list[0] = '\0';
    for (size_t i = 0; i < s->nlibs; i++) {
        if (i) strcat(list, ", ");
        strcat(list, s->libs[i]);
    }
    char *note = ms_strprintf("no debug information for %s: no source lines there; code named from the symbol "
                              "table (FUNCTION (LIBRARY), LIBRARY+0xOFFSET where no symbol covers it), blocks "
                              "allocated there heap:LIBRARY:FUNCTION (the innermost named function on the call "
                              "path), the library's own data other:LIBRARY; install its debug symbols for more",
                              list);
    free(list);
    return note;
}

/* Name frame f of code at addr in mod, which has no DWARF there, from the ELF symbol tables
 * (.symtab, else .dynsym: libdwfl picks): the program's own functions by their symbol; a
 * library's as "SYMBOL (LIBRARY)", or "LIBRARY+0xOFFSET" (the start of the function from the
 * unwind table, at its address in the ELF file, as objdump shows it) where no symbol covers
 * addr; the program's too where no symbol covers addr. */
static void symbol_frame(ms_symbolizer *s, Dwfl_Module *mod, Dwarf_Addr addr, ms_frame *f)
{
    GElf_Sym elf_sym;
    GElf_Off sym_off;
    const char *name = readable(s, dwfl_module_addrinfo(mod, addr, &sym_off, &elf_sym, NULL, NULL, NULL));
    Dwarf_Addr base = 0; /* the load bias: offsets are the ELF file's own addresses (objdump's) */
    const char *path = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (!dwfl_module_getelf(mod, &base)) base = 0;
    const char *file = path ? strrchr(path, '/') : NULL;
    file = file ? file + 1 : path;
    if (mod == s->exe || !file) {
        if (name)
            f->func = name;
        else if (file)
            f->func =
                intern_owned(s, ms_strprintf("%s+0x%llx", file, (unsigned long long)function_start(mod, addr - base)));
        return;
    }
    f->module = intern_owned(s, strdup(file));
    f->symbol = name;
    f->exported = name && GELF_ST_BIND(elf_sym.st_info) != STB_LOCAL;
    remember_library(s, f->module);
    const char *func =
        name ? intern_owned(s, ms_strprintf("%s (%s)", name, file))
             : intern_owned(s, ms_strprintf("%s+0x%llx", file, (unsigned long long)function_start(mod, addr - base)));
    if (func) f->func = func;
}

/* The lowest address of function fn (its low pc, else the least of its ranges: a function
 * split into hot and cold parts), biased; 0 if unknown. */
static uint64_t function_low(Dwarf_Die *fn, Dwarf_Addr bias)
{
    Dwarf_Addr low, base, lo, hi, least = 0;
    if (dwarf_lowpc(fn, &low) == 0) return low + bias;
    for (ptrdiff_t off = 0; (off = dwarf_ranges(fn, off, &base, &lo, &hi)) > 0;)
        if (hi > lo && (!least || lo < least)) least = lo;
    return least ? least + bias : 0;
}

/* Fill sym's frames from the DWARF scopes at addr; falls back to the ELF symbol table. */
static int resolve(ms_symbolizer *s, ms_sym *sym)
{
    Dwarf_Addr addr = sym->pc - (sym->return_address && sym->pc ? 1 : 0);
    ms_frame f = { UNKNOWN_FUNC, NULL, 0, NULL, 0, 0, NULL, NULL, false };
    size_t cap = 0;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    if (!mod) { /* a mapping libdw could not open ([vdso], a deleted file): FILE+0xOFFSET */
        for (size_t i = 0; i < s->nmods; i++)
            if (s->mods[i].path && addr >= s->mods[i].lo && addr < s->mods[i].hi) {
                const char *slash = strrchr(s->mods[i].path, '/');
                const char *func = intern_owned(s, ms_strprintf("%s+0x%llx", slash ? slash + 1 : s->mods[i].path,
                                                                (unsigned long long)(addr - s->mods[i].base)));
                if (func) f.func = func;
                break;
            }
        return push_frame(sym, &cap, &f);
    }
    Dwfl_Line *line = dwfl_module_getsrc(mod, addr);
    if (line)
        f.file = absolute_path(s, dwfl_line_comp_dir(line), dwfl_lineinfo(line, NULL, &f.line, &f.col, NULL, NULL));
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(mod, addr, &bias);
    const char *comp_dir = cu_comp_dir(cu);
    Dwarf_Die *scopes = NULL;
    int nscopes = cu ? indexed_scopes(s, cu, addr - bias, &scopes) : 0;
    if (nscopes < 0) return -1;
    bool physical = nscopes > 0; /* else no function of the index holds addr: libdw's walk */
    if (cu && nscopes == 0) nscopes = dwarf_getscopes(cu, addr - bias, &scopes);
    /* After an inlined subroutine, dwarf_getscopes lists the parents of its abstract
     * definition; the concrete callers are the DIE tree's physical parents (as eu-addr2line -i). */
    for (int i = 0; !physical && i < nscopes; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram) break;
        if (tag == DW_TAG_inlined_subroutine) {
            Dwarf_Die *physical = NULL;
            int n = dwarf_getscopes_die(&scopes[i], &physical);
            if (n > 0) {
                free(scopes);
                scopes = physical;
                nscopes = n;
            }
            break;
        }
    }
    for (int i = 0; i < nscopes; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_subprogram && tag != DW_TAG_inlined_subroutine) continue;
        const char *name = function_name(s, &scopes[i]);
        f.func = name ? name : UNKNOWN_FUNC;
        f.decl_file = absolute_path(s, comp_dir, decl_file(&scopes[i]));
        f.decl_line = 0;
        dwarf_decl_line(&scopes[i], &f.decl_line);
        if (push_frame(sym, &cap, &f) != 0) {
            free(scopes);
            return -1;
        }
        if (tag == DW_TAG_subprogram) sym->entry = function_low(&scopes[i], bias);
        if (tag == DW_TAG_subprogram) break;
        /* The caller's frame is positioned at the inlined call. */
        Dwarf_Attribute attr;
        Dwarf_Word file_idx;
        f.file = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &file_idx) == 0
                     ? absolute_path(s, comp_dir, cu_file(cu, file_idx))
                     : NULL;
        f.line = attr_int(&scopes[i], DW_AT_call_line);
        f.col = attr_int(&scopes[i], DW_AT_call_column);
        f.func = UNKNOWN_FUNC;
        f.decl_file = NULL;
        f.decl_line = 0;
    }
    free(scopes);
    if (sym->nframes == 0) { /* no DWARF: the symbol table's name (and start) */
        GElf_Sym elf_sym;
        GElf_Off off;
        if (dwfl_module_addrinfo(mod, addr, &off, &elf_sym, NULL, NULL, NULL)) sym->entry = addr - off;
        symbol_frame(s, mod, addr, &f);
        return push_frame(sym, &cap, &f);
    }
    return 0;
}

static size_t slot_of(const ms_symbolizer *s, uint64_t pc, bool ra)
{
    uint64_t h = (pc ^ (ra ? 0x9e3779b97f4a7c15ull : 0)) * 0xff51afd7ed558ccdull;
    size_t i = (size_t)(h >> 17) & (s->nslots - 1);
    while (s->slots[i] && !(s->slots[i]->pc == pc && s->slots[i]->return_address == ra)) i = (i + 1) & (s->nslots - 1);
    return i;
}

static int grow_slots(ms_symbolizer *s)
{
    ms_symbolizer bigger = *s;
    bigger.nslots = s->nslots ? s->nslots * 2 : 256;
    bigger.slots = calloc(bigger.nslots, sizeof *bigger.slots);
    if (!bigger.slots) return -1;
    for (size_t i = 0; i < s->nslots; i++)
        if (s->slots[i]) bigger.slots[slot_of(&bigger, s->slots[i]->pc, s->slots[i]->return_address)] = s->slots[i];
    free(s->slots);
    s->slots = bigger.slots;
    s->nslots = bigger.nslots;
    return 0;
}

const ms_sym *ms_symbolize(ms_symbolizer *s, uint64_t pc, bool return_address)
{
    if ((s->nused + 1) * 2 > s->nslots && grow_slots(s) != 0) return NULL;
    size_t i = slot_of(s, pc, return_address);
    if (s->slots[i]) return s->slots[i];
    ms_sym *sym = calloc(1, sizeof *sym);
    if (!sym) return NULL;
    sym->pc = pc;
    sym->return_address = return_address;
    if (resolve(s, sym) != 0) {
        free(sym->frames);
        free(sym);
        return NULL;
    }
    s->slots[i] = sym;
    s->nused++;
    return sym;
}

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

/* The type of die with typedefs and qualifiers peeled off; false if it has none. */
static bool peeled_type(Dwarf_Die *die, Dwarf_Die *out)
{
    Dwarf_Attribute attr;
    if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, out)) return false;
    for (int i = 0; i < 16; i++) {
        int tag = dwarf_tag(out);
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
            tag != DW_TAG_restrict_type)
            return true;
        if (!dwarf_attr_integrate(out, DW_AT_type, &attr) || !dwarf_formref_die(&attr, out)) return false;
    }
    return false;
}

/* A variable of an array type with two or more static dimensions: the bytes of one row (its
 * innermost dimension's count times the element's size); else 0. */
static uint64_t row_bytes(Dwarf_Die *var)
{
    Dwarf_Die type, sub, elem;
    if (!peeled_type(var, &type) || dwarf_tag(&type) != DW_TAG_array_type || dwarf_child(&type, &sub) != 0) return 0;
    int dims = 0;
    Dwarf_Word count = 0;
    do {
        if (dwarf_tag(&sub) != DW_TAG_subrange_type) continue;
        Dwarf_Attribute a;
        Dwarf_Word upper;
        if (dwarf_attr(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &count) == 0)
            dims++;
        else if (dwarf_attr(&sub, DW_AT_upper_bound, &a) && dwarf_formudata(&a, &upper) == 0)
            count = upper + 1, dims++;
        else
            return 0; /* a dimension without a static size */
    } while (dwarf_siblingof(&sub, &sub) == 0);
    Dwarf_Word esize;
    if (dims < 2 || !count || !peeled_type(&type, &elem) || dwarf_aggregate_size(&elem, &esize) != 0) return 0;
    return (uint64_t)count * esize;
}

/* Collect variables with a static address (a single DW_OP_addr) under die. */
static int walk_vars(module_vars *mv, Dwarf_Die *die, Dwarf_Addr bias, const char *scope_func)
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
                                die_name(&child),
                                scope_func,
                                decl_file(&child),
                                0,
                                row_bytes(&child) };
                dwarf_decl_line(&child, &v.decl_line);
                if ((is_static && add_var(mv, &v) != 0) ||
                    (is_tls && push_var(&mv->tls, &mv->ntls, &mv->tls_cap, &v) != 0))
                    return -1;
            }
        } else if (tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
                   tag == DW_TAG_inlined_subroutine) {
            const char *scope = scope_func;
            if (tag == DW_TAG_subprogram) scope = die_name(&child);
            if (walk_vars(mv, &child, bias, scope) != 0) return -1;
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
        if (dwarf_offdie(dw, off + header, &cu) && walk_vars(mv, &cu, bias, NULL) != 0) break;
        off = next;
    }
    if (mv->nvars > 1) qsort(mv->vars, mv->nvars, sizeof *mv->vars, cmp_var);
    if (mv->ntls > 1) qsort(mv->tls, mv->ntls, sizeof *mv->tls, cmp_var);
    return mv;
}

int ms_symbolize_global(ms_symbolizer *s, uint64_t addr, const char **name, const char **scope_func,
                        const char **decl_file, int *decl_line)
{
    *name = *scope_func = *decl_file = NULL;
    *decl_line = 0;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    module_vars *mv = mod ? vars_of(s, mod) : NULL;
    if (!mv || mv->nvars == 0) return -1;
    dwarf_var key = { addr, NULL, NULL, NULL, 0, 0 };
    const dwarf_var *v = bsearch(&key, mv->vars, mv->nvars, sizeof key, cmp_var);
    if (!v) return -1;
    *name = v->name;
    *scope_func = v->scope_func;
    *decl_file = v->decl_file;
    *decl_line = v->decl_line;
    return 0;
}

int ms_symbolize_global_row(ms_symbolizer *s, uint64_t addr, uint64_t *row)
{
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    module_vars *mv = mod ? vars_of(s, mod) : NULL;
    *row = 0;
    if (!mv || mv->nvars == 0) return -1;
    dwarf_var key = { addr, NULL, NULL, NULL, 0, 0 };
    const dwarf_var *v = bsearch(&key, mv->vars, mv->nvars, sizeof key, cmp_var);
    if (!v) return -1;
    *row = v->row;
    return 0;
}

int ms_symbolize_tls(ms_symbolizer *s, uint32_t module, uint64_t offset, const char **name, const char **scope_func,
                     const char **decl_file, int *decl_line)
{
    *name = *scope_func = *decl_file = NULL;
    *decl_line = 0;
    Dwfl_Module *mod = module < s->nraw_mods ? s->raw_mods[module] : NULL;
    module_vars *mv = mod ? vars_of(s, mod) : NULL;
    if (!mv || mv->ntls == 0) return -1;
    dwarf_var key = { offset, NULL, NULL, NULL, 0, 0 };
    const dwarf_var *v = bsearch(&key, mv->tls, mv->ntls, sizeof key, cmp_var);
    if (!v) return -1;
    *name = v->name;
    *scope_func = v->scope_func;
    *decl_file = v->decl_file;
    *decl_line = v->decl_line;
    return 0;
}

/* ---- structure layouts ---- */

/* The structure die of d: d itself, or what a typedef (or cv-qualifier) of it names. */
static int struct_die(Dwarf_Die *d, Dwarf_Die *out)
{
    Dwarf_Die cur = *d;
    for (int hops = 0; hops < 8; hops++) {
        int tag = dwarf_tag(&cur);
        if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type) {
            Dwarf_Attribute attr;
            if (dwarf_attr(&cur, DW_AT_declaration, &attr)) return -1; /* an incomplete type */
            *out = cur;
            return 0;
        }
        if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type) return -1;
        Dwarf_Attribute attr;
        if (!dwarf_formref_die(dwarf_attr(&cur, DW_AT_type, &attr), &cur)) return -1;
    }
    return -1;
}

/* The members of structure die st into out (at most cap); their number. */
static int struct_members(Dwarf_Die *st, ms_member *out, size_t cap)
{
    Dwarf_Die m;
    size_t n = 0;
    if (dwarf_child(st, &m) != 0) return 0;
    do {
        Dwarf_Attribute attr;
        Dwarf_Word off;
        Dwarf_Die type;
        if (dwarf_tag(&m) != DW_TAG_member || n == cap) continue;
        if (dwarf_formudata(dwarf_attr(&m, DW_AT_data_member_location, &attr), &off) != 0) continue;
        out[n].name = die_name(&m);
        out[n].offset = off;
        out[n].size = 0;
        if (dwarf_formref_die(dwarf_attr_integrate(&m, DW_AT_type, &attr), &type)) {
            Dwarf_Word sz;
            if (dwarf_aggregate_size(&type, &sz) == 0) out[n].size = sz;
        }
        if (out[n].name && out[n].size) n++;
    } while (dwarf_siblingof(&m, &m) == 0);
    return (int)n;
}

int ms_symbolize_struct(ms_symbolizer *s, const char *type, ms_member *out, size_t cap, uint64_t *size)
{
    for (size_t i = 0; i < s->nraw_mods; i++) {
        Dwarf_Addr bias;
        Dwarf *dw = s->raw_mods[i] ? dwfl_module_getdwarf(s->raw_mods[i], &bias) : NULL;
        Dwarf_Off off = 0, next;
        size_t header;
        while (dw && dwarf_nextcu(dw, off, &next, &header, NULL, NULL, NULL) == 0) {
            Dwarf_Die cu, d, st;
            if (dwarf_offdie(dw, off + header, &cu) && dwarf_child(&cu, &d) == 0) do {
                    const char *name = dwarf_diename(&d);
                    Dwarf_Word sz;
                    if (!name || strcmp(name, type) != 0 || struct_die(&d, &st) != 0) continue;
                    Dwarf_Attribute attr;
                    if (dwarf_formudata(dwarf_attr(&st, DW_AT_byte_size, &attr), &sz) != 0 || !sz) continue;
                    *size = sz;
                    return struct_members(&st, out, cap);
                } while (dwarf_siblingof(&d, &d) == 0);
            off = next;
        }
    }
    return -1;
}
