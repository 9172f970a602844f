/* The runtime's address-to-bin map (src/rt/shadow.c): 16-byte granules, two levels, chunks
 * mapped on first use, clearing, chunk boundaries, ranges that are not granule-aligned. */
#include "check.h"
#include "rt/rt.h"

#define CHUNK_SPAN ((uintptr_t)16 << MS_SHADOW_CHUNK_BITS)   /* bytes covered by one chunk */

int main(void)
{
    CHECK_EQ(ms_shadow_init(), 0);
    uintptr_t base = (uintptr_t)0x10000000000ull;   /* an address range no test data uses */

    CHECK_EQ(ms_shadow_get(base), 0u);               /* nothing mapped yet: OTHER */
    ms_shadow_fill(base + 32, 100, 7);               /* [32, 132): granules 2..8 */
    CHECK_EQ(ms_shadow_get(base + 31), 0u);
    CHECK_EQ(ms_shadow_get(base + 32), 7u);
    CHECK_EQ(ms_shadow_get(base + 131), 7u);
    CHECK_EQ(ms_shadow_get(base + 143), 7u);         /* same granule as byte 131 */
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

    /* real heap addresses (the top of the user address space) work too */
    static char object[100];
    ms_shadow_fill((uintptr_t)object, sizeof object, 42);
    CHECK_EQ(ms_shadow_get((uintptr_t)&object[99]), 42u);
    return check_result();
}
