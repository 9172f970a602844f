/* The runtime's private binding of libelf and libdw (dwlib.h says why). */
#define _GNU_SOURCE
#define MS_DW_NO_CALLS
#include "dwlib.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

ms_dwlib ms_dw;

/* libdw with its own scope first (RTLD_DEEPBIND): libdw's calls of libelf, and libelf's of
 * itself, then go to libelf even where the program exports functions of those names (built
 * with -rdynamic, an elf_nextscn of its own). Its memory still comes from the C library's
 * malloc on the program's heap, as before. (A link-map namespace of its own, dlmopen, gave
 * it a second C library, whose heap was mapped among the program's large blocks while the
 * program ran and moved them: t_whatif's padded blkmatmul no longer matched its prediction.)
 * Not where libdw is loaded already (its binding is made), nor under AddressSanitizer, which
 * refuses RTLD_DEEPBIND; MEMSPY_DW_GLOBAL=1 asks for the global scope (tests compare). */
static void *load_libdw(int *deep)
{
    const char *global = getenv("MEMSPY_DW_GLOBAL");
    void *loaded = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    *deep = !loaded && !(global && *global == '1') && !dlsym(RTLD_DEFAULT, "__asan_init");
    if (loaded) return loaded;
    return dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL | (*deep ? RTLD_DEEPBIND : 0));
}

int ms_dwlib_init(char *err, size_t errlen)
{
    if (ms_dw.dwarf_tag) return 0;
    int deep;
    void *h = load_libdw(&deep);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load libdw.so.1: %s", why ? why : "not found");
        return -1;
    }
    ms_dwlib b = { 0 };
#define MS_DW_BIND(f)                                      \
    if (!(*(void **)&b.f = dlsym(h, #f))) {                \
        snprintf(err, errlen, "libdw.so.1 has no %s", #f); \
        return -1;                                         \
    }
    MS_DW_FUNCS(MS_DW_BIND)
    /* the free of the malloc libdw calls: the C library's when bound deep, else the global one */
    b.free = free;
    if (deep) { MS_DW_BIND(free) }
#undef MS_DW_BIND
    ms_dw = b;
    return 0;
}
