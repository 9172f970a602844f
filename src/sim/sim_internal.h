/* Private parts of the simulator: one cache level (cache.c), the fully associative LRU shadow
 * used by the 3C rule (fa_lru.c) and the sparse per-line metadata (linemeta.c). The hot
 * lookups are static inline so the L1-hit path of ms_sim_access compiles to a few instructions. */
#ifndef MEMSPY_SIM_INTERNAL_H
#define MEMSPY_SIM_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "sim.h"
#include "mem.h"
#include "window.h"
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* log2 of a power of two (line and unit sizes). */
static inline unsigned ms_log2u(uint64_t x)
{
    unsigned n = 0;
    while (x > 1) {
        x >>= 1;
        n++;
    }
    return n;
}

/* ---- one set-associative level ---- */

/* A way holds (line << 1) | dirty; empty ways hold MS_TAG_EMPTY (line numbers are < 2^61). */
#define MS_TAG_EMPTY UINT64_MAX
#define MS_TAG_DIRTY 1u
#define MS_ORDER_MAX_WAYS 16
/* The policy of a cache slot that holds no cache (sim.c: the fast path checks it). */
#define MS_POLICY_NONE ((ms_policy)3)
/* An LRU level with an order word whose lines stay in the ways they were filled into (the
 * one-processor path's levels below L1, sim.c): a hit or a fill changes the order word only,
 * so nibble 0 is the most recent way, not always way 0; ms_cache_lookup has no way-0 fast
 * path for it. */
#define MS_POLICY_IN_PLACE ((ms_policy)4)

typedef struct {
    uint64_t *tags;      /* nsets * ways; for LRU (not in place) way 0 holds the MRU line */
    uint64_t *order;     /* LRU sets of <= MS_ORDER_MAX_WAYS ways: per set, its recency order
                            * as 4-bit way numbers, most recent first (cache.c); else NULL */
    uint32_t *aux;       /* optional: one word per way that travels with the line (L1 keeps
                            * the line's shadow node there), NULL if not asked for */
    uint8_t *fp;         /* with order words: per way a fingerprint byte of its line
                            * (ms_line_fp; 0 in empty ways), so that a search compares the
                            * line's with the whole set's at once (ms_cache_find); 16 bytes of padding */
    uint64_t *used;      /* with aux (L1): per way, the granules of its line referenced since
                            * it was filled (bit i = bytes [i*g, (i+1)*g), g = max(line/64, 1)) */
    uint32_t *owner;     /* with aux: per way, the counters index (ctx * nprocs + cpu) whose
                            * miss filled it: its l1_used_bytes get the line's used bytes */
    uint64_t *plru_bits; /* PLRU only: tree node n of set s is bit s*ways + n (n = 1..ways-1) */
    uint64_t set_mask;   /* nsets - 1 */
    uint32_t ways;
    ms_policy policy;
    uint64_t rng; /* xorshift64 state (random policy), seeded per level: deterministic */
    size_t tags_bytes, order_bytes, aux_bytes, plru_bytes, fp_bytes, used_bytes, owner_bytes;
    uint32_t **recs;    /* the one-processor LRU path (sim->uni_lru, order words) only: per
                           * way, the record (linemeta) of its line, which travels with the line,
                           * so that a victim's record needs no lookup; else NULL */
    uint32_t *gone_rec; /* ms_cache_fill with recs: the record of the line that left the way */
    size_t recs_bytes;
    uint64_t filled;     /* ms_cache_fill: index (set * ways + way) of the way it filled */
    uint64_t gone_used;  /* ms_cache_fill and ms_cache_remove: the used mask and owner of the */
    uint32_t gone_owner; /* line that left (0 and 0 when none did, or without aux) */
} ms_cache;

/* LRU order words (cache.c): nibble i is the way holding the i-th most recent line. */

/* The recency position of way w (one of the set's ways) in an order word: the lowest nibble
 * equal to w (the nibbles above the set's ways never hold a lower way number). */
static inline unsigned ms_order_position(uint64_t order, uint32_t w)
{
    uint64_t x = order ^ (0x1111111111111111ull * w);
    uint64_t zero = (x - 0x1111111111111111ull) & ~x & 0x8888888888888888ull;
    return (unsigned)__builtin_ctzll(zero) >> 2;
}

/* The order after the line at position p moves to the front (into way 0) and the previous
 * front line moves into way w, the way the promoted line came from: positions 0..p-1 move up
 * one place and position 1 becomes w. */
static inline uint64_t ms_order_promote(uint64_t order, unsigned p, uint32_t w)
{
    uint64_t below = order & ((1ull << (4 * p)) - 1);
    uint64_t above = order & (~0ull << (4 * p) << 4);
    return above | (below << 4) | ((uint64_t)w << 4);
}

/* The order after the way w at position p becomes the most recent (in-place levels): positions
 * 0..p-1 move down one place, w goes to position 0. */
static inline uint64_t ms_order_to_front(uint64_t order, unsigned p, uint32_t w)
{
    uint64_t below = order & ((1ull << (4 * p)) - 1);
    uint64_t above = order & (~0ull << (4 * p) << 4);
    return above | (below << 4) | w;
}

/* A line's fingerprint byte (the top byte of a multiplicative hash: lines of one set differ
 * in their high bits, which the multiplication spreads over the top byte). */
static inline uint8_t ms_line_fp(uint64_t line) { return (uint8_t)((line * 0x9E3779B97F4A7C15ull) >> 56); }

/* 0x80 in every byte of word equal to f, 0 elsewhere (exact: no borrow between bytes). */
static inline uint64_t ms_fp_matches(uint64_t word, uint8_t f)
{
    uint64_t x = word ^ (0x0101010101010101ull * f);
    uint64_t y = (x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full;
    return ~(y | x | 0x7F7F7F7F7F7F7F7Full);
}

/* The way of set set_no of an order-word cache of `ways` ways (c->ways; a constant where the
 * caller is specialised) holding line, or -1: its fingerprint compared with every way's at once (SSE2; else
 * eight at a time), candidates confirmed by their tags. */
static inline __attribute__((always_inline)) int ms_cache_find_ways(const ms_cache *c, uint64_t set_no, uint64_t line,
                                                                    uint32_t ways)
{
    const uint64_t *set = c->tags + set_no * ways;
    const unsigned char *fp = c->fp + set_no * ways;
    uint8_t f = ms_line_fp(line);
#if defined(__SSE2__)
    /* All ways (at most 16) in one compare of 16 bytes (the array is padded for it). */
    unsigned m = (unsigned)_mm_movemask_epi8(
        _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)fp), _mm_set1_epi8((char)f)));
    if (ways < 16) m &= (1u << ways) - 1;
    for (; m; m &= m - 1) {
        uint32_t w = (uint32_t)__builtin_ctz(m);
        if ((set[w] >> 1) == line) return (int)w;
    }
#else
    for (uint32_t first = 0; first < ways; first += 8) {
        uint64_t word;
        __builtin_memcpy(&word, fp + first, sizeof word);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        word = __builtin_bswap64(word); /* byte i is way first + i */
#endif
        uint64_t m = ms_fp_matches(word, f);
        if (ways - first < 8) m &= (1ull << (8 * (ways - first))) - 1;
        for (; m; m &= m - 1) {
            uint32_t w = first + ((uint32_t)__builtin_ctzll(m) >> 3);
            if ((set[w] >> 1) == line) return (int)w;
        }
    }
#endif
    return -1;
}

/* Fill line (absent) into its set of an order-word LRU cache of `ways` ways (a constant where
 * the caller is specialised) as the set's front line, the least recent way's line moved out:
 * the victim's tag (MS_TAG_EMPTY if none), *base the set's first entry, *way the way the
 * victim left, where the previous front line now lies. The callers' record bookkeeping (aux
 * nodes, held words, evictors) follows. */
static inline __attribute__((always_inline)) uint64_t ms_lru_fill_front(ms_cache *cache, uint64_t line, unsigned dirty,
                                                                        uint32_t ways, uint64_t *base, uint32_t *way)
{
    uint64_t set_no = line & cache->set_mask;
    uint64_t b = set_no * ways;
    uint64_t *set = cache->tags + b;
    uint64_t order = cache->order[set_no];
    uint32_t w = (uint32_t)(order >> (4 * (ways - 1))) & 15u;
    uint64_t victim = set[w];
    cache->order[set_no] = ms_order_promote(order, ways - 1, w);
    set[w] = set[0];
    set[0] = (line << 1) | dirty;
    cache->fp[b + w] = cache->fp[b];
    cache->fp[b] = ms_line_fp(line);
    *base = b;
    *way = w;
    return victim;
}

static inline int ms_cache_find(const ms_cache *c, uint64_t set_no, uint64_t line)
{
    return ms_cache_find_ways(c, set_no, line, c->ways);
}

int ms_cache_init(ms_cache *c, const ms_level_config *cfg, unsigned level, int with_aux, ms_mem *mem);
void ms_cache_free(ms_cache *c, ms_mem *mem);

/* Non-LRU (or non-MRU LRU) part of ms_cache_lookup. */
int ms_cache_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty);

/* Look line up as a reference: on a hit update the policy state, OR dirty into the line and
 * return the way now holding it (0 for LRU, which swaps it to the front); on a miss return
 * -1 and change nothing. */
static inline int ms_cache_lookup(ms_cache *c, uint64_t line, unsigned dirty)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways;
    if ((set[0] >> 1) == line && c->policy == MS_POLICY_LRU) {
        set[0] |= dirty;
        return 0;
    }
    return ms_cache_lookup_slow(c, set, line, dirty);
}

/* ms_cache_lookup_slow of an LRU level with an order word, no used masks and no record
 * pointers (the coherent path's lru_lines hierarchies), in line: way 0 was checked by the
 * caller; the way is found by fingerprints and trades places with way 0 (tag, fingerprint,
 * aux word), as lru_promote does. Returns 0 (the way now holding the line) or -1. */
static inline __attribute__((always_inline)) int ms_lru_lookup_rest(ms_cache *c, uint64_t *set, uint64_t line,
                                                                    unsigned dirty)
{
    uint64_t set_no = line & c->set_mask;
    int found = ms_cache_find_ways(c, set_no, line, c->ways);
    if (found < 0) return -1;
    uint32_t w = (uint32_t)found;
    uint64_t base = set_no * c->ways, order = c->order[set_no];
    c->order[set_no] = ms_order_promote(order, ms_order_position(order, w), w);
    uint8_t f = c->fp[base + w];
    c->fp[base + w] = c->fp[base];
    c->fp[base] = f;
    uint64_t tag = set[w] | dirty;
    set[w] = set[0];
    set[0] = tag;
    if (c->aux) {
        uint32_t aux = c->aux[base + w];
        c->aux[base + w] = c->aux[base];
        c->aux[base] = aux;
    }
    return 0;
}

/* ms_lru_lookup_rest out of line (cache.c): the callers' hot paths keep their registers. */
int ms_lru_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty);

/* ms_cache_lookup for such a level: way 0 in line, the rest by ms_lru_lookup_slow. */
static inline __attribute__((always_inline)) int ms_lru_lookup(ms_cache *c, uint64_t line, unsigned dirty)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways;
    if ((set[0] >> 1) == line) {
        set[0] |= dirty;
        return 0;
    }
    return ms_lru_lookup_slow(c, set, line, dirty);
}

/* The aux word of way `way` of line's set (c->aux must exist). */
static inline uint32_t *ms_cache_aux(const ms_cache *c, uint64_t line, int way)
{
    return c->aux + (line & c->set_mask) * c->ways + (uint32_t)way;
}

/* Insert line (absent) as most recently used with the given dirty bit and aux word, evicting a
 * way chosen by the policy. Returns the victim's tag, MS_TAG_EMPTY if an empty way was used;
 * *victim_aux receives the victim's aux word (0 without aux). */
uint64_t ms_cache_fill(ms_cache *c, uint64_t line, unsigned dirty, uint32_t aux, uint32_t *victim_aux);

/* Set the dirty bit of line if present, without touching the replacement state (a writeback
 * is not a reference). Returns 1 if present. */
int ms_cache_mark_dirty(ms_cache *c, uint64_t line);

/* 1 if line is present (no state change); for tests and assertions. */
int ms_cache_contains(const ms_cache *c, uint64_t line);

/* Coherence: take line out (invalidation). Returns its tag (dirty bit included) or
 * MS_TAG_EMPTY if absent; *aux receives its aux word. The freed way becomes the set's least
 * recently used one, so it is refilled first. */
uint64_t ms_cache_remove(ms_cache *c, uint64_t line, uint32_t *aux);

/* LRU with an order word: drop recency position p (not way 0 unless p == 0) of set set_no and
 * make a way empty at the least recent end. Way 0 must keep the most recent line, so removing
 * it moves the second most recent line (and what travels with it) into way 0 and empties that
 * line's way instead. payload: -1 where c's aux words and used masks are tested here, else a
 * constant saying that c has aux words (1) or none (0), and no used masks. */
static inline __attribute__((always_inline)) void ms_lru_remove_at_t(ms_cache *c, uint64_t set_no, unsigned p,
                                                                     int payload)
{
    uint32_t ways = c->ways;
    uint64_t base = set_no * ways;
    uint64_t order = c->order[set_no];
    if (p == 0 && ways > 1) {
        uint32_t w1 = (uint32_t)(order >> 4) & 15u;
        c->tags[base] = c->tags[base + w1];
        c->fp[base] = c->fp[base + w1];
        if (payload < 0 ? c->aux != NULL : payload) {
            c->aux[base] = c->aux[base + w1];
            if (payload < 0 && c->used) {
                c->used[base] = c->used[base + w1];
                c->owner[base] = c->owner[base + w1];
            }
        }
        p = 1; /* the line now in way 0 left position 1: remove that position */
    }
    uint32_t freed = (uint32_t)(order >> (4 * p)) & 15u;
    c->tags[base + freed] = MS_TAG_EMPTY;
    /* Positions above p move down one place; the freed way goes to the least recent end. */
    uint64_t below_p = (1ull << (4 * p)) - 1;
    uint64_t used = (1ull << (4 * (ways - 1))) - 1; /* positions 0 .. ways-2 */
    uint64_t kept = ((order & below_p) | ((order >> 4) & ~below_p)) & used;
    c->order[set_no] = kept | (uint64_t)freed << (4 * (ways - 1));
}

static inline void ms_lru_remove_at(ms_cache *c, uint64_t set_no, unsigned p) { ms_lru_remove_at_t(c, set_no, p, -1); }

/* ms_cache_remove for an LRU level with an order word and no used masks, in line (the
 * coherent path's invalidations): the ways walked most recent first (a line being
 * invalidated was mostly used lately). payload as ms_lru_remove_at_t's. */
static inline __attribute__((always_inline)) uint64_t ms_cache_remove_lru_t(ms_cache *c, uint64_t line, uint32_t *aux,
                                                                            int payload)
{
    uint64_t set_no = line & c->set_mask, base = set_no * c->ways;
    const uint64_t *set = c->tags + base;
    uint64_t order = c->order[set_no];
    unsigned p = 0;
    uint32_t w = (uint32_t)order & 15u;
    while ((set[w] >> 1) != line) {
        if (++p == c->ways) {
            *aux = 0;
            return MS_TAG_EMPTY;
        }
        w = (uint32_t)(order >> (4 * p)) & 15u;
    }
    uint64_t tag = set[w];
    *aux = (payload < 0 ? c->aux != NULL : payload) ? c->aux[base + w] : 0;
    ms_lru_remove_at_t(c, set_no, p, payload);
    return tag;
}

static inline __attribute__((always_inline)) uint64_t ms_cache_remove_lru(ms_cache *c, uint64_t line, uint32_t *aux)
{
    return ms_cache_remove_lru_t(c, line, aux, -1);
}

/* Coherence: clear line's dirty bit (downgrade to shared). Returns 1 if it was dirty. */
int ms_cache_clean(ms_cache *c, uint64_t line);

/* ---- fully associative LRU shadow (3C rule) ---- */

/* The shadow is a recency list threaded through a fixed node array. Finding a line's node is
 * the caller's business: the simulator keeps each line's node index ("where") in its per-line
 * record, or next to the L1 way holding the line, and the shadow validates it against the
 * node's line, so a stale index costs nothing but a miss. A keyed shadow (ms_fa_init) also
 * keeps its own line -> node hash for callers without per-line storage (ms_fa_access). */
typedef struct {
    uint64_t line;       /* MS_TAG_EMPTY while unused */
    uint32_t prev, next; /* towards MRU / towards LRU; MS_FA_NIL at the ends */
} ms_fa_node;

#define MS_FA_NIL UINT32_MAX

typedef struct {
    ms_fa_node *nodes; /* capacity nodes, the first `used` are live */
    uint32_t *slots;   /* keyed only: open addressing (linear probing), node + 1, 0 = free */
    uint64_t slot_mask;
    unsigned hash_shift;                 /* 64 - log2(number of slots) */
    uint32_t capacity, used, head, tail; /* head = MRU, tail = LRU */
    uint64_t mru_line;                   /* line of the head node, or MS_TAG_EMPTY */
    size_t nodes_bytes, slots_bytes;
} ms_fa;

/* A keyed shadow of capacity lines (ms_fa_access), or an unkeyed one (ms_fa_touch only). */
int ms_fa_init(ms_fa *fa, uint32_t capacity, ms_mem *mem);
int ms_fa_init_unkeyed(ms_fa *fa, uint32_t capacity, ms_mem *mem);
void ms_fa_free(ms_fa *fa, ms_mem *mem);

/* Recency list operations: take node n out of the list; put it at the MRU end. */
static inline void ms_fa_unlink(ms_fa *fa, uint32_t n)
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

static inline void ms_fa_push_front(ms_fa *fa, uint32_t n)
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

/* Move node n (in the list) to the MRU end. A node that is not the head has a predecessor,
 * and the list a head, so only the tail needs a test. */
static inline void ms_fa_move_to_front(ms_fa *fa, uint32_t n)
{
    uint32_t head = fa->head;
    if (n == head) return;
    ms_fa_node *nodes = fa->nodes, *node = &nodes[n];
    uint32_t prev = node->prev, next = node->next;
    nodes[prev].next = next;
    if (next != MS_FA_NIL)
        nodes[next].prev = prev;
    else
        fa->tail = prev;
    node->prev = MS_FA_NIL;
    node->next = head;
    nodes[head].prev = n;
    fa->head = n;
    fa->mru_line = node->line;
}

/* Out-of-line part of ms_fa_touch: insert line (absent) as MRU, dropping the LRU line when
 * full, and return its node. */
uint32_t ms_fa_insert(ms_fa *fa, uint64_t line);

/* Reference line, whose node index (if present) the caller keeps in *where: returns 1 if it
 * was present (hit), 0 if not; afterwards it is the MRU line and *where holds its node. O(1),
 * no hash: one node load when *where is right. *where may hold anything for an absent line. */
static inline int ms_fa_touch(ms_fa *fa, uint64_t line, uint32_t *where)
{
    if (line == fa->mru_line) /* already MRU: nothing changes (the key speed-up) */
        return 1;
    uint32_t n = *where;
    if (n < fa->capacity && fa->nodes[n].line == line) {
        ms_fa_move_to_front(fa, n);
        return 1;
    }
    if (fa->used == fa->capacity && !fa->slots && fa->head != fa->tail) {
        /* Full and unkeyed (the simulator's shadows): the LRU node takes the line, to the front. */
        n = fa->tail;
        ms_fa_node *node = &fa->nodes[n];
        fa->tail = node->prev;
        fa->nodes[node->prev].next = MS_FA_NIL;
        node->line = line;
        node->prev = MS_FA_NIL;
        node->next = fa->head;
        fa->nodes[fa->head].prev = n;
        fa->head = n;
        fa->mru_line = line;
        *where = n;
        return 0;
    }
    *where = ms_fa_insert(fa, line);
    return 0;
}

/* Keyed shadows only: reference line, finding its node through the shadow's hash. */
int ms_fa_access(ms_fa *fa, uint64_t line);

/* ---- sparse per-line metadata ---- */

/* The simulator's record of a memory line (L1-line granularity) is 2 * nlevels words: word k
 * is bit 31 = level k has held the line, bits 0..30 = ctx + 1 of the context that last evicted
 * it from level k (0 = unknown); word nlevels + k is the line's node in level k's shadow. */
#define MS_META_HELD 0x80000000u
#define MS_META_EVICTOR_MASK 0x7fffffffu
/* Multiprocessor records only: bit 30 of a private level's word marks a line taken away by an
 * invalidation and not refetched since (evictors are then limited to 30 bits). */
#define MS_META_INVAL 0x40000000u
/* ... and bit 29 marks a line the level holds now (set on fill, cleared on eviction and
 * invalidation), so coherence actions skip the levels that cannot hold it without searching
 * their sets (evictors are then limited to 29 bits). */
#define MS_META_PRESENT 0x20000000u

typedef struct {
    uint64_t chunk;  /* chunk number + 1, 0 = free slot */
    uint32_t *words; /* MS_META_CHUNK_LINES * words_per_line words */
} ms_meta_slot;

#define MS_META_CHUNK_SHIFT 9
#define MS_META_CHUNK_LINES (1u << MS_META_CHUNK_SHIFT)
#define MS_META_RECENT_BITS 9
#define MS_META_RECENT (1u << MS_META_RECENT_BITS) /* direct-mapped cache of recently used chunks */

typedef struct {
    ms_meta_slot *slots; /* open addressing hash of chunks */
    size_t nslots, nchunks;
    ms_meta_slot recent[MS_META_RECENT]; /* chunk c is cached in entry ms_meta_recent(c) */
    unsigned words_per_line;
    ms_mem *mem;
    uint32_t *stand_in; /* the record handed out when out of memory (zeroed each time) */
} ms_linemeta;

/* Set lm up for records of words_per_line words. 0, or -1 if out of memory. */
int ms_linemeta_init(ms_linemeta *lm, unsigned words_per_line, ms_mem *mem);
void ms_linemeta_free(ms_linemeta *lm);

/* The words of line key (created zeroed on first use). When out of memory, a zeroed stand-in
 * record meaning "nothing known" (the numbers degrade, nothing breaks); never NULL. */
uint32_t *ms_linemeta_lookup_slow(ms_linemeta *lm, uint64_t key);

/* 1 if rec is lm's stand-in record (not to be kept, nor stepped through as a chunk). */
static inline int ms_linemeta_is_stand_in(const ms_linemeta *lm, const void *rec) { return rec == lm->stand_in; }

/* The recent-chunk entry of chunk: a multiplicative hash, so that chunks a power of two apart
 * (threads working on equal shares of one array) do not evict each other. */
static inline unsigned ms_meta_recent(uint64_t chunk)
{
    return (unsigned)((chunk * 0x9E3779B97F4A7C15ull) >> (64 - MS_META_RECENT_BITS));
}

/* The words of line key if its chunk is in the recent-chunk cache, else NULL (no call). */
static inline uint32_t *ms_linemeta_recent(ms_linemeta *lm, uint64_t key)
{
    uint64_t chunk = (key >> MS_META_CHUNK_SHIFT) + 1;
    const ms_meta_slot *e = &lm->recent[ms_meta_recent(chunk)];
    return e->chunk == chunk ? e->words + (key & (MS_META_CHUNK_LINES - 1)) * lm->words_per_line : NULL;
}

static inline uint32_t *ms_linemeta_lookup(ms_linemeta *lm, uint64_t key)
{
    uint64_t chunk = (key >> MS_META_CHUNK_SHIFT) + 1;
    const ms_meta_slot *e = &lm->recent[ms_meta_recent(chunk)];
    if (e->chunk == chunk) return e->words + (key & (MS_META_CHUNK_LINES - 1)) * lm->words_per_line;
    return ms_linemeta_lookup_slow(lm, key);
}

/* The record of a victim line whose way kept the record pointer `kept` (ms_cache.recs): that
 * record (chunks never move), or the line's lookup where `kept` is the stand-in record (memory
 * was short when the line came in: the lookup may find or make its chunk now, as it would have
 * without the pointer). */
static inline uint32_t *ms_victim_record(ms_linemeta *lm, uint32_t *kept, uint64_t line)
{
    return __builtin_expect(kept != lm->stand_in, 1) ? kept : ms_linemeta_lookup(lm, line);
}

/* ---- counted key tuples (pairs.c) ---- */

typedef struct {
    uint32_t key[4];
    uint64_t count; /* 0 marks a free slot */
} ms_pair;

#define MS_PAIRS_RECENT_BITS 6
#define MS_PAIRS_LAST 4
typedef struct {
    ms_pair *slots;
    size_t nslots, n;
    ms_pair *last[MS_PAIRS_LAST];                /* by key[0] % MS_PAIRS_LAST: the tuple counted last
                                                  * (a run repeats it; a miss counts one pair per
                                                  * level), or NULL; cleared on growth */
    ms_pair *recent[1u << MS_PAIRS_RECENT_BITS]; /* tuples counted lately, by ms_pairs_recent
                                                  * of their key (NULL: none); cleared on growth */
    uint64_t lost;                               /* updates dropped for lack of memory */
    ms_mem *mem;
} ms_pairs;

void ms_pairs_init(ms_pairs *t, ms_mem *mem);
void ms_pairs_free(ms_pairs *t);
/* Out-of-line part of ms_pairs_count: a tuple not in the caches in front of the table. */
void ms_pairs_count_new(ms_pairs *t, uint32_t k0, uint32_t k1, uint32_t k2, uint32_t k3);

/* The entry of a key in ms_pairs.recent (a multiplicative hash of its words). */
static inline unsigned ms_pairs_recent(uint32_t k0, uint32_t k1, uint32_t k2, uint32_t k3)
{
    uint32_t h = (k0 ^ k1 * 0x9E3779B1u ^ k2 * 0x85EBCA77u ^ k3 * 0xC2B2AE3Du) * 0x27D4EB2Fu;
    return h >> (32 - MS_PAIRS_RECENT_BITS);
}

static inline int ms_pair_is(const ms_pair *p, uint32_t k0, uint32_t k1, uint32_t k2, uint32_t k3)
{
    return p && p->key[0] == k0 && p->key[1] == k1 && p->key[2] == k2 && p->key[3] == k3;
}

/* Count one occurrence of the tuple (k0, k1, k2, k3). */
static inline void ms_pairs_count(ms_pairs *t, uint32_t k0, uint32_t k1, uint32_t k2, uint32_t k3)
{
    ms_pair **last = &t->last[k0 & (MS_PAIRS_LAST - 1)], *p = *last;
    if (!ms_pair_is(p, k0, k1, k2, k3)) {
        p = t->recent[ms_pairs_recent(k0, k1, k2, k3)];
        if (!ms_pair_is(p, k0, k1, k2, k3)) {
            ms_pairs_count_new(t, k0, k1, k2, k3);
            return;
        }
        *last = p;
    }
    p->count++;
}
/* Call fn for every tuple, ordered by key[0], key[1], key[2], key[3]. */
void ms_pairs_each(const ms_pairs *t, void (*fn)(const ms_pair *p, void *ud), void *ud);

/* ---- the simulator object ---- */

/* One processor's view of the hierarchy: its private levels and the shared ones, and where in
 * a line's record (linemeta) each level keeps the held/evictor word and the shadow node. With
 * one processor the view is the plain hierarchy (words k and nlevels + k). */
typedef struct {
    ms_cache *cache[MS_MAX_LEVELS];
    ms_fa *fa[MS_MAX_LEVELS];
    uint16_t held_word[MS_MAX_LEVELS];
    uint16_t fa_word[MS_MAX_LEVELS];
} ms_view;

typedef struct ms_coherence ms_coherence; /* coherence.c: multiprocessor state */

struct ms_sim {
    ms_cache cache[MS_MAX_LEVELS]; /* the levels; with coherence only the shared ones (the */
    ms_fa fa[MS_MAX_LEVELS];       /* private ones are in coherence.c) */
    ms_counters *ctrs;             /* indexed by ctx * nprocs + cpu */
    uint32_t nctx, ctx_cap;
    int nlevels;
    unsigned nprocs;     /* >= 1 */
    uint32_t shadow_div; /* the shadows hold 1/shadow_div of the lines (psim.h) */
    unsigned l1_shift;
    unsigned line_shift[MS_MAX_LEVELS];
    unsigned meta_shift[MS_MAX_LEVELS]; /* level line -> linemeta key (L1-line granularity) */
    uint64_t stall[MS_MAX_LEVELS + 1];  /* by serving level; [nlevels] = memory */
    unsigned gran_shift;                /* log2 of a used-mask granule (L1 line / 64, >= 1 byte) */
    uint64_t cur_bits;                  /* the used-mask bits of the line being simulated (util) */
    int util;                           /* cfg.utilisation: used masks kept, the _util paths run */
    ms_linemeta meta;                   /* per-line records (sim_internal.h, coherence.c) */
    ms_view view0;                      /* the one processor's view (nprocs == 1) */
    uint32_t inval_mark;                /* MS_META_INVAL with coherence, else 0 */
    uint32_t present_mark;              /* MS_META_PRESENT with coherence, else 0 */
    uint32_t evictor_limit;             /* contexts below it are recorded as evictors; also the
                                    * mask of a held word's evictor bits */
    ms_pairs pairs;                     /* (level, victim, evictor) replacement pairs */
    ms_coherence *coh;                  /* NULL with one processor */
    uint64_t comm_refs;                 /* ms_sim_comm_refs */
    uint64_t stall_cycles;              /* every reference's stall as counted (psim's direct mode) */
    ms_window win;                      /* the hit window (one processor only) */
    int win_allowed;                    /* the window applies to this hierarchy */
    int uni_lru;                        /* the specialised path applies (uni_lru.c), chosen at create */
    int coh_quiet64;                    /* access is ms_coh_access_line64: callers may inline its
                                         * quiet hits (coherence.h: ms_coh_quiet64) */
    int uni_inline;                     /* access is ms_uni_access: callers may inline its common
                                         * cases (ms_uni_access_inline) */
    int (*access)(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
    int (*uni_line)(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c);
    /* uni_lru.c: the instance for this geometry */
    /* what ms_sim_access runs: ms_uni_access or ms_sim_access_any */
    ms_hier_config cfg;
    ms_mem mem;
};

/* What happened to one line of a reference: the serving level and, per missing level, the
 * cause and the recorded evictor (ctx + 1, 0 = unknown). */
typedef struct {
    int served;
    uint8_t cause[MS_MAX_LEVELS];
    uint32_t evictor[MS_MAX_LEVELS];
} ms_line_outcome;

/* A level of the hierarchy: the cache (level index k; L1 keeps each line's shadow node next
 * to its way) and its fully associative shadow of 1/shadow_div of the level's lines (a
 * partition of a set-partitioned simulation, psim.h). 0 or -1 (no memory). */
int ms_level_init(ms_cache *c, ms_fa *fa, const ms_level_config *lv, unsigned k, uint32_t shadow_div, int util,
                  ms_mem *mem);

/* ms_sim_create for one of shadow_div partitions (psim.h): every 3C shadow holds 1/shadow_div
 * of its level's lines. */
int ms_sim_create_part(ms_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc, uint32_t shadow_div);
void ms_level_free(ms_cache *c, ms_fa *fa, ms_mem *mem);

/* Spatial utilisation (docs/simulator.md). The used-mask bits of bytes [addr, addr+size) within
 * L1 line `line` (the part of the reference that falls in it). */
static inline uint64_t ms_used_bits(const ms_sim *sim, uint64_t line, uint64_t addr, uint32_t size)
{
    uint64_t lo = line << sim->l1_shift, hi = lo + ((1ull << sim->l1_shift) - 1);
    uint64_t last = addr + (size ? size - 1 : 0);
    if (addr < lo) addr = lo;
    if (last > hi) last = hi;
    return ms_used_mask(sim->l1_shift, addr - lo, last - lo);
}
/* The same for a reference known to lie in one line (the hot paths): no clipping. */
static inline uint64_t ms_used_bits_in(const ms_sim *sim, uint64_t addr, uint32_t size)
{
    uint64_t lo = addr & ((1ull << sim->l1_shift) - 1);
    if (__builtin_expect(sim->gran_shift == 0, 1))        /* lines of up to 64 bytes: bit = byte */
        return (~0ull >> (63 - ((size - 1) & 63))) << lo; /* size bits (size 0: defined, unused) */
    unsigned a = (unsigned)(lo >> sim->gran_shift), b = (unsigned)((lo + size - (size != 0)) >> sim->gran_shift);
    return (~0ull >> (63 - (b - a))) << a;
}
/* The used-mask bits of every byte of a reference at their offsets within the line, whichever
 * line: a straddling reference's part in the next line wraps to the low bits (l1_ref_bits). */
static inline uint64_t ms_ref_bits(const ms_sim *sim, uint64_t addr, uint32_t size)
{
    uint64_t line = 1ull << sim->l1_shift, lo = addr & (line - 1), hi = lo + (size ? size - 1 : 0);
    if (hi < line) return ms_used_mask(sim->l1_shift, lo, hi);
    return ms_used_mask(sim->l1_shift, lo, line - 1) |
           ms_used_mask(sim->l1_shift, 0, hi - line < line ? hi - line : line - 1);
}
/* A line left L1 (or the simulation ended) with used mask `used`: its used bytes go to the
 * counters that fetched it. */
static inline void ms_credit_used(ms_sim *sim, uint64_t used, uint32_t owner)
{
    if (used) sim->ctrs[owner].l1_used_bytes += (uint64_t)__builtin_popcountll(used) << sim->gran_shift;
}
/* L1 (with used masks) just filled a way for counters c: credit the line that left, start the
 * new line's mask with the current reference's bits, count the fetched bytes. */
static inline void ms_used_fill(ms_sim *sim, ms_cache *l1, ms_counters *c)
{
    ms_credit_used(sim, l1->gone_used, l1->gone_owner);
    l1->used[l1->filled] = sim->cur_bits;
    l1->owner[l1->filled] = (uint32_t)(c - sim->ctrs);
    c->l1_fetched_bytes += 1ull << sim->l1_shift;
}
/* End of a simulation: credit every line still in cache l1 (with used masks), then clear them. */
void ms_used_flush(ms_sim *sim, ms_cache *l1);

/* Count one reference as a read or a write, and its stall, on counters c. */
static inline void ms_count_reference(ms_counters *c, unsigned write)
{
    if (write)
        c->writes++;
    else
        c->reads++;
}

static inline void ms_count_stall(ms_counters *c, unsigned write, uint64_t stall)
{
    if (write)
        c->stall_write += stall;
    else
        c->stall_read += stall;
}

/* Hierarchy operations shared by both paths (sim.c). c is the accessing (ctx, cpu)'s counters. */
uint32_t *ms_line_record(ms_sim *sim, int level, uint64_t line);
/* The L1 miss path of one line (byte address addr) in view v: returns the serving level. */
int ms_simulate_miss(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                     ms_line_outcome *out);
/* ms_simulate_miss for a hierarchy whose levels are all LRU with order words and have L1's
 * line size, without utilisation (ms_coherence's lru_lines): the same walk, one record, the
 * fills in line. */
int ms_simulate_miss_lru(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                         ms_line_outcome *out);
/* ms_simulate_miss_lru of a three-level hierarchy (sim->nlevels == 3: the threaded x86 preset's
 * private L1, L2 and shared L3), its loops unrolled. */
int ms_simulate_miss_lru3(ms_sim *sim, const ms_view *v, uint64_t addr, unsigned write, uint32_t ctx, ms_counters *c,
                          ms_line_outcome *out);
/* One line of a reference in view v; the L1 hit is inlined. l1 and fa0 are v's L1 and its
 * shadow (passed apart so that the one-processor path addresses sim->cache[0] directly);
 * util: sim->util (a constant where the caller has one), the hit ORs sim->cur_bits into the
 * line's used mask. Returns the serving level (out is only written on a miss). */
static inline __attribute__((always_inline)) int ms_simulate_line(ms_sim *sim, const ms_view *v, ms_cache *l1,
                                                                  ms_fa *fa0, uint64_t addr, unsigned write,
                                                                  uint32_t ctx, ms_counters *c, ms_line_outcome *out,
                                                                  int util)
{
    uint64_t line = addr >> sim->l1_shift;
    int way = ms_cache_lookup(l1, line, write);
    if (way < 0) return ms_simulate_miss(sim, v, addr, write, ctx, c, out);
    if (util) l1->used[(line & l1->set_mask) * l1->ways + (uint32_t)way] |= sim->cur_bits;
    ms_fa_touch(fa0, line, ms_cache_aux(l1, line, way));
    return 0;
}
void ms_write_back(ms_sim *sim, const ms_view *v, int level, uint64_t addr, uint32_t ctx, ms_counters *c);
/* The second half of a writeback to level (one processor, line at that level's size) that
 * does not find the line there: the line is filled in dirty (ms_write_back's fill). */
void ms_write_back_fill(ms_sim *sim, int level, uint64_t line, uint32_t ctx, ms_counters *c);
/* Fold one line's outcome into a reference's (deepest serving level, first cause per level). */
void ms_merge_outcome(ms_line_outcome *merged, const ms_line_outcome *o);
/* Count a reference's misses per level and its replacement pairs (not its stall). */
static inline void ms_commit_misses(ms_sim *sim, uint32_t ctx, ms_counters *c, unsigned write, const ms_line_outcome *o)
{
    for (int k = 0; k < o->served; k++) {
        ms_level_counters *lc = &c->level[k];
        if (write)
            lc->write_misses++;
        else
            lc->read_misses++;
        lc->cause[o->cause[k]]++;
        if (o->cause[k] != MS_CAUSE_COLD && o->evictor[k])
            ms_pairs_count(&sim->pairs, (uint32_t)k, ctx, o->evictor[k] - 1, 0);
    }
}
/* Make counters of ctx exist (all processors). */
int ms_ensure_ctx(ms_sim *sim, uint32_t ctx);

/* ---- the specialised one-processor LRU path (uni_lru.c) ---- */

/* 1 if cfg is a one-processor hierarchy of LRU levels with order words (<= 16 ways) and one
 * line size: the hierarchies ms_uni_lru_line simulates. */
int ms_uni_lru_applies(const ms_hier_config *cfg);
/* One reference within L1 line `line` (already counted as a read or write on c) on such a
 * hierarchy: the whole lookup, miss path, counters and stall. Returns the serving level. */
int ms_uni_lru_line(ms_sim *sim, uint64_t line, unsigned write, uint32_t ctx, ms_counters *c);
/* Choose sim->uni_line, the instance of the path for sim's geometry (at create time). */
void ms_uni_lru_select(ms_sim *sim);
/* ms_sim_access of such a hierarchy (ms_sim.access): the window, an L1 hit in way 0 and
 * ms_uni_lru_line in one function; anything else (another processor, a new context, a
 * reference straddling lines) goes to ms_sim_access_any. */
int ms_uni_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
/* The same with spatial utilisation kept (cfg.utilisation): a separate instance, so that the
 * default path above does no mask work at all. */
int ms_uni_access_util(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
/* ms_sim_access of every hierarchy (sim.c): the general path. */
int ms_sim_access_any(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
/* The general path with spatial utilisation kept (the simulator of a cfg.utilisation run). */
int ms_sim_access_any_util(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);

/* ms_uni_access's L1 hit in way 0 whose line is not the L1 shadow's MRU line: the shadow's
 * update (where: the word next to the way). Returns 0 (the serving level). */
int ms_uni_shadow_hit(ms_sim *sim, uint64_t line, uint32_t *where);

/* ms_uni_access's common cases, to be inlined into a caller's loop (sim->uni_lru without
 * utilisation): a reference the hit window counts (the line referenced last, or found in its
 * home slot); past the window (paused or off) the rest of ms_uni_access as it is there (an L1
 * way-0 hit here, a miss through sim->uni_line); a reference the window does not find goes
 * to ms_uni_access, nothing changed yet. Exactly ms_uni_access's result and effects. */
static inline __attribute__((always_inline)) int ms_uni_access_inline(ms_sim *sim, unsigned cpu, uint64_t addr,
                                                                      uint32_t size, unsigned flags, uint32_t ctx)
{
    uint64_t line = addr >> sim->l1_shift;
    if (__builtin_expect(cpu != 0 || ctx >= sim->nctx || ((addr + size - 1) >> sim->l1_shift) != line, 0))
        return ms_uni_access(sim, cpu, addr, size, flags, ctx);
    unsigned write = flags & MS_TAG_DIRTY; /* MS_ACC_WRITE == MS_TAG_DIRTY */
    ms_window *w = &sim->win;
    ms_counters *c = &sim->ctrs[ctx];
    if (w->on) {
        if (__builtin_expect(w->pause != 0, 0)) {
            w->pause--;
        } else {
            ms_win_entry *e = w->last_entry;
            if (line != w->last_line) {
                e = &w->slot[ms_window_slot(line)];
                if (e->line != line) return ms_uni_access(sim, 0, addr, size, flags, ctx);
                e->last = ++w->seq;
                w->last_line = line;
                w->last_entry = e;
            }
            e->dirty |= (uint8_t)write;
            w->filtered++;
            ms_count_reference(c, write);
            return 0;
        }
    }
    ms_count_reference(c, write);
    ms_cache *l1 = &sim->cache[0];
    uint64_t base = (line & l1->set_mask) * l1->ways;
    uint64_t *set = l1->tags + base;
    if (__builtin_expect((set[0] >> 1) != line, 0)) return sim->uni_line(sim, line, write, ctx, c); /* per miss */
    set[0] |= write;
    if (line != sim->fa[0].mru_line) return ms_uni_shadow_hit(sim, line, l1->aux + base);
    return 0;
}

/* ---- multiprocessor (coherence.c) ---- */

int ms_coh_create(ms_sim *sim);
void ms_coh_destroy(ms_sim *sim);
/* ms_sim_access of a multiprocessor (ms_sim.access): an L1 hit needing no coherence action
 * takes a fast path, everything else the general one; ..._line64 is the instance for 64-byte
 * L1 lines and coherence units (ms_coh_select_access picks it). */
int ms_coh_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
int ms_coh_access_line64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);
/* The instance of ms_coh_access for sim's geometry (at create time). */
void ms_coh_select_access(ms_sim *sim);
void ms_coh_next_region(ms_sim *sim);
void ms_coh_finish(ms_sim *sim);
void ms_coh_each_invalidation(const ms_sim *sim, void (*fn)(const ms_invalidation *e, void *ud), void *ud);

#endif
