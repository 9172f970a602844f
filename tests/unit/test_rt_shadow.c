/* The runtime's address-to-bin map (src/rt/shadow.c): 16-byte granules, two levels, chunks
 * mapped on first use, clearing (also by whole shadow pages), filling only empty granules,
 * chunk boundaries, ranges that are not granule-aligned, chunks that stay once mapped. */
#include "check.h"
#include "rt/rt.h"

#define CHUNK_SPAN ((uintptr_t)16 << MS_SHADOW_CHUNK_BITS) /* bytes covered by one chunk */

/* The chunk that holds addr's granule (NULL if none is mapped). */
static const uint32_t *chunk_of(uintptr_t addr)
{
    return ms_shadow_l1[(addr >> (MS_SHADOW_SHIFT + MS_SHADOW_CHUNK_BITS)) & ((1u << MS_SHADOW_L1_BITS) - 1)];
}

int main(void)
{
    CHECK_EQ(ms_shadow_init(), 0);
    uintptr_t base = (uintptr_t)0x10000000000ull; /* an address range no test data uses */

    CHECK_EQ(ms_shadow_get(base), 0u); /* nothing mapped yet: OTHER */
    ms_shadow_fill(base + 32, 100, 7); /* [32, 132): granules 2..8 */
    CHECK_EQ(ms_shadow_get(base + 31), 0u);
    CHECK_EQ(ms_shadow_get(base + 32), 7u);
    CHECK_EQ(ms_shadow_get(base + 131), 7u);
    CHECK_EQ(ms_shadow_get(base + 143), 7u); /* same granule as byte 131 */
    CHECK_EQ(ms_shadow_get(base + 144), 0u);

    /* a neighbour, then clearing the first leaves the neighbour */
    ms_shadow_fill(base + 144, 16, 9);
    ms_shadow_fill(base + 32, 100, 0);
    CHECK_EQ(ms_shadow_get(base + 100), 0u);
    CHECK_EQ(ms_shadow_get(base + 150), 9u);

    /* a range across a chunk boundary fills both chunks exactly */
    uintptr_t edge = base + 4 * CHUNK_SPAN;
    ms_shadow_fill(edge - 64, 128, 11);
    CHECK_EQ(ms_shadow_get(edge - 65), 0u);
    CHECK_EQ(ms_shadow_get(edge - 64), 11u);
    CHECK_EQ(ms_shadow_get(edge - 1), 11u);
    CHECK_EQ(ms_shadow_get(edge), 11u);
    CHECK_EQ(ms_shadow_get(edge + 63), 11u);
    CHECK_EQ(ms_shadow_get(edge + 64), 0u);

    /* a large object over several chunks, then freed */
    uintptr_t big = base + 16 * CHUNK_SPAN + 8;
    ms_shadow_fill(big, 3 * CHUNK_SPAN, 12);
    CHECK_EQ(ms_shadow_get(big), 12u);
    CHECK_EQ(ms_shadow_get(big + 2 * CHUNK_SPAN + 5), 12u);
    CHECK_EQ(ms_shadow_get(big + 3 * CHUNK_SPAN - 1), 12u);
    CHECK_EQ(ms_shadow_get(big + 3 * CHUNK_SPAN + 8), 0u);
    ms_shadow_fill(big, 3 * CHUNK_SPAN, 0);
    CHECK_EQ(ms_shadow_get(big + CHUNK_SPAN), 0u);

    /* clearing where nothing was ever mapped maps nothing and reads back OTHER */
    ms_shadow_fill(base + 64 * CHUNK_SPAN, 4096, 0);
    CHECK_EQ(ms_shadow_get(base + 64 * CHUNK_SPAN), 0u);

    /* clearing a large range gives whole shadow pages back and zeroes the partial ones at
     * both ends, leaving the neighbours on either side */
    uintptr_t wide = base + 80 * CHUNK_SPAN;
    ms_shadow_fill(wide - 16, 16, 3); /* the granule before */
    ms_shadow_fill(wide, 2 * CHUNK_SPAN + 4096 * 16 + 48, 13);
    ms_shadow_fill(wide + 2 * CHUNK_SPAN + 4096 * 16 + 48, 16, 4); /* the granule after */
    ms_shadow_clear(wide, 2 * CHUNK_SPAN + 4096 * 16 + 48);
    CHECK_EQ(ms_shadow_get(wide - 16), 3u);
    CHECK_EQ(ms_shadow_get(wide), 0u);
    CHECK_EQ(ms_shadow_get(wide + CHUNK_SPAN + 12345), 0u);
    CHECK_EQ(ms_shadow_get(wide + 2 * CHUNK_SPAN + 4096 * 16 + 32), 0u);
    CHECK_EQ(ms_shadow_get(wide + 2 * CHUNK_SPAN + 4096 * 16 + 48), 4u);
    ms_shadow_fill(wide + CHUNK_SPAN, 64, 14); /* the range can be filled again */
    CHECK_EQ(ms_shadow_get(wide + CHUNK_SPAN + 63), 14u);

    /* filling only the empty granules: what an object holds stays */
    uintptr_t page = base + 96 * CHUNK_SPAN;
    ms_shadow_fill(page + 256, 100, 21); /* an object: granules 16..22 */
    ms_shadow_fill_empty(page, 4096, 22);
    CHECK_EQ(ms_shadow_get(page), 22u);
    CHECK_EQ(ms_shadow_get(page + 255), 22u);
    CHECK_EQ(ms_shadow_get(page + 256), 21u);
    CHECK_EQ(ms_shadow_get(page + 367), 21u);
    CHECK_EQ(ms_shadow_get(page + 368), 22u);
    CHECK_EQ(ms_shadow_get(page + 4095), 22u);
    CHECK_EQ(ms_shadow_get(page + 4096), 0u);

    /* a chunk, once mapped, stays the one its addresses read for good: clearing all of it
     * (whole pages given back), filling, filling the empty granules and clearing again keep
     * its address, and a pointer kept to it reads what ms_shadow_get reads (the compiled
     * groups' per-site cache in plugin.c rests on this: a chunk is never unmapped or
     * replaced) */
    uintptr_t kept_at = base + 128 * CHUNK_SPAN;
    ms_shadow_fill(kept_at + 48, 16, 5);
    const uint32_t *kept = chunk_of(kept_at);
    CHECK_EQ(kept != NULL, 1);
    ms_shadow_clear(kept_at - CHUNK_SPAN, 3 * CHUNK_SPAN);
    CHECK_EQ((uintptr_t)chunk_of(kept_at), (uintptr_t)kept);
    CHECK_EQ(kept[3], 0u);
    ms_shadow_fill(kept_at, CHUNK_SPAN, 6);
    CHECK_EQ((uintptr_t)chunk_of(kept_at), (uintptr_t)kept);
    CHECK_EQ(kept[(CHUNK_SPAN >> MS_SHADOW_SHIFT) - 1], 6u);
    ms_shadow_fill(kept_at, CHUNK_SPAN, 0);
    ms_shadow_fill_empty(kept_at, CHUNK_SPAN, 8);
    CHECK_EQ((uintptr_t)chunk_of(kept_at), (uintptr_t)kept);
    CHECK_EQ(kept[100], 8u);
    CHECK_EQ(ms_shadow_get(kept_at + 100 * 16), 8u);
    ms_shadow_clear(kept_at, CHUNK_SPAN);
    CHECK_EQ((uintptr_t)chunk_of(kept_at), (uintptr_t)kept);
    CHECK_EQ(kept[100], 0u);

    /* real heap addresses (the top of the user address space) work too */
    static char object[100];
    ms_shadow_fill((uintptr_t)object, sizeof object, 42);
    CHECK_EQ(ms_shadow_get((uintptr_t)&object[99]), 42u);
    return check_result();
}
