/* Private parts of the simulator: one cache level (cache.c), the fully associative LRU shadow
 * used by the 3C rule (fa_lru.c) and the sparse per-line metadata (linemeta.c). The hot
 * lookups are static inline so the L1-hit path of ms_sim_access compiles to a few instructions. */
#ifndef MEMSPY_SIM_INTERNAL_H
#define MEMSPY_SIM_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "sim.h"

/* ---- memory: the caller's allocator plus a byte count for ms_sim_memory ---- */

typedef struct {
    ms_allocator fn;
    size_t bytes;
} ms_mem;

static inline void *ms_mem_alloc(ms_mem *m, size_t bytes)
{
    void *p = m->fn.alloc(m->fn.ud, bytes);
    if (p)
        m->bytes += bytes;
    return p;
}

static inline void ms_mem_release(ms_mem *m, void *p, size_t bytes)
{
    if (p) {
        m->fn.release(m->fn.ud, p, bytes);
        m->bytes -= bytes;
    }
}

/* ---- one set-associative level ---- */

/* A way holds (line << 1) | dirty; empty ways hold MS_TAG_EMPTY (line numbers are < 2^61). */
#define MS_TAG_EMPTY UINT64_MAX
#define MS_TAG_DIRTY 1u
#define MS_ORDER_MAX_WAYS 16

typedef struct {
    uint64_t *tags;        /* nsets * ways; for LRU way 0 of a set holds its MRU line */
    uint64_t *order;       /* LRU sets of <= MS_ORDER_MAX_WAYS ways: per set, its recency order
                            * as 4-bit way numbers, most recent first (cache.c); else NULL */
    uint32_t *aux;         /* optional: one word per way that travels with the line (L1 keeps
                            * the line's shadow node there), NULL if not asked for */
    uint64_t *plru_bits;   /* PLRU only: tree node n of set s is bit s*ways + n (n = 1..ways-1) */
    uint64_t set_mask;     /* nsets - 1 */
    uint32_t ways;
    ms_policy policy;
    uint64_t rng;          /* xorshift64 state (random policy), seeded per level: deterministic */
    size_t tags_bytes, order_bytes, aux_bytes, plru_bytes;
} ms_cache;

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

/* ---- fully associative LRU shadow (3C rule) ---- */

/* The shadow is a recency list threaded through a fixed node array. Finding a line's node is
 * the caller's business: the simulator keeps each line's node index ("where") in its per-line
 * record, or next to the L1 way holding the line, and the shadow validates it against the
 * node's line, so a stale index costs nothing but a miss. A keyed shadow (ms_fa_init) also
 * keeps its own line -> node hash for callers without per-line storage (ms_fa_access). */
typedef struct {
    uint64_t line;         /* MS_TAG_EMPTY while unused */
    uint32_t prev, next;   /* towards MRU / towards LRU; MS_FA_NIL at the ends */
} ms_fa_node;

#define MS_FA_NIL UINT32_MAX

typedef struct {
    ms_fa_node *nodes;     /* capacity nodes, the first `used` are live */
    uint32_t *slots;       /* keyed only: open addressing (linear probing), node + 1, 0 = free */
    uint64_t slot_mask;
    unsigned hash_shift;   /* 64 - log2(number of slots) */
    uint32_t capacity, used, head, tail;   /* head = MRU, tail = LRU */
    uint64_t mru_line;     /* line of the head node, or MS_TAG_EMPTY */
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

/* Move node n to the MRU end. */
static inline void ms_fa_move_to_front(ms_fa *fa, uint32_t n)
{
    if (n == fa->head)
        return;
    ms_fa_unlink(fa, n);
    ms_fa_push_front(fa, n);
}

/* Out-of-line part of ms_fa_touch: insert line (absent) as MRU, dropping the LRU line when
 * full, and return its node. */
uint32_t ms_fa_insert(ms_fa *fa, uint64_t line);

/* Reference line, whose node index (if present) the caller keeps in *where: returns 1 if it
 * was present (hit), 0 if not; afterwards it is the MRU line and *where holds its node. O(1),
 * no hash: one node load when *where is right. *where may hold anything for an absent line. */
static inline int ms_fa_touch(ms_fa *fa, uint64_t line, uint32_t *where)
{
    if (line == fa->mru_line)   /* already MRU: nothing changes (the key speed-up) */
        return 1;
    uint32_t n = *where;
    if (n < fa->capacity && fa->nodes[n].line == line) {
        ms_fa_move_to_front(fa, n);
        return 1;
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

typedef struct {
    uint64_t chunk;        /* chunk number + 1, 0 = free slot */
    uint32_t *words;       /* MS_META_CHUNK_LINES * words_per_line words */
} ms_meta_slot;

#define MS_META_CHUNK_SHIFT 9
#define MS_META_CHUNK_LINES (1u << MS_META_CHUNK_SHIFT)
#define MS_META_RECENT 64   /* direct-mapped cache of recently used chunks (power of two) */

typedef struct {
    ms_meta_slot *slots;   /* open addressing hash of chunks */
    size_t nslots, nchunks;
    ms_meta_slot recent[MS_META_RECENT];   /* chunk c is cached in entry c % MS_META_RECENT */
    unsigned words_per_line;
    ms_mem *mem;
} ms_linemeta;

void ms_linemeta_init(ms_linemeta *lm, unsigned words_per_line, ms_mem *mem);
void ms_linemeta_free(ms_linemeta *lm);

/* The words of line key (created zeroed on first use), or NULL when out of memory. */
uint32_t *ms_linemeta_lookup_slow(ms_linemeta *lm, uint64_t key);

static inline uint32_t *ms_linemeta_lookup(ms_linemeta *lm, uint64_t key)
{
    uint64_t chunk = (key >> MS_META_CHUNK_SHIFT) + 1;
    const ms_meta_slot *e = &lm->recent[chunk & (MS_META_RECENT - 1)];
    if (e->chunk == chunk)
        return e->words + (key & (MS_META_CHUNK_LINES - 1)) * lm->words_per_line;
    return ms_linemeta_lookup_slow(lm, key);
}

#endif
