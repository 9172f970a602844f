/* Loaded modules and their global objects. At activation every module (dl_iterate_phdr)
 * is recorded and its symbol table (.symtab, else .dynsym) read with libelf: each
 * STT_OBJECT of non-zero size in an allocated section becomes a GLOBAL bin written into
 * the shadow map. Aliases at one address are merged (the name without a leading underscore
 * wins); memspy's own symbols are skipped. libelf allocates with malloc: the caller runs in
 * BUSY mode so those allocations are not recorded. */
#include "rt.h"
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <link.h>
#include <unistd.h>

#include "dwlib.h" /* after libelf.h: the calls below go through the private binding */

#define MAX_MODULES 1024u

static ms_module modules[MAX_MODULES];
static uint32_t nmodules;

uint32_t ms_modules_count(void) { return nmodules; }
const ms_module *ms_module_get(uint32_t i) { return &modules[i]; }

/* Path of a module: the executable's dl name is "" (use /proc/self/exe's target). */
static const char *module_path(const char *dl_name)
{
    if (dl_name && *dl_name) return ms_arena_strdup(dl_name);
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return ms_arena_strdup("");
    buf[n] = 0;
    return ms_arena_strdup(buf);
}

static int add_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size, (void)data;
    uint64_t base = info->dlpi_addr, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD) continue;
        if (base + ph->p_vaddr < lo) lo = base + ph->p_vaddr;
        if (base + ph->p_vaddr + ph->p_memsz > hi) hi = base + ph->p_vaddr + ph->p_memsz;
    }
    if (hi == 0) return 0;
    for (uint32_t i = 0; i < nmodules; i++)
        if (modules[i].lo == lo) return 0; /* already known (refresh) */
    if (nmodules == MAX_MODULES) return 1;
    ms_module *m = &modules[nmodules];
    m->base = base;
    m->lo = lo;
    m->hi = hi;
    m->path = module_path(info->dlpi_name);
    nmodules++;
    return 0;
}

void ms_modules_refresh(void)
{
    uint8_t prev = ms_busy_begin();
    dl_iterate_phdr(add_module, NULL);
    ms_busy_end(prev);
}

/* ---- symbols ---- */

typedef struct {
    uint64_t addr, size;
    const char *name;
    uint32_t bin, readonly; /* readonly: in a section that is not written */
} gsym;

static int own_symbol(const char *name)
{
    return ms_strncmp(name, "ms_", 3) == 0 || ms_strncmp(name, "__memspy", 8) == 0 ||
           ms_strncmp(name, "__tsan", 6) == 0;
}

/* Heap sort by address (no libc qsort: it may allocate, and this is simple enough). */
static void sift(gsym *a, size_t i, size_t n)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) return;
        if (c + 1 < n && a[c + 1].addr > a[c].addr) c++;
        if (a[i].addr >= a[c].addr) return;
        gsym t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

static void sort_by_addr(gsym *a, size_t n)
{
    for (size_t i = n / 2; i > 0; i--) sift(a, i - 1, n);
    for (size_t end = n; end > 1; end--) {
        gsym t = a[0];
        a[0] = a[end - 1];
        a[end - 1] = t;
        sift(a, 0, end - 1);
    }
}

/* The symbol section to use: .symtab if present, else .dynsym. */
static Elf_Scn *symbol_section(Elf *elf, GElf_Shdr *out)
{
    Elf_Scn *scn = NULL, *dyn = NULL;
    GElf_Shdr dyn_hdr;
    while ((scn = elf_nextscn(elf, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh)) continue;
        if (sh.sh_type == SHT_SYMTAB) {
            *out = sh;
            return scn;
        }
        if (sh.sh_type == SHT_DYNSYM) dyn = scn, dyn_hdr = sh;
    }
    if (dyn) *out = dyn_hdr;
    return dyn;
}

/* Whether section index shndx of elf is allocated (SHF_ALLOC); *readonly: not written. */
static int allocated_section(Elf *elf, size_t shndx, uint32_t *readonly)
{
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(elf, shndx);
    int ok = scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC);
    *readonly = ok && !(sh.sh_flags & SHF_WRITE);
    return ok;
}

/* Function ranges of every module, sorted by address, for ms_function_start. */
static gsym *funcs;
static size_t nfuncs, funcs_cap;

/* Append v to a growing array in runtime memory (sizes double; the old copy is unmapped). */
static void push_sym(gsym **arr, size_t *n, size_t *cap, gsym v)
{
    if (*n == *cap) {
        size_t bigger_cap = *cap ? *cap * 2 : 4096;
        gsym *bigger = ms_map(bigger_cap * sizeof *bigger);
        if (!bigger) return;
        if (*arr) {
            ms_memcpy(bigger, *arr, *n * sizeof **arr);
            ms_unmap(*arr, *cap * sizeof **arr);
        }
        *arr = bigger;
        *cap = bigger_cap;
    }
    (*arr)[(*n)++] = v;
}

static void add_function(uint64_t addr, uint64_t size)
{
    push_sym(&funcs, &nfuncs, &funcs_cap, (gsym){ addr, size, NULL, 0, 0 });
}

/* Index of the entry of the address-sorted a[0..n) whose [addr, addr+size) holds x, looking
 * back at most `back` entries from the last one starting at or below x (symbols may nest or
 * alias); -1 if none. */
static long containing(const gsym *a, size_t n, uintptr_t x, size_t back)
{
    size_t lo = 0, hi = n; /* first entry starting above x */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].addr <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i-- > 0 && lo - i <= back;)
        if (x - a[i].addr < a[i].size) return (long)i;
    return -1;
}

uintptr_t ms_function_start(uintptr_t pc)
{
    long i = containing(funcs, nfuncs, pc, 4);
    return i < 0 ? 0 : (uintptr_t)funcs[i].addr;
}

int ms_function_range(uintptr_t pc, uintptr_t *lo, uintptr_t *hi)
{
    long i = containing(funcs, nfuncs, pc, 4);
    if (i < 0) return -1;
    *lo = (uintptr_t)funcs[i].addr;
    *hi = (uintptr_t)(funcs[i].addr + funcs[i].size);
    return 0;
}

/* Every global object with its bin, sorted by address once all modules are read. */
static gsym *gtab;
static size_t ngtab, gtab_cap;

static void remember_global(uint64_t addr, uint64_t size, uint32_t bin)
{
    push_sym(&gtab, &ngtab, &gtab_cap, (gsym){ addr, size, NULL, bin, 0 });
}

uint32_t ms_globals_bin_at(uintptr_t addr)
{
    long i = containing(gtab, ngtab, addr, 1);
    return i < 0 ? 0 : gtab[i].bin;
}

/* Write a global's bin into the shadow map; a boundary granule already holding another
 * global becomes MS_BIN_SHARED (resolved exactly through the table), and so does one that the
 * global covers only in part in read-only data (readonly): the rest is unnamed bytes there
 * (the compilers' constants, string literals: their mapping's bin), not the global's. */
static void fill_global(uint64_t addr, uint64_t size, uint32_t bin, int readonly)
{
    if (ms_count_only) { /* MTOOL's runs resolve no bin: a stencil's grids cost 11% of its timing run */
        remember_global(addr, size, bin);
        return;
    }
    uintptr_t first = (uintptr_t)addr, last = (uintptr_t)(addr + size - 1);
    uintptr_t g = ((uintptr_t)1 << MS_SHADOW_SHIFT) - 1;
    uint32_t had_first = ms_shadow_get(first), had_last = ms_shadow_get(last);
    ms_shadow_fill(first, size, bin);
    if ((had_first && had_first != bin) || (readonly && (first & g))) ms_shadow_fill(first, 1, MS_BIN_SHARED);
    if ((had_last && had_last != bin) || (readonly && (last & g) != g)) ms_shadow_fill(last, 1, MS_BIN_SHARED);
    remember_global(addr, size, bin);
}

/* Register the global objects of module index mi (and remember its functions). */
static void scan_module(uint32_t mi)
{
    const ms_module *m = &modules[mi];
    if (!m->path[0] || m->path[0] == '[') return;
    int fd = open(m->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    GElf_Shdr sh;
    Elf_Scn *scn = elf ? symbol_section(elf, &sh) : NULL;
    Elf_Data *data = scn ? elf_getdata(scn, NULL) : NULL;
    size_t n = data && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    gsym *syms = n ? ms_map(n * sizeof *syms) : NULL;
    size_t k = 0;
    for (size_t i = 0; syms && i < n; i++) {
        GElf_Sym s;
        if (!gelf_getsym(data, (int)i, &s)) continue;
        if (s.st_size == 0 || s.st_shndx == SHN_UNDEF || s.st_shndx >= SHN_LORESERVE) continue;
        if (GELF_ST_TYPE(s.st_info) == STT_FUNC) {
            add_function(m->base + s.st_value, s.st_size);
            if (ms_focus_active)
                ms_focus_consider(elf_strptr(elf, sh.sh_link, s.st_name), m->base + s.st_value, s.st_size);
            continue;
        }
        if (GELF_ST_TYPE(s.st_info) == STT_TLS) { /* st_value: offset in the module's TLS block */
            const char *tls_name = elf_strptr(elf, sh.sh_link, s.st_name);
            if (tls_name && !own_symbol(tls_name)) ms_tls_add(mi, s.st_value, s.st_size, tls_name);
            continue;
        }
        if (GELF_ST_TYPE(s.st_info) != STT_OBJECT) continue;
        uint32_t readonly;
        if (!allocated_section(elf, s.st_shndx, &readonly)) continue;
        const char *name = elf_strptr(elf, sh.sh_link, s.st_name);
        if (!name || own_symbol(name)) continue;
        syms[k++] = (gsym){ m->base + s.st_value, s.st_size, name, 0, readonly };
    }
    sort_by_addr(syms, k);
    for (size_t i = 0; i < k;) {
        /* aliases: the largest size, the first name without a leading underscore */
        size_t j = i, named = i;
        uint64_t size = 0;
        for (; j < k && syms[j].addr == syms[i].addr; j++) {
            if (syms[j].size > size) size = syms[j].size;
            if (syms[named].name[0] == '_' && syms[j].name[0] != '_') named = j;
        }
        const char *name = ms_arena_strdup(syms[named].name);
        uint32_t bin = name ? ms_bins_add_global(syms[i].addr, size, mi, name) : 0;
        if (bin) fill_global(syms[i].addr, size, bin, syms[i].readonly);
        i = j;
    }
    ms_unmap(syms, n * sizeof *syms);
    if (elf) elf_end(elf);
    close(fd);
}

int ms_globals_init(void)
{
    uint8_t prev = ms_busy_begin();
    dl_iterate_phdr(add_module, NULL);
    char err[256];
    if (ms_dwlib_init(err, sizeof err) == 0 && elf_version(EV_CURRENT) != EV_NONE) {
        for (uint32_t i = 0; i < nmodules; i++) scan_module(i);
        sort_by_addr(funcs, nfuncs);
        sort_by_addr(gtab, ngtab);
    }
    ms_busy_end(prev);
    return 0;
}
