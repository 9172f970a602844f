/* Fully associative LRU shadow of one level, for the 3C rule: O(1) per reference with an
 * open-addressing hash (line -> node) and an intrusive doubly linked recency list threaded
 * through a fixed node array (no allocation after init). */
#include <string.h>

#include "sim_internal.h"

static uint64_t hash_line(const ms_fa *fa, uint64_t line)
{
    return (line * 0x9E3779B97F4A7C15ull) >> fa->hash_shift;
}

int ms_fa_init(ms_fa *fa, uint32_t capacity, ms_mem *mem)
{
    memset(fa, 0, sizeof *fa);
    unsigned bits = 1;
    while ((1ull << bits) < 2ull * capacity)   /* load factor <= 1/2 */
        bits++;
    fa->capacity = capacity;
    fa->hash_shift = 64 - bits;
    fa->slot_mask = (1ull << bits) - 1;
    fa->head = fa->tail = MS_FA_NIL;
    fa->mru_line = MS_TAG_EMPTY;
    fa->nodes_bytes = (size_t)capacity * sizeof(ms_fa_node);
    fa->slots_bytes = (size_t)(1ull << bits) * sizeof(uint32_t);
    fa->nodes = ms_mem_alloc(mem, fa->nodes_bytes);
    fa->slots = ms_mem_alloc(mem, fa->slots_bytes);
    if (!fa->nodes || !fa->slots) {
        ms_fa_free(fa, mem);
        return -1;
    }
    return 0;
}

void ms_fa_free(ms_fa *fa, ms_mem *mem)
{
    ms_mem_release(mem, fa->nodes, fa->nodes_bytes);
    ms_mem_release(mem, fa->slots, fa->slots_bytes);
    fa->nodes = NULL;
    fa->slots = NULL;
}

/* Slot holding line, or the free slot where it would go. */
static inline uint64_t find_slot(const ms_fa *fa, uint64_t line)
{
    uint64_t s = hash_line(fa, line);
    for (;;) {
        uint32_t v = fa->slots[s];
        if (v == 0 || fa->nodes[v - 1].line == line)
            return s;
        s = (s + 1) & fa->slot_mask;
    }
}

/* Remove the entry in slot `hole` by shifting later members of its probe run backwards. */
static void delete_slot(ms_fa *fa, uint64_t hole)
{
    uint64_t s = hole;
    for (;;) {
        s = (s + 1) & fa->slot_mask;
        uint32_t v = fa->slots[s];
        if (v == 0)
            break;
        uint64_t home = hash_line(fa, fa->nodes[v - 1].line);
        /* Move v into the hole unless its home lies cyclically in (hole, s]. */
        if (((s - home) & fa->slot_mask) >= ((s - hole) & fa->slot_mask)) {
            fa->slots[hole] = v;
            hole = s;
        }
    }
    fa->slots[hole] = 0;
}

static inline void unlink_node(ms_fa *fa, uint32_t n)
{
    ms_fa_node *node = &fa->nodes[n];
    if (node->prev != MS_FA_NIL)
        fa->nodes[node->prev].next = node->next;
    else
        fa->head = node->next;
    if (node->next != MS_FA_NIL)
        fa->nodes[node->next].prev = node->prev;
    else
        fa->tail = node->prev;
}

static inline void push_front(ms_fa *fa, uint32_t n)
{
    ms_fa_node *node = &fa->nodes[n];
    node->prev = MS_FA_NIL;
    node->next = fa->head;
    if (fa->head != MS_FA_NIL)
        fa->nodes[fa->head].prev = n;
    else
        fa->tail = n;
    fa->head = n;
    fa->mru_line = node->line;
}

int ms_fa_access_slow(ms_fa *fa, uint64_t line)
{
    uint64_t s = find_slot(fa, line);
    uint32_t v = fa->slots[s];
    if (v) {
        uint32_t n = v - 1;
        unlink_node(fa, n);
        push_front(fa, n);
        return 1;
    }
    uint32_t n;
    if (fa->used < fa->capacity) {
        n = fa->used++;
    } else {
        n = fa->tail;
        unlink_node(fa, n);
        delete_slot(fa, find_slot(fa, fa->nodes[n].line));
        s = find_slot(fa, line);   /* the deletion may have moved the free slot */
    }
    fa->nodes[n].line = line;
    fa->slots[s] = n + 1;
    push_front(fa, n);
    return 0;
}
