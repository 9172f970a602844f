/* The simulator's memory: the caller's allocator plus a byte count (ms_sim_memory). Shared by
 * the simulator's parts and the hit window, which callers may also run on their own. */
#ifndef MEMSPY_SIM_MEM_H
#define MEMSPY_SIM_MEM_H
#include <stddef.h>

#include "sim.h"

typedef struct {
    ms_allocator fn;
    size_t bytes;
} ms_mem;

static inline void *ms_mem_alloc(ms_mem *m, size_t bytes)
{
    void *p = m->fn.alloc(m->fn.ud, bytes);
    if (p) m->bytes += bytes;
    return p;
}

static inline void ms_mem_release(ms_mem *m, void *p, size_t bytes)
{
    if (p) {
        m->fn.release(m->fn.ud, p, bytes);
        m->bytes -= bytes;
    }
}

#endif
