/* The runtime's libelf and libdw functions, bound privately like zstd and zlib (syslib.c):
 * looked up with dlsym in libdw.so.1 (and the libelf.so.1 it depends on), never through the
 * program's global symbols, so that a program with its own elf_begin, dwarf_child... (its own
 * copy of elfutils, or a function of that name) receives none of the runtime's calls.
 * globals.c and stackvars.c include this after libelf's and libdw's headers: their calls then
 * go through ms_dw. libdw is loaded with its own scope first (RTLD_DEEPBIND, dwlib.c), so
 * that libdw's and libelf's own calls of each other never reach the program either (a program
 * that exports, say, elf_nextscn would receive them through the global scope); its malloc is
 * then the C library's, and what it allocated for the caller is freed there (ms_dw_free). */
#ifndef MEMSPY_RT_DWLIB_H
#define MEMSPY_RT_DWLIB_H
#include <elfutils/libdw.h>
#include <gelf.h>
#include <libelf.h>
#include <stddef.h>

/* Every libelf and libdw function the runtime calls. */
/* clang-format off */
#define MS_DW_FUNCS(X) \
    X(elf_version) \
    X(elf_begin) \
    X(elf_end) \
    X(elf_getdata) \
    X(elf_getscn) \
    X(elf_memory) \
    X(elf_nextscn) \
    X(elf_strptr) \
    X(gelf_getshdr) \
    X(gelf_getsym) \
    X(dwarf_addrdie) \
    X(dwarf_aggregate_size) \
    X(dwarf_attr) \
    X(dwarf_attr_integrate) \
    X(dwarf_begin_elf) \
    X(dwarf_child) \
    X(dwarf_diename) \
    X(dwarf_formref_die) \
    X(dwarf_getlocation) \
    X(dwarf_getscopes) \
    X(dwarf_siblingof) \
    X(dwarf_tag)
/* clang-format on */

#define MS_DW_FIELD(f) __typeof__(f) *f;
typedef struct {
    MS_DW_FUNCS(MS_DW_FIELD)
    void (*free)(void *); /* for what libdw allocated and the caller frees (dwarf_getscopes) */
} ms_dwlib;
#undef MS_DW_FIELD

/* The bound functions: all NULL until ms_dwlib_init binds every one of them. */
extern ms_dwlib ms_dw;

/* Bind them (at activation, in the runtime's busy mode: dlopen allocates; libdw is already
 * loaded, memspy-cc links it, so nothing new is mapped). 0, or -1 with the reason in err. */
int ms_dwlib_init(char *err, size_t errlen);

/* Whether ms_dwlib_init has bound them (the callers cannot name ms_dw's fields: the macros
 * below turn the names into calls). */
static inline int ms_dwlib_bound(void) { return ms_dw.dwarf_tag != NULL; }

#ifndef MS_DW_NO_CALLS /* the callers: each call through the private binding */
#define elf_version (*ms_dw.elf_version)
#define elf_begin (*ms_dw.elf_begin)
#define elf_end (*ms_dw.elf_end)
#define elf_getdata (*ms_dw.elf_getdata)
#define elf_getscn (*ms_dw.elf_getscn)
#define elf_memory (*ms_dw.elf_memory)
#define elf_nextscn (*ms_dw.elf_nextscn)
#define elf_strptr (*ms_dw.elf_strptr)
#define gelf_getshdr (*ms_dw.gelf_getshdr)
#define gelf_getsym (*ms_dw.gelf_getsym)
#define dwarf_addrdie (*ms_dw.dwarf_addrdie)
#define dwarf_aggregate_size (*ms_dw.dwarf_aggregate_size)
#define dwarf_attr (*ms_dw.dwarf_attr)
#define dwarf_attr_integrate (*ms_dw.dwarf_attr_integrate)
#define dwarf_begin_elf (*ms_dw.dwarf_begin_elf)
#define dwarf_child (*ms_dw.dwarf_child)
#define dwarf_diename (*ms_dw.dwarf_diename)
#define dwarf_formref_die (*ms_dw.dwarf_formref_die)
#define dwarf_getlocation (*ms_dw.dwarf_getlocation)
#define dwarf_getscopes (*ms_dw.dwarf_getscopes)
#define dwarf_siblingof (*ms_dw.dwarf_siblingof)
#define dwarf_tag (*ms_dw.dwarf_tag)
#define ms_dw_free (*ms_dw.free)
#endif

#endif
