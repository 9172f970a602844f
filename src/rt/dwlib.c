/* The runtime's private binding of libelf and libdw (dwlib.h says why). */
#define MS_DW_NO_CALLS
#include "dwlib.h"
#include <dlfcn.h>
#include <stdio.h>

ms_dwlib ms_dw;

int ms_dwlib_init(char *err, size_t errlen)
{
    if (ms_dw.dwarf_tag) return 0;
    void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
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
#undef MS_DW_BIND
    ms_dw = b;
    return 0;
}
