/* One set-associative cache level with LRU, tree-PLRU or deterministic random replacement.
 * LRU keeps the set's most recent line in way 0, so the common hit is a compare of way 0.
 * Sets of up to 16 ways also keep their recency order as a word of 4-bit way numbers
 * (ms_cache.order), so another hit is a swap with way 0 plus a few bit operations and the
 * victim is read off the order word: constant work, no shifting. Wider sets keep their ways
 * ordered most recent first and shift them. PLRU and random keep ways in place and track
 * state separately, and so do the one-processor path's levels below L1 (MS_POLICY_IN_PLACE:
 * LRU by the order word alone, no line moved). */
#include <string.h>

#include "sim_internal.h"

int ms_cache_init(ms_cache *c, const ms_level_config *cfg, unsigned level, int with_aux, ms_mem *mem)
{
    memset(c, 0, sizeof *c);
    uint64_t lines = cfg->size / cfg->line;
    c->ways = cfg->ways;
    c->set_mask = lines / cfg->ways - 1;
    c->policy = cfg->policy;
    c->rng = 0x9E3779B97F4A7C15ull ^ ((uint64_t)(level + 1) * 0xBF58476D1CE4E5B9ull);
    c->tags_bytes = (size_t)lines * sizeof(uint64_t);
    c->tags = ms_mem_alloc(mem, c->tags_bytes);
    if (!c->tags) return -1;
    for (uint64_t i = 0; i < lines; i++) c->tags[i] = MS_TAG_EMPTY;
    if (c->policy == MS_POLICY_LRU && c->ways <= MS_ORDER_MAX_WAYS) {
        uint64_t nsets = lines / c->ways;
        c->order_bytes = (size_t)nsets * sizeof(uint64_t);
        c->order = ms_mem_alloc(mem, c->order_bytes);
        if (!c->order) {
            ms_cache_free(c, mem);
            return -1;
        }
        for (uint64_t i = 0; i < nsets; i++) /* any order of empty ways will do: identity */
            c->order[i] = 0xFEDCBA9876543210ull;
        c->fp_bytes = (size_t)lines + 16; /* a search reads 16 bytes from any set */
        c->fp = ms_mem_alloc(mem, c->fp_bytes);
        if (!c->fp) {
            ms_cache_free(c, mem);
            return -1;
        }
    }
    if (with_aux) {
        c->aux_bytes = (size_t)lines * sizeof(uint32_t);
        c->aux = ms_mem_alloc(mem, c->aux_bytes);
        if (with_aux > 1) { /* spatial utilisation: used masks and owners */
            c->used_bytes = (size_t)lines * sizeof(uint64_t);
            c->used = ms_mem_alloc(mem, c->used_bytes);
            c->owner_bytes = (size_t)lines * sizeof(uint32_t);
            c->owner = ms_mem_alloc(mem, c->owner_bytes);
        }
        if (!c->aux || (with_aux > 1 && (!c->used || !c->owner))) {
            ms_cache_free(c, mem);
            return -1;
        }
    }
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
    ms_mem_release(mem, c->order, c->order_bytes);
    ms_mem_release(mem, c->aux, c->aux_bytes);
    ms_mem_release(mem, c->plru_bits, c->plru_bytes);
    ms_mem_release(mem, c->fp, c->fp_bytes);
    ms_mem_release(mem, c->used, c->used_bytes);
    ms_mem_release(mem, c->owner, c->owner_bytes);
    ms_mem_release(mem, c->recs, c->recs_bytes);
    c->recs = NULL;
    c->used = NULL;
    c->owner = NULL;
    c->fp = NULL;
    c->tags = NULL;
    c->order = NULL;
    c->aux = NULL;
    c->plru_bits = NULL;
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

/* ---- LRU ----
 * Order word: nibble i (i < ways) is the way holding the i-th most recent line, so nibble 0
 * is always way 0; the nibbles above are unused. Empty ways are never referenced, so they
 * stay at the least recent end and are filled before any line is evicted, as with a shifted
 * set; victims and recency are those of a set kept in order, so results are identical. */

/* Copy the words that travel with a line (aux, used mask, owner) from way index src to dst. */
static inline void move_payload(ms_cache *c, uint64_t dst, uint64_t src)
{
    if (!c->aux) return;
    c->aux[dst] = c->aux[src];
    if (!c->used) return;
    c->used[dst] = c->used[src];
    c->owner[dst] = c->owner[src];
}

/* Wide sets: move ways [0, w) down one place (tags, and what travels with them). */
static void shift_down(ms_cache *c, uint64_t base, uint32_t w)
{
    for (uint32_t i = w; i > 0; i--) c->tags[base + i] = c->tags[base + i - 1];
    if (c->aux)
        for (uint32_t i = w; i > 0; i--) move_payload(c, base + i, base + i - 1);
}

/* Make way w (at recency position p) of set set_no, its line now tag, the set's front line.
 * With an order word the front line trades places with way w; otherwise (w == p) the ways
 * before w shift down. */
static inline void lru_promote(ms_cache *c, uint64_t set_no, uint32_t w, unsigned p, uint64_t tag)
{
    uint64_t base = set_no * c->ways;
    uint32_t aux = c->aux ? c->aux[base + w] : 0, owner = c->used ? c->owner[base + w] : 0;
    uint64_t used = c->used ? c->used[base + w] : 0;
    if (c->order) {
        if (c->recs) { /* (only with order words) */
            uint32_t *rec = c->recs[base + w];
            c->recs[base + w] = c->recs[base];
            c->recs[base] = rec;
        }
        c->order[set_no] = ms_order_promote(c->order[set_no], p, w);
        uint8_t f = c->fp[base + w];
        c->fp[base + w] = c->fp[base];
        c->fp[base] = f;
        c->tags[base + w] = c->tags[base];
        move_payload(c, base + w, base);
    } else {
        shift_down(c, base, w);
    }
    c->tags[base] = tag;
    if (c->aux) c->aux[base] = aux;
    if (c->used) {
        c->used[base] = used;
        c->owner[base] = owner;
    }
}

int ms_cache_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty)
{
    uint32_t ways = c->ways;
    if (c->policy == MS_POLICY_IN_PLACE) { /* the line stays in its way; the order word moves */
        uint64_t set_no = line & c->set_mask;
        int w = ms_cache_find(c, set_no, line);
        if (w < 0) return -1;
        set[w] |= dirty;
        uint64_t order = c->order[set_no];
        c->order[set_no] = ms_order_to_front(order, ms_order_position(order, (uint32_t)w), (uint32_t)w);
        return w;
    }
    if (c->policy == MS_POLICY_LRU) {
        /* Way 0 was checked by the inline fast path. Search the others most recent first
         * (recent lines are the likely hits), then move the hit to the front. */
        uint64_t set_no = line & c->set_mask;
        if (c->order) {
            /* Find the way by fingerprints (ms_cache_find), then its recency position. */
            int found = ms_cache_find(c, set_no, line);
            if (found < 0) return -1;
            uint32_t w = (uint32_t)found; /* not 0: way 0 was checked */
            lru_promote(c, set_no, w, ms_order_position(c->order[set_no], w), set[w] | dirty);
            return 0;
        }
        for (uint32_t w = 1; w < ways; w++) {
            if ((set[w] >> 1) == line) {
                lru_promote(c, set_no, w, w, set[w] | dirty);
                return 0;
            }
        }
        return -1;
    }
    for (uint32_t w = 0; w < ways; w++) {
        if ((set[w] >> 1) == line) {
            set[w] |= dirty;
            if (c->policy == MS_POLICY_PLRU) plru_touch(c, line & c->set_mask, w);
            return (int)w;
        }
    }
    return -1;
}

int ms_lru_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty)
{
    return ms_lru_lookup_rest(c, set, line, dirty);
}

uint64_t ms_cache_fill(ms_cache *c, uint64_t line, unsigned dirty, uint32_t aux, uint32_t *victim_aux)
{
    uint64_t set_no = line & c->set_mask;
    uint64_t base = set_no * c->ways;
    uint64_t *set = c->tags + base;
    uint32_t ways = c->ways;
    uint32_t way;
    if (c->order) {
        /* LRU with an order word: the victim is the least recent line or an empty way (they
         * sit at the least recent end); the new line enters at the front and the victim's
         * way takes the old front line. */
        uint64_t order = c->order[set_no];
        way = (uint32_t)(order >> (4 * (ways - 1))) & 15u;
        uint64_t victim = set[way];
        if (c->used) {
            c->gone_used = victim != MS_TAG_EMPTY ? c->used[base + way] : 0;
            c->gone_owner = victim != MS_TAG_EMPTY ? c->owner[base + way] : 0;
        }
        if (c->policy == MS_POLICY_IN_PLACE) { /* the new line takes the victim's way */
            c->order[set_no] = ms_order_to_front(order, ways - 1, way);
            if (c->recs) c->gone_rec = c->recs[base + way]; /* the caller puts the new one */
            c->fp[base + way] = ms_line_fp(line);
            set[way] = (line << 1) | dirty;
            *victim_aux = c->aux ? c->aux[base + way] : 0;
            if (c->aux) c->aux[base + way] = aux;
            c->filled = base + way;
            return victim;
        }
        c->order[set_no] = ms_order_promote(order, ways - 1, way);
        if (c->recs) { /* the caller puts the new line's record into way 0 */
            c->gone_rec = c->recs[base + way];
            c->recs[base + way] = c->recs[base];
        }
        c->fp[base + way] = c->fp[base];
        c->fp[base] = ms_line_fp(line);
        set[way] = set[0];
        set[0] = (line << 1) | dirty;
        if (c->aux) {
            *victim_aux = c->aux[base + way];
            move_payload(c, base + way, base);
            c->aux[base] = aux;
        } else {
            *victim_aux = 0;
        }
        c->filled = base; /* the caller sets its used mask and owner */
        return victim;
    }
    if (c->policy == MS_POLICY_LRU) {
        way = ways - 1; /* wide LRU sets are kept in recency order */
    } else {
        way = ways;
        for (uint32_t w = 0; w < ways; w++)
            if (set[w] == MS_TAG_EMPTY) {
                way = w;
                break;
            }
        if (way == ways)
            way = c->policy == MS_POLICY_PLRU ? plru_victim(c, set_no) : (uint32_t)(xorshift64(&c->rng) % ways);
    }
    uint64_t victim = set[way];
    *victim_aux = c->aux ? c->aux[base + way] : 0;
    if (c->used) {
        c->gone_used = victim != MS_TAG_EMPTY ? c->used[base + way] : 0;
        c->gone_owner = victim != MS_TAG_EMPTY ? c->owner[base + way] : 0;
    }
    if (c->policy == MS_POLICY_LRU) {
        shift_down(c, base, way); /* the new line enters at the front */
        way = 0;
    } else if (c->policy == MS_POLICY_PLRU) {
        plru_touch(c, set_no, way);
    }
    set[way] = (line << 1) | dirty;
    if (c->aux) c->aux[base + way] = aux;
    c->filled = base + way; /* the caller sets its used mask and owner */
    return victim;
}

/* The way holding line (no state change), or NULL: way 0 first, then by fingerprints where
 * the level keeps them (a writeback's dirty mark in a 16-way shared level), else way by way. */
static uint64_t *find_way(const ms_cache *c, uint64_t line)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways;
    if ((set[0] >> 1) == line) return &set[0]; /* LRU: the most recent line (a downgrade's) */
    if (c->fp) {
        int w = ms_cache_find(c, line & c->set_mask, line);
        return w >= 0 ? &set[w] : NULL;
    }
    for (uint32_t w = 0; w < c->ways; w++)
        if ((set[w] >> 1) == line) return &set[w];
    return NULL;
}

int ms_cache_mark_dirty(ms_cache *c, uint64_t line)
{
    uint64_t *way = find_way(c, line);
    if (way) *way |= MS_TAG_DIRTY;
    return way != NULL;
}

int ms_cache_contains(const ms_cache *c, uint64_t line) { return find_way(c, line) != NULL; }

int ms_cache_clean(ms_cache *c, uint64_t line)
{
    uint64_t *way = find_way(c, line);
    if (!way || !(*way & MS_TAG_DIRTY)) return 0;
    *way &= ~(uint64_t)MS_TAG_DIRTY;
    return 1;
}

uint64_t ms_cache_remove(ms_cache *c, uint64_t line, uint32_t *aux)
{
    uint64_t set_no = line & c->set_mask;
    uint64_t base = set_no * c->ways;
    uint64_t *set = c->tags + base;
    *aux = 0;
    c->gone_used = 0;
    c->gone_owner = 0;
    if (c->order) {
        /* The ways most recent first (a line being invalidated was mostly used lately): one
         * walk finds its way and its recency position. */
        uint64_t order = c->order[set_no];
        for (unsigned p = 0; p < c->ways; p++, order >>= 4) {
            uint32_t w = (uint32_t)order & 15u;
            if ((set[w] >> 1) != line) continue;
            uint64_t tag = set[w];
            if (c->aux) *aux = c->aux[base + w];
            if (c->used) {
                c->gone_used = c->used[base + w];
                c->gone_owner = c->owner[base + w];
            }
            ms_lru_remove_at(c, set_no, p);
            return tag;
        }
        return MS_TAG_EMPTY;
    }
    uint32_t w = 0;
    while (w < c->ways && (set[w] >> 1) != line) w++;
    if (w == c->ways) return MS_TAG_EMPTY;
    uint64_t tag = set[w];
    *aux = c->aux ? c->aux[base + w] : 0;
    c->gone_used = c->used ? c->used[base + w] : 0;
    c->gone_owner = c->used ? c->owner[base + w] : 0;
    if (c->policy == MS_POLICY_LRU) {
        /* Ways ordered most recent first: close the gap, the last way becomes empty. */
        for (uint32_t i = w; i + 1 < c->ways; i++) {
            set[i] = set[i + 1];
            move_payload(c, base + i, base + i + 1);
        }
        set[c->ways - 1] = MS_TAG_EMPTY;
    } else {
        set[w] = MS_TAG_EMPTY; /* PLRU and random fill an empty way first */
    }
    return tag;
}
