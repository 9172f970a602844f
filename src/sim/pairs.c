/* Counted key tuples: the replacement-cause pairs (level, victim, evictor) and the
 * invalidation pairs (victim ctx, victim cpu, writer ctx, writer cpu). An open-addressing hash
 * of 4-word keys (load factor <= 1/2) fronted by the last tuple counted per first key modulo
 * 4 (for replacement pairs: per level; a run of misses repeats it) and a small direct-mapped table of tuples counted lately (the levels' pairs of
 * one miss alternate); reported sorted by key, so the order is deterministic. */
#include <string.h>

#include "sim_internal.h"

void ms_pairs_init(ms_pairs *t, ms_mem *mem)
{
    memset(t, 0, sizeof *t);
    t->mem = mem;
}

void ms_pairs_free(ms_pairs *t)
{
    ms_mem_release(t->mem, t->slots, t->nslots * sizeof(ms_pair));
    t->slots = NULL;
    t->nslots = t->n = 0;
    memset(t->last, 0, sizeof t->last);
    memset(t->recent, 0, sizeof t->recent);
}

static int same_key(const uint32_t *a, const uint32_t *b)
{
    return a[0] == b[0] && a[1] == b[1] && a[2] == b[2] && a[3] == b[3];
}

static size_t home_slot(const uint32_t *key, size_t nslots)
{
    uint64_t h = ((uint64_t)key[0] << 32 | key[1]) * 0x9E3779B97F4A7C15ull;
    h ^= ((uint64_t)key[2] << 32 | key[3]) * 0xBF58476D1CE4E5B9ull;
    return (size_t)(h >> 32) & (nslots - 1);
}

static ms_pair *probe(ms_pair *slots, size_t nslots, const uint32_t *key)
{
    size_t s = home_slot(key, nslots);
    while (slots[s].count && !same_key(slots[s].key, key)) s = (s + 1) & (nslots - 1);
    return &slots[s];
}

static int grow(ms_pairs *t)
{
    size_t nslots = t->nslots ? t->nslots * 2 : 256;
    ms_pair *slots = ms_mem_alloc(t->mem, nslots * sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < t->nslots; i++)
        if (t->slots[i].count) *probe(slots, nslots, t->slots[i].key) = t->slots[i];
    ms_mem_release(t->mem, t->slots, t->nslots * sizeof *slots);
    t->slots = slots;
    memset(t->last, 0, sizeof t->last);
    memset(t->recent, 0, sizeof t->recent);
    t->nslots = nslots;
    return 0;
}

void ms_pairs_count_new(ms_pairs *t, uint32_t k0, uint32_t k1, uint32_t k2, uint32_t k3)
{
    const uint32_t key[4] = { k0, k1, k2, k3 };
    /* A tuple counted before is found first, so that whether it is counted never depends on
     * the caches in front (only a new tuple is lost when the table cannot grow). */
    ms_pair *e = t->nslots ? probe(t->slots, t->nslots, key) : NULL;
    if (!e || !e->count) {
        if (2 * (t->n + 1) > t->nslots) {
            if (grow(t) != 0) {
                t->lost++;
                return;
            }
            e = probe(t->slots, t->nslots, key);
        }
        memcpy(e->key, key, sizeof key);
        t->n++;
    }
    e->count++;
    t->last[k0 & (MS_PAIRS_LAST - 1)] = e;
    t->recent[ms_pairs_recent(k0, k1, k2, k3)] = e;
}

static int key_less(const ms_pair *a, const ms_pair *b)
{
    for (int i = 0; i < 4; i++)
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i];
    return 0;
}

static void sift_down(const ms_pair **v, size_t root, size_t n)
{
    for (;;) {
        size_t child = 2 * root + 1;
        if (child >= n) return;
        if (child + 1 < n && key_less(v[child], v[child + 1])) child++;
        if (!key_less(v[root], v[child])) return;
        const ms_pair *tmp = v[root];
        v[root] = v[child];
        v[child] = tmp;
        root = child;
    }
}

/* Heapsort: no libc qsort (it may call malloc, which the runtime must avoid). */
static void sort_pairs(const ms_pair **v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;) sift_down(v, i, n);
    for (size_t end = n; end-- > 1;) {
        const ms_pair *tmp = v[0];
        v[0] = v[end];
        v[end] = tmp;
        sift_down(v, 0, end);
    }
}

void ms_pairs_each(const ms_pairs *t, void (*fn)(const ms_pair *p, void *ud), void *ud)
{
    if (!t->n) return;
    ms_mem mem = *t->mem; /* scratch: not part of the simulator's lasting footprint */
    size_t bytes = t->n * sizeof(const ms_pair *);
    const ms_pair **order = ms_mem_alloc(&mem, bytes);
    size_t n = 0;
    for (size_t i = 0; i < t->nslots; i++) {
        if (!t->slots[i].count) continue;
        if (order)
            order[n++] = &t->slots[i];
        else
            fn(&t->slots[i], ud); /* no memory to sort: table order, still deterministic */
    }
    if (!order) return;
    sort_pairs(order, n);
    for (size_t i = 0; i < n; i++) fn(order[i], ud);
    ms_mem_release(&mem, order, bytes);
}
