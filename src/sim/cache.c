/* One set-associative cache level with LRU, tree-PLRU or deterministic random replacement.
 * LRU keeps each set ordered most-recently-used first, so the common hit is a compare of way
 * 0; PLRU and random keep ways in place and track state separately. */
#include <string.h>

#include "sim_internal.h"

int ms_cache_init(ms_cache *c, const ms_level_config *cfg, unsigned level, ms_mem *mem)
{
    memset(c, 0, sizeof *c);
    uint64_t lines = cfg->size / cfg->line;
    c->ways = cfg->ways;
    c->set_mask = lines / cfg->ways - 1;
    c->policy = cfg->policy;
    c->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(level + 1) * 0xBF58476D1CE4E5B9ull);
    c->tags_bytes = (size_t)lines * sizeof(uint64_t);
    c->tags = ms_mem_alloc(mem, c->tags_bytes);
    if (!c->tags)
        return -1;
    for (uint64_t i = 0; i < lines; i++)
        c->tags[i] = MS_TAG_EMPTY;
    if (c->policy == MS_POLICY_PLRU) {
        c->plru_bytes = (size_t)((lines + 63) / 64) * sizeof(uint64_t);
        c->plru_bits = ms_mem_alloc(mem, c->plru_bytes);
        if (!c->plru_bits) {
            ms_cache_free(c, mem);
            return -1;
        }
    }
    return 0;
}

void ms_cache_free(ms_cache *c, ms_mem *mem)
{
    ms_mem_release(mem, c->tags, c->tags_bytes);
    ms_mem_release(mem, c->plru_bits, c->plru_bytes);
    c->tags = NULL;
    c->plru_bits = NULL;
}

static uint64_t set_index(const ms_cache *c, const uint64_t *set)
{
    return (uint64_t)(set - c->tags) / c->ways;
}

/* Tree-PLRU: node n (1..ways-1, heap order) points to the half holding the next victim
 * (0 = left, 1 = right). A reference makes every node on its path point away from it. */
static void plru_touch(ms_cache *c, uint64_t set, uint32_t way)
{
    uint64_t base = set * c->ways;
    uint32_t node = 1;
    for (uint32_t half = c->ways >> 1; half; half >>= 1) {
        uint64_t bit = base + node;
        int right = (way & half) != 0;
        if (right)
            c->plru_bits[bit >> 6] &= ~(1ull << (bit & 63));
        else
            c->plru_bits[bit >> 6] |= 1ull << (bit & 63);
        node = 2 * node + (uint32_t)right;
    }
}

static uint32_t plru_victim(const ms_cache *c, uint64_t set)
{
    uint64_t base = set * c->ways;
    uint32_t node = 1;
    while (node < c->ways) {
        uint64_t bit = base + node;
        node = 2 * node + (uint32_t)((c->plru_bits[bit >> 6] >> (bit & 63)) & 1);
    }
    return node - c->ways;
}

static uint64_t xorshift64(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *state = x;
    return x;
}

int ms_cache_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty)
{
    uint32_t ways = c->ways;
    if (c->policy == MS_POLICY_LRU) {
        /* Way 0 was checked by the inline fast path. Move the hit to the front. */
        for (uint32_t w = 1; w < ways; w++) {
            if ((set[w] >> 1) == line) {
                uint64_t tag = set[w] | dirty;
                for (; w > 0; w--)
                    set[w] = set[w - 1];
                set[0] = tag;
                return 1;
            }
        }
        return 0;
    }
    for (uint32_t w = 0; w < ways; w++) {
        if ((set[w] >> 1) == line) {
            set[w] |= dirty;
            if (c->policy == MS_POLICY_PLRU)
                plru_touch(c, set_index(c, set), w);
            return 1;
        }
    }
    return 0;
}

uint64_t ms_cache_fill(ms_cache *c, uint64_t line, unsigned dirty)
{
    uint64_t set_no = line & c->set_mask;
    uint64_t *set = c->tags + set_no * c->ways;
    uint32_t ways = c->ways;
    uint64_t tag = (line << 1) | dirty;
    uint64_t victim;
    switch (c->policy) {
    case MS_POLICY_LRU:
        /* Empty ways sit at the end of an MRU-first set, so the last way is the victim. */
        victim = set[ways - 1];
        for (uint32_t w = ways - 1; w > 0; w--)
            set[w] = set[w - 1];
        set[0] = tag;
        return victim;
    case MS_POLICY_PLRU:
    case MS_POLICY_RANDOM:
    default: {
        uint32_t way = ways;
        for (uint32_t w = 0; w < ways; w++)
            if (set[w] == MS_TAG_EMPTY) {
                way = w;
                break;
            }
        if (way == ways)
            way = c->policy == MS_POLICY_PLRU ? plru_victim(c, set_no)
                                              : (uint32_t)(xorshift64(&c->rng) % ways);
        victim = set[way];
        set[way] = tag;
        if (c->policy == MS_POLICY_PLRU)
            plru_touch(c, set_no, way);
        return victim;
    }
    }
}

static uint64_t *find_way(const ms_cache *c, uint64_t line)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways;
    for (uint32_t w = 0; w < c->ways; w++)
        if ((set[w] >> 1) == line)
            return &set[w];
    return NULL;
}

int ms_cache_mark_dirty(ms_cache *c, uint64_t line)
{
    uint64_t *way = find_way(c, line);
    if (way)
        *way |= MS_TAG_DIRTY;
    return way != NULL;
}

int ms_cache_contains(const ms_cache *c, uint64_t line)
{
    return find_way(c, line) != NULL;
}
