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

typedef struct {
    uint64_t *tags;        /* nsets * ways; for LRU each set is ordered MRU first */
    uint64_t *plru_bits;   /* PLRU only: tree node n of set s is bit s*ways + n (n = 1..ways-1) */
    uint64_t set_mask;     /* nsets - 1 */
    uint32_t ways;
    ms_policy policy;
    uint64_t rng;          /* xorshift64 state (random policy), seeded per level: deterministic */
    size_t tags_bytes, plru_bytes;
} ms_cache;

int ms_cache_init(ms_cache *c, const ms_level_config *cfg, unsigned level, ms_mem *mem);
void ms_cache_free(ms_cache *c, ms_mem *mem);

/* Non-LRU (or non-MRU LRU) part of ms_cache_lookup. */
int ms_cache_lookup_slow(ms_cache *c, uint64_t *set, uint64_t line, unsigned dirty);

/* Look line up as a reference: on a hit update the policy state, OR dirty into the line and
 * return 1; on a miss return 0 and change nothing. */
static inline int ms_cache_lookup(ms_cache *c, uint64_t line, unsigned dirty)
{
    uint64_t *set = c->tags + (line & c->set_mask) * c->ways;
    if ((set[0] >> 1) == line && c->policy == MS_POLICY_LRU) {
        set[0] |= dirty;
        return 1;
    }
    return ms_cache_lookup_slow(c, set, line, dirty);
}

/* Insert line (absent) as most recently used with the given dirty bit, evicting a way chosen
 * by the policy. Returns the victim's tag, MS_TAG_EMPTY if an empty way was used. */
uint64_t ms_cache_fill(ms_cache *c, uint64_t line, unsigned dirty);

/* Set the dirty bit of line if present, without touching the replacement state (a writeback
 * is not a reference). Returns 1 if present. */
int ms_cache_mark_dirty(ms_cache *c, uint64_t line);

/* 1 if line is present (no state change); for tests and assertions. */
int ms_cache_contains(const ms_cache *c, uint64_t line);

/* ---- fully associative LRU shadow (3C rule) ---- */

typedef struct {
    uint64_t line;
    uint32_t prev, next;   /* towards MRU / towards LRU; MS_FA_NIL at the ends */
} ms_fa_node;

#define MS_FA_NIL UINT32_MAX

typedef struct {
    ms_fa_node *nodes;     /* capacity nodes, the first `used` are live */
    uint32_t *slots;       /* open addressing (linear probing): node index + 1, 0 = free */
    uint64_t slot_mask;
    unsigned hash_shift;   /* 64 - log2(number of slots) */
    uint32_t capacity, used, head, tail;   /* head = MRU, tail = LRU */
    uint64_t mru_line;     /* line of the head node, or MS_TAG_EMPTY */
    size_t nodes_bytes, slots_bytes;
} ms_fa;

int ms_fa_init(ms_fa *fa, uint32_t capacity, ms_mem *mem);
void ms_fa_free(ms_fa *fa, ms_mem *mem);

/* Reference line: returns 1 if it was present (hit), 0 if not; afterwards it is the MRU line
 * and, on a miss with a full shadow, the LRU line has been dropped. O(1). */
int ms_fa_access_slow(ms_fa *fa, uint64_t line);

static inline int ms_fa_access(ms_fa *fa, uint64_t line)
{
    if (line == fa->mru_line)   /* already MRU: nothing changes (the key speed-up) */
        return 1;
    return ms_fa_access_slow(fa, line);
}

/* ---- sparse per-line metadata ---- */

/* One uint32 per (line, level): bit 31 = the level has held the line, bits 0..30 = ctx + 1 of
 * the context that last evicted it from the level (0 = unknown). */
#define MS_META_HELD 0x80000000u
#define MS_META_EVICTOR_MASK 0x7fffffffu

typedef struct {
    uint64_t chunk;        /* chunk number + 1, 0 = free slot */
    uint32_t *words;       /* MS_META_CHUNK_LINES * nlevels words */
} ms_meta_slot;

typedef struct {
    ms_meta_slot *slots;   /* open addressing hash of chunks */
    size_t nslots, nchunks;
    uint64_t last_chunk;   /* one-entry cache of the last chunk looked up */
    uint32_t *last_words;
    unsigned nlevels;
    ms_mem *mem;
} ms_linemeta;

#define MS_META_CHUNK_SHIFT 9
#define MS_META_CHUNK_LINES (1u << MS_META_CHUNK_SHIFT)

void ms_linemeta_init(ms_linemeta *lm, unsigned nlevels, ms_mem *mem);
void ms_linemeta_free(ms_linemeta *lm);

/* The nlevels words of line key (created zeroed on first use), or NULL when out of memory. */
uint32_t *ms_linemeta_lookup_slow(ms_linemeta *lm, uint64_t key);

static inline uint32_t *ms_linemeta_lookup(ms_linemeta *lm, uint64_t key)
{
    uint64_t chunk = (key >> MS_META_CHUNK_SHIFT) + 1;
    if (chunk == lm->last_chunk)
        return lm->last_words + (key & (MS_META_CHUNK_LINES - 1)) * lm->nlevels;
    return ms_linemeta_lookup_slow(lm, key);
}

#endif
