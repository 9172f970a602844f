/* Thread-local variables: every STT_TLS symbol of a module's symbol table (globals.c finds
 * them) is one TLS bin, named after the variable, shared by every thread's copy. When a
 * thread starts recording, its copies are written into the shadow map: each module's TLS
 * block of the thread (dl_iterate_phdr's dlpi_tls_data) plus the variable's offset in it.
 * A thread's static TLS lies at the top of its stack mapping, inside the range
 * pthread_getattr_np reports as its stack: the thread's stack range is cut below its TLS, so
 * that its thread-local variables are not taken for frames of its outermost function.
 * Modules whose TLS is allocated lazily (dlopen'ed, dynamic TLS) are not covered. Variables
 * packed closer than 16 bytes share a granule: the one written last owns it. */
#include "rt.h"
#include "../format/raw.h"
#include <link.h>

#define MAX_TLS_VARS 4096u

typedef struct {
    uint32_t module, bin;
    uint64_t offset, size;
} tls_var;

static tls_var vars[MAX_TLS_VARS];
static uint32_t nvars;

void ms_tls_add(uint32_t module, uint64_t offset, uint64_t size, const char *name)
{
    if (size == 0 || nvars == MAX_TLS_VARS) return;
    for (uint32_t i = 0; i < nvars; i++)
        if (vars[i].module == module && vars[i].offset == offset) return; /* an alias */
    const char *copy = ms_arena_strdup(name);
    uint32_t bin = copy ? ms_bins_add_variable(MS_BIN_TLS, offset, size, module, copy) : 0;
    if (bin) vars[nvars++] = (tls_var){ module, bin, offset, size };
}

/* One module of the calling thread: fill its variables' copies, note where its TLS is. */
static int fill_module(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    ms_thread *t = data;
    uintptr_t block = (uintptr_t)info->dlpi_tls_data;
    if (!block) return 0;
    if (block > t->stack_lo && block - t->stack_lo < t->stack_span) t->stack_span = block - t->stack_lo;
    uint32_t nmodules = ms_modules_count();
    for (uint32_t m = 0; m < nmodules; m++) {
        if (ms_module_get(m)->base != info->dlpi_addr) continue;
        for (uint32_t i = 0; i < nvars; i++)
            if (vars[i].module == m) ms_shadow_fill(block + vars[i].offset, vars[i].size, vars[i].bin);
        break;
    }
    return 0;
}

void ms_tls_thread_start(ms_thread *t)
{
    if (nvars == 0) return;
    uint8_t prev = ms_busy_begin();
    dl_iterate_phdr(fill_module, t);
    ms_busy_end(prev);
}
