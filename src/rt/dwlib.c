/* The runtime's private binding of libelf and libdw (dwlib.h says why). */
#define _GNU_SOURCE
#define MS_DW_NO_CALLS
#include "dwlib.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

ms_dwlib ms_dw;

/* libdw in a link-map namespace of its own: libdw, libelf and the C library they use are
 * loaded afresh there, so no symbol of the program's (an exported elf_nextscn, a whole copy
 * of elfutils) can receive libdw's calls of libelf or libelf's of itself. Where that fails (a
 * C library that cannot be loaded twice, no static TLS left for it): the global namespace,
 * local, as before. MEMSPY_DW_GLOBAL=1 asks for the latter (tests compare the two). */
static void *load_libdw(int *own_namespace)
{
    const char *global = getenv("MEMSPY_DW_GLOBAL");
    void *h = global && *global == '1' ? NULL : dlmopen(LM_ID_NEWLM, "libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    *own_namespace = h != NULL;
    return h ? h : dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
}

int ms_dwlib_init(char *err, size_t errlen)
{
    if (ms_dw.dwarf_tag) return 0;
    int own_namespace;
    void *h = load_libdw(&own_namespace);
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
    /* the free of the C library whose malloc libdw used: its namespace's, else the global one */
    b.free = free;
    if (own_namespace) { MS_DW_BIND(free) }
#undef MS_DW_BIND
    ms_dw = b;
    return 0;
}
