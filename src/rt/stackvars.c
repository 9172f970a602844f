/* Stack variables by name: a reference into a function's frame is attributed to the local
 * variable (or parameter) whose bytes hold it, one STACKVAR bin per function and variable;
 * bytes of the frame that no variable covers stay in the function's STACK bin.
 *
 * The variables come from the function's DWARF (libdw), read once per function the first
 * time one of its frames is referenced, under a lock, inside the runtime (libdw's memory is
 * the runtime's): DW_TAG_variable and DW_TAG_formal_parameter of the function and of its
 * lexical blocks and inlined calls located at DW_OP_fbreg N, with a frame base of
 * DW_OP_call_frame_cfa (gcc) or rbp (DW_OP_reg6/breg6 0: clang with a frame pointer, frame
 * base = CFA - 16). Variables that share bytes (blocks that reuse a slot) keep the first. The
 * table of functions is lock-free for readers (published slots, fixed capacity).
 *
 * A frame's CFA (the address above its return address): its own frame pointer when it keeps
 * one (the word saved by the entry hook, checked against the return address stored above
 * it), else the first word above the hook's frame that holds the frame's return address. */
#include "rt.h"
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwlib.h" /* after libdw.h: the calls below go through the private binding */

#define FUNC_SLOTS 16384u               /* functions with a frame referenced (power of 2) */
#define MAX_VARS 256u                   /* variables kept per function */
#define SCAN_BYTES ((uintptr_t)1 << 16) /* how far above the hook frame the return address is sought */
#define MAX_DW_MODULES 64u

typedef struct {
    int64_t lo, hi; /* bytes [CFA + lo, CFA + hi) */
    const char *name;
} stack_var;

typedef struct {
    uintptr_t fn; /* function start (runtime address); 0 = empty, published last */
    uint32_t nvars;
    const stack_var *vars; /* sorted by lo, disjoint */
    uint32_t *bins;        /* per variable: its STACKVAR bin once made (0 before) */
    uintptr_t cfa_delta;   /* CFA - hook frame address last found for a frame of it (0: none) */
} func_vars;

static func_vars *funcs;                            /* FUNC_SLOTS entries, mapped on first use */
static func_vars no_vars = { 1, 0, NULL, NULL, 0 }; /* a function without named stack variables */
static pthread_mutex_t vars_lock = PTHREAD_MUTEX_INITIALIZER;
static Dwarf *dw_of[MAX_DW_MODULES];
static uint8_t dw_tried[MAX_DW_MODULES];

/* ---- reading DWARF (lock held, thread busy) ---- */

/* The DWARF of the ELF file fd, read from a copy mapped in the runtime's region (libdw's own
 * dwarf_begin would map the file where the kernel puts the program's mappings, for the whole
 * run: the program's later mmap'd arrays would then move by the binary's size). */
static Dwarf *open_dwarf(int fd)
{
    struct stat st;
    if (!ms_dwlib_bound() || fstat(fd, &st) < 0 || st.st_size <= 0) return NULL; /* dwlib.h unbound */
    size_t len = (size_t)st.st_size;
    char *img = ms_map_file(fd, len);
    Elf *elf = img ? elf_memory(img, len) : NULL;
    Dwarf *dw = elf ? dwarf_begin_elf(elf, DWARF_C_READ, NULL) : NULL;
    if (!dw) {
        if (elf) elf_end(elf);
        ms_unmap(img, len);
    }
    return dw;
}

static Dwarf *module_dwarf(uint32_t m)
{
    if (m >= MAX_DW_MODULES) return NULL;
    if (!dw_tried[m]) {
        dw_tried[m] = 1;
        const ms_module *mod = ms_module_get(m);
        int fd = mod->path && mod->path[0] == '/' ? open(mod->path, O_RDONLY | O_CLOEXEC) : -1;
        if (fd >= 0) {
            dw_of[m] = open_dwarf(fd);
            close(fd);
        }
    }
    return dw_of[m];
}

/* Offset of the function's frame base from its CFA, from DW_AT_frame_base; -1 if unknown. */
static int frame_base_offset(Dwarf_Die *fn, int64_t *off)
{
    Dwarf_Attribute attr;
    Dwarf_Op *ops;
    size_t nops;
    if (!dwarf_attr(fn, DW_AT_frame_base, &attr) || dwarf_getlocation(&attr, &ops, &nops) != 0 || nops != 1) return -1;
    if (ops[0].atom == DW_OP_call_frame_cfa)
        *off = 0;
    else if (ops[0].atom == DW_OP_reg6 || (ops[0].atom == DW_OP_breg6 && ops[0].number == 0))
        *off = -16;
    else
        return -1;
    return 0;
}

typedef struct {
    stack_var v[MAX_VARS];
    uint32_t n;
    int64_t base;
} var_list;

/* Add die's variable if it lives at a fixed place in the frame. */
static void add_var(var_list *l, Dwarf_Die *die)
{
    Dwarf_Attribute attr, type_attr;
    Dwarf_Op *ops;
    size_t nops;
    Dwarf_Die type;
    Dwarf_Word size;
    const char *name = dwarf_diename(die);
    if (!name || l->n == MAX_VARS || !dwarf_attr(die, DW_AT_location, &attr)) return;
    if (dwarf_getlocation(&attr, &ops, &nops) != 0 || nops != 1 || ops[0].atom != DW_OP_fbreg) return;
    if (!dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &type_attr), &type)) return;
    if (dwarf_aggregate_size(&type, &size) != 0 || size == 0) return;
    const char *copy = ms_arena_strdup(name);
    if (!copy) return;
    int64_t lo = l->base + (int64_t)ops[0].number;
    l->v[l->n++] = (stack_var){ lo, lo + (int64_t)size, copy };
}

/* Variables of the scope die and its nested blocks and inlined calls (depth first). */
static void collect(var_list *l, Dwarf_Die *scope, int depth)
{
    Dwarf_Die child;
    if (depth > 16 || dwarf_child(scope, &child) != 0) return;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter)
            add_var(l, &child);
        else if (tag == DW_TAG_lexical_block || tag == DW_TAG_inlined_subroutine)
            collect(l, &child, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
}

static int cmp_var(const void *a, const void *b)
{
    const stack_var *x = a, *y = b;
    return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The named stack variables of the function containing pc, sorted and disjoint, in the
 * runtime's arena; *n = 0 if none. */
static const stack_var *read_vars(uintptr_t pc, uint32_t *n)
{
    *n = 0;
    uint32_t nm = ms_modules_count(), m = 0;
    while (m < nm && !(pc >= ms_module_get(m)->lo && pc < ms_module_get(m)->hi)) m++;
    Dwarf *dw = m < nm ? module_dwarf(m) : NULL;
    Dwarf_Die cu, *scopes = NULL;
    Dwarf_Addr addr = pc - 1 - ms_module_get(m < nm ? m : 0)->base;
    if (!dw || !dwarf_addrdie(dw, addr, &cu)) return NULL;
    int ns = dwarf_getscopes(&cu, addr, &scopes);
    static var_list l; /* lock held */
    l.n = 0;
    for (int i = 0; i < ns; i++) {
        if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram) continue;
        if (frame_base_offset(&scopes[i], &l.base) == 0) collect(&l, &scopes[i], 0);
        break;
    }
    ms_dw_free(scopes);
    if (!l.n) return NULL;
    qsort(l.v, l.n, sizeof l.v[0], cmp_var);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < l.n; i++)
        if (!kept || l.v[i].lo >= l.v[kept - 1].hi) l.v[kept++] = l.v[i];
    stack_var *out = ms_arena_alloc(kept * sizeof *out);
    if (!out) return NULL;
    ms_memcpy(out, l.v, kept * sizeof *out);
    *n = kept;
    return out;
}

/* ---- the table of functions ---- */

static func_vars *lookup(uintptr_t fn)
{
    func_vars *tab = __atomic_load_n(&funcs, __ATOMIC_ACQUIRE);
    if (!tab) return NULL;
    for (uint32_t i = (uint32_t)(fn >> 4) & (FUNC_SLOTS - 1), probes = 0; probes < FUNC_SLOTS;
         i = (i + 1) & (FUNC_SLOTS - 1), probes++) {
        uintptr_t f = __atomic_load_n(&tab[i].fn, __ATOMIC_ACQUIRE);
        if (f == fn) return &tab[i];
        if (!f) return NULL;
    }
    return NULL;
}

/* The variables of the function whose frame has pc (read on first use). */
static func_vars *vars_of(uintptr_t pc)
{
    uintptr_t fn = ms_function_start(pc);
    if (!fn) return &no_vars;
    func_vars *fv = lookup(fn);
    if (fv) return fv;
    uint8_t prev = ms_busy_begin();
    pthread_mutex_lock(&vars_lock);
    fv = lookup(fn);
    if (!fv) {
        if (!funcs) __atomic_store_n(&funcs, ms_map(FUNC_SLOTS * sizeof *funcs), __ATOMIC_RELEASE);
        uint32_t used = 0, i = (uint32_t)(fn >> 4) & (FUNC_SLOTS - 1);
        while (funcs && funcs[i].fn && used++ < FUNC_SLOTS) i = (i + 1) & (FUNC_SLOTS - 1);
        if (funcs && !funcs[i].fn) {
            funcs[i].vars = read_vars(pc, &funcs[i].nvars);
            funcs[i].bins = funcs[i].nvars ? ms_arena_alloc(funcs[i].nvars * sizeof *funcs[i].bins) : NULL;
            if (!funcs[i].bins) funcs[i].nvars = 0; /* zeroed: no bin made yet */
            __atomic_store_n(&funcs[i].fn, fn, __ATOMIC_RELEASE);
            fv = &funcs[i];
        }
    }
    pthread_mutex_unlock(&vars_lock);
    ms_busy_end(prev);
    return fv ? fv : &no_vars;
}

/* ---- frames ---- */

/* Whether the word below cfa (a frame's return address slot) holds ra. */
static int ra_at(uintptr_t cfa, uintptr_t ra, uintptr_t lo, uintptr_t hi)
{
    return cfa > lo + 8 && cfa <= hi && !(cfa & 7) && *(const uintptr_t *)(cfa - 8) == ra;
}

/* The CFA of frame f of function fv (see the file comment); 0 if not found. The frame is
 * live in a thread whose stack ends at stack_hi. The distance from the hook's frame to the
 * CFA found last for the function is tried before a scan (the hook is called at one place). */
static uintptr_t frame_cfa(const ms_frame *f, func_vars *fv, uintptr_t stack_hi)
{
    uintptr_t fp = f->saved_fp, ra = f->call_ra;
    if (fp > f->frame && ra_at(fp + 16, ra, f->frame, stack_hi)) return fp + 16;
    uintptr_t delta = __atomic_load_n(&fv->cfa_delta, __ATOMIC_RELAXED);
    if (delta && ra_at(f->frame + delta, ra, f->frame, stack_hi)) return f->frame + delta;
    uintptr_t end = stack_hi - f->frame > SCAN_BYTES ? f->frame + SCAN_BYTES : stack_hi;
    for (uintptr_t p = (f->frame + 16) & ~(uintptr_t)7; p + 8 <= end; p += 8)
        if (*(const uintptr_t *)p == ra) {
            __atomic_store_n(&fv->cfa_delta, p + 8 - f->frame, __ATOMIC_RELAXED);
            return p + 8;
        }
    return 0;
}

uint32_t ms_stack_var_bin(ms_thread *t, ms_frame *f, uintptr_t stack_hi, uintptr_t addr, uintptr_t *lo, uintptr_t *hi,
                          int own)
{
    *lo = 0;
    *hi = UINTPTR_MAX;
    func_vars *fv = f->vars ? (func_vars *)f->vars : vars_of(f->pc);
    uintptr_t cfa = f->cfa;
    if (!cfa && fv->nvars) cfa = frame_cfa(f, fv, stack_hi);
    if (own) {
        f->vars = fv;
        f->cfa = cfa ? cfa : 1; /* 1: looked for, not found */
    }
    if (cfa <= 1) return ms_bins_stack(t, f->pc);
    /* the last variable starting at or below addr */
    int64_t off = (int64_t)(addr - cfa);
    uint32_t a = 0, b = fv->nvars;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (fv->vars[mid].lo <= off)
            a = mid + 1;
        else
            b = mid;
    }
    if (a > 0 && off < fv->vars[a - 1].hi) {
        const stack_var *v = &fv->vars[a - 1];
        *lo = cfa + (uintptr_t)v->lo;
        *hi = cfa + (uintptr_t)v->hi;
        uint32_t bin = __atomic_load_n(&fv->bins[a - 1], __ATOMIC_RELAXED);
        if (!bin) {
            bin = ms_bins_stack_var(t, f->pc, v->name);
            __atomic_store_n(&fv->bins[a - 1], bin, __ATOMIC_RELAXED);
        }
        return bin;
    }
    /* between variables: the function's bin for the gap */
    *lo = a > 0 ? cfa + (uintptr_t)fv->vars[a - 1].hi : 0;
    *hi = a < fv->nvars ? cfa + (uintptr_t)fv->vars[a].lo : UINTPTR_MAX;
    return ms_bins_stack(t, f->pc);
}
