/* The shadow bin map: address -> uint32 bin id at 16-byte granularity, for heap objects
 * and globals. Two levels: a first-level table of chunk pointers covering the 47-bit user
 * address space, and second-level chunks mapped on first use (MAP_NORESERVE, so only the
 * pages actually written cost memory) and installed with a CAS so threads may race. A chunk
 * once installed is never unmapped nor replaced (clearing gives its pages back, the mapping
 * stays): plugin.c's compiled groups keep pointers to chunks (test_rt_shadow checks it). */
#include "rt.h"
#include <sys/mman.h>

uint32_t **ms_shadow_l1;

#define L1_ENTRIES ((size_t)1 << MS_SHADOW_L1_BITS)
#define CHUNK_BYTES (((size_t)1 << MS_SHADOW_CHUNK_BITS) * sizeof(uint32_t))

static void *map_noreserve(size_t bytes) { return ms_map_flags(bytes, MAP_NORESERVE); }

int ms_shadow_init(void)
{
    if (ms_shadow_l1) return 0;
    ms_shadow_l1 = map_noreserve(L1_ENTRIES * sizeof(uint32_t *));
    return ms_shadow_l1 ? 0 : -1;
}

/* The chunk for granule index g, mapped if absent (NULL if out of memory). */
static uint32_t *chunk_for(uintptr_t granule)
{
    uint32_t **slot = &ms_shadow_l1[(granule >> MS_SHADOW_CHUNK_BITS) & (L1_ENTRIES - 1)];
    uint32_t *chunk = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (chunk) return chunk;
    uint32_t *fresh = map_noreserve(CHUNK_BYTES);
    if (!fresh) return NULL;
    uint32_t *expected = NULL;
    if (__atomic_compare_exchange_n(slot, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return fresh;
    ms_unmap(fresh, CHUNK_BYTES); /* another thread installed one first */
    return expected;
}

MS_NO_IDIOM void ms_shadow_fill(uintptr_t addr, size_t len, uint32_t bin)
{
    if (!ms_shadow_l1 || len == 0) return;
    uintptr_t g = addr >> MS_SHADOW_SHIFT;
    uintptr_t end = (addr + len - 1) >> MS_SHADOW_SHIFT;
    while (g <= end) {
        uintptr_t chunk_end = (g | (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1));
        uintptr_t last = chunk_end < end ? chunk_end : end;
        uint32_t *chunk;
        if (bin == 0) { /* clearing never needs a new chunk */
            chunk = ms_shadow_l1[(g >> MS_SHADOW_CHUNK_BITS) & (L1_ENTRIES - 1)];
        } else {
            chunk = chunk_for(g);
        }
        if (chunk) {
            uint32_t *p = chunk + (g & (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1));
            for (uintptr_t i = 0; i <= last - g; i++) p[i] = bin;
        }
        g = last + 1;
    }
}

/* The chunk entries of granules [g, last] (one chunk), NULL if the chunk is absent. */
static uint32_t *chunk_entries(uintptr_t g)
{
    uint32_t *chunk = __atomic_load_n(&ms_shadow_l1[(g >> MS_SHADOW_CHUNK_BITS) & (L1_ENTRIES - 1)], __ATOMIC_ACQUIRE);
    return chunk ? chunk + (g & (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1)) : NULL;
}

MS_NO_IDIOM void ms_shadow_clear(uintptr_t addr, size_t len)
{
    if (!ms_shadow_l1 || len == 0) return;
    uintptr_t g = addr >> MS_SHADOW_SHIFT, end = (addr + len - 1) >> MS_SHADOW_SHIFT;
    while (g <= end) {
        uintptr_t chunk_end = g | (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1);
        uintptr_t last = chunk_end < end ? chunk_end : end;
        uint32_t *p = chunk_entries(g);
        if (p) {
            /* whole shadow pages go back to the kernel (they read as zero again); the
             * partial pages at either end are zeroed by hand */
            uintptr_t lo = (uintptr_t)p, hi = (uintptr_t)(p + (last - g + 1));
            uintptr_t page_lo = (lo + 4095) & ~(uintptr_t)4095, page_hi = hi & ~(uintptr_t)4095;
            if (page_hi > page_lo && madvise((void *)page_lo, page_hi - page_lo, MADV_DONTNEED) == 0) {
                for (uint32_t *q = p; (uintptr_t)q < page_lo; q++) *q = 0;
                for (uint32_t *q = (uint32_t *)page_hi; (uintptr_t)q < hi; q++) *q = 0;
            } else {
                for (uintptr_t i = 0; i <= last - g; i++) p[i] = 0;
            }
        }
        g = last + 1;
    }
}

void ms_shadow_fill_empty(uintptr_t addr, size_t len, uint32_t bin)
{
    if (!ms_shadow_l1 || len == 0 || !bin) return;
    uintptr_t g = addr >> MS_SHADOW_SHIFT, end = (addr + len - 1) >> MS_SHADOW_SHIFT;
    while (g <= end) {
        uintptr_t chunk_end = g | (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1);
        uintptr_t last = chunk_end < end ? chunk_end : end;
        uint32_t *chunk = chunk_for(g);
        if (chunk) {
            uint32_t *p = chunk + (g & (((uintptr_t)1 << MS_SHADOW_CHUNK_BITS) - 1));
            for (uintptr_t i = 0; i <= last - g; i++) {
                uint32_t expected = 0; /* a block filled meanwhile by another thread wins */
                __atomic_compare_exchange_n(&p[i], &expected, bin, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
            }
        }
        g = last + 1;
    }
}
