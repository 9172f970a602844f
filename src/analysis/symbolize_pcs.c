/* Symbolization of pcs: their (inlined) function frames with source positions from DWARF,
 * else from the ELF symbol tables; cached per (pc, return address). */
#include "symbolize_internal.h"
#include "../util/strbuf.h"

#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define UNKNOWN_FUNC "??"

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
    const char *pooled = symbolize_intern_owned(s, joined);
    return pooled ? pooled : file;
}

/* A function's name: its demangled linkage name (qualified with class and namespace) when it
 * has one, else DW_AT_name. */
static const char *function_name(ms_symbolizer *s, Dwarf_Die *die)
{
    Dwarf_Attribute attr;
    const char *linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (linkage) return ms_symbolizer_readable(s, linkage);
    return symbolize_die_name(die);
}

static const char *cu_comp_dir(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    return cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)) : NULL;
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
    const char *name = ms_symbolizer_readable(s, dwfl_module_addrinfo(mod, addr, &sym_off, &elf_sym, NULL, NULL, NULL));
    Dwarf_Addr base = 0; /* the load bias: offsets are the ELF file's own addresses (objdump's) */
    const char *path = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
    if (!dwfl_module_getelf(mod, &base)) base = 0;
    const char *file = path ? strrchr(path, '/') : NULL;
    file = file ? file + 1 : path;
    if (mod == s->exe || !file) {
        if (name)
            f->func = name;
        else if (file)
            f->func = symbolize_intern_owned(
                s, ms_strprintf("%s+0x%llx", file, (unsigned long long)function_start(mod, addr - base)));
        return;
    }
    f->module = symbolize_intern_owned(s, strdup(file));
    f->symbol = name;
    f->exported = name && GELF_ST_BIND(elf_sym.st_info) != STB_LOCAL;
    remember_library(s, f->module);
    const char *func =
        name ? symbolize_intern_owned(s, ms_strprintf("%s (%s)", name, file))
             : symbolize_intern_owned(
                   s, ms_strprintf("%s+0x%llx", file, (unsigned long long)function_start(mod, addr - base)));
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
    ms_frame f = { UNKNOWN_FUNC, NULL, 0, NULL, 0, 0, NULL, NULL, false, false };
    size_t cap = 0;
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
    if (!mod) { /* a mapping libdw could not open ([vdso], a deleted file): FILE+0xOFFSET */
        for (size_t i = 0; i < s->nmods; i++)
            if (s->mods[i].path && addr >= s->mods[i].lo && addr < s->mods[i].hi) {
                const char *slash = strrchr(s->mods[i].path, '/');
                const char *func =
                    symbolize_intern_owned(s, ms_strprintf("%s+0x%llx", slash ? slash + 1 : s->mods[i].path,
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
    int nscopes = cu ? symbolize_indexed_scopes(s, cu, addr - bias, &scopes) : 0;
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
        f.decl_file = absolute_path(s, comp_dir, symbolize_decl_file(&scopes[i]));
        f.decl_line = 0;
        dwarf_decl_line(&scopes[i], &f.decl_line);
        int member = symbolize_is_member(s, &scopes[i]);
        f.member = member > 0;
        if (member < 0 || push_frame(sym, &cap, &f) != 0) {
            free(scopes);
            return -1;
        }
        if (tag == DW_TAG_subprogram) sym->entry = function_low(&scopes[i], bias);
        if (tag == DW_TAG_subprogram) break;
        /* The caller's frame is positioned at the inlined call. */
        Dwarf_Attribute attr;
        Dwarf_Word file_idx;
        f.file = dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_file, &attr), &file_idx) == 0
                     ? absolute_path(s, comp_dir, symbolize_cu_file(cu, file_idx))
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

size_t ms_symbolize_rows(ms_symbolizer *s, uint64_t lo, uint64_t hi, uint64_t *out, size_t cap)
{
    Dwfl_Module *mod = lo < hi ? dwfl_addrmodule(s->dwfl, lo) : NULL;
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, lo, &bias) : NULL;
    Dwarf_Lines *lines = NULL;
    size_t n = 0, k = 0;
    if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0) return 0;
    /* libdw sorts a unit's rows by address: the first at or after lo, then on to hi */
    size_t a = 0, b = n;
    while (a < b) {
        size_t mid = (a + b) / 2;
        Dwarf_Addr at = 0;
        dwarf_lineaddr(dwarf_onesrcline(lines, mid), &at);
        if (at + bias < lo)
            a = mid + 1;
        else
            b = mid;
    }
    for (size_t i = a; i < n && k < cap; i++) {
        Dwarf_Line *row = dwarf_onesrcline(lines, i);
        Dwarf_Addr at = 0;
        bool end = false;
        int line = 0;
        if (dwarf_lineaddr(row, &at) != 0 || at + bias >= hi) break;
        if (dwarf_lineendsequence(row, &end) == 0 && end) continue;
        if (dwarf_lineno(row, &line) != 0 || line <= 0) continue;
        if (!k || out[k - 1] != at + bias) out[k++] = at + bias;
    }
    return k;
}

const char *ms_symbolize_producer(ms_symbolizer *s, uint64_t pc)
{
    Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = mod ? dwfl_module_addrdie(mod, pc, &bias) : NULL;
    Dwarf_Attribute attr;
    return cu ? dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &attr)) : NULL;
}
