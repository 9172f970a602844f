/* Fully associative LRU shadow of one level, for the 3C rule: O(1) per reference with an
 * intrusive doubly linked recency list threaded through a fixed node array (no allocation
 * after init). The simulator keeps every line's node index itself (ms_fa_touch), so its
 * shadows have no hash; a keyed shadow adds an open-addressing hash (line -> node) for
 * callers that have nowhere to keep the index (ms_fa_access). */
#include <string.h>

#include "sim_internal.h"

static uint64_t hash_line(const ms_fa *fa, uint64_t line) { return (line * 0x9E3779B97F4A7C15ull) >> fa->hash_shift; }

/* Node array (every node unused: MS_TAG_EMPTY matches no line) and, if keyed, the hash. */
static int fa_setup(ms_fa *fa, uint32_t capacity, int keyed, ms_mem *mem)
{
    memset(fa, 0, sizeof *fa);
    fa->capacity = capacity;
    fa->head = fa->tail = MS_FA_NIL;
    fa->mru_line = MS_TAG_EMPTY;
    fa->nodes_bytes = (size_t)capacity * sizeof(ms_fa_node);
    fa->nodes = ms_mem_alloc(mem, fa->nodes_bytes);
    if (!fa->nodes) return -1;
    for (uint32_t n = 0; n < capacity; n++) fa->nodes[n].line = MS_TAG_EMPTY;
    if (!keyed) return 0;
    unsigned bits = 1;
    while ((1ull << bits) < 2ull * capacity) /* load factor <= 1/2 */
        bits++;
    fa->hash_shift = 64 - bits;
    fa->slot_mask = (1ull << bits) - 1;
    fa->slots_bytes = (size_t)(1ull << bits) * sizeof(uint32_t);
    fa->slots = ms_mem_alloc(mem, fa->slots_bytes);
    if (!fa->slots) {
        ms_fa_free(fa, mem);
        return -1;
    }
    return 0;
}

int ms_fa_init(ms_fa *fa, uint32_t capacity, ms_mem *mem) { return fa_setup(fa, capacity, 1, mem); }

int ms_fa_init_unkeyed(ms_fa *fa, uint32_t capacity, ms_mem *mem) { return fa_setup(fa, capacity, 0, mem); }

void ms_fa_free(ms_fa *fa, ms_mem *mem)
{
    ms_mem_release(mem, fa->nodes, fa->nodes_bytes);
    ms_mem_release(mem, fa->slots, fa->slots_bytes);
    fa->nodes = NULL;
    fa->slots = NULL;
}

/* Keyed: slot holding line, or the free slot where it would go. */
static inline uint64_t find_slot(const ms_fa *fa, uint64_t line)
{
    uint64_t s = hash_line(fa, line);
    for (;;) {
        uint32_t v = fa->slots[s];
        if (v == 0 || fa->nodes[v - 1].line == line) return s;
        s = (s + 1) & fa->slot_mask;
    }
}

/* Keyed: remove the entry in slot `hole` by shifting later members of its probe run back. */
static void delete_slot(ms_fa *fa, uint64_t hole)
{
    uint64_t s = hole;
    for (;;) {
        s = (s + 1) & fa->slot_mask;
        uint32_t v = fa->slots[s];
        if (v == 0) break;
        uint64_t home = hash_line(fa, fa->nodes[v - 1].line);
        /* Move v into the hole unless its home lies cyclically in (hole, s]. */
        if (((s - home) & fa->slot_mask) >= ((s - hole) & fa->slot_mask)) {
            fa->slots[hole] = v;
            hole = s;
        }
    }
    fa->slots[hole] = 0;
}

uint32_t ms_fa_insert(ms_fa *fa, uint64_t line)
{
    uint32_t n;
    if (fa->used < fa->capacity) {
        n = fa->used++;
    } else {
        n = fa->tail; /* drop the LRU line: its holder's stale index will not validate */
        ms_fa_unlink(fa, n);
        if (fa->slots) delete_slot(fa, find_slot(fa, fa->nodes[n].line));
    }
    fa->nodes[n].line = line;
    ms_fa_push_front(fa, n);
    return n;
}

int ms_fa_access(ms_fa *fa, uint64_t line)
{
    if (line == fa->mru_line) return 1;
    uint32_t v = fa->slots[find_slot(fa, line)];
    if (v) {
        ms_fa_move_to_front(fa, v - 1);
        return 1;
    }
    uint32_t n = ms_fa_insert(fa, line);
    fa->slots[find_slot(fa, line)] = n + 1; /* after the insert: its deletion moves slots */
    return 0;
}
