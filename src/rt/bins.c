/* Data bins: the table of every bin (stable ids, never removed) and the interning of HEAP
 * bins (allocation site + call path), MMAP bins (site + call path + file), MAPPING bins
 * (label) and STACK bins (function). Interning takes one lock;
 * each thread first looks in its own small direct-mapped cache, so the lock is only taken
 * the first time a thread meets a site or function. Bin 0 is OTHER. */
#include "rt.h"
#include "../format/raw.h"
#include <pthread.h>

#define CHUNK_BINS 4096u
#define MAX_CHUNKS 1024u

static ms_bin *chunks[MAX_CHUNKS];
static uint32_t nbins; /* published with release stores */
static pthread_mutex_t bins_lock = PTHREAD_MUTEX_INITIALIZER;

/* Open-addressing index of interned (HEAP, STACK) bins: slot holds bin id, 0 = empty. */
static uint32_t *index_slots;
static uint32_t index_cap, index_used;

uint32_t ms_bins_count(void) { return __atomic_load_n(&nbins, __ATOMIC_ACQUIRE); }

ms_bin *ms_bin_get(uint32_t id) { return &chunks[id / CHUNK_BINS][id % CHUNK_BINS]; }

/* A new zeroed bin (lock held). Returns its id, 0 if out of memory. */
static uint32_t new_bin_locked(uint8_t kind)
{
    uint32_t id = nbins;
    if (id / CHUNK_BINS >= MAX_CHUNKS) return 0;
    if (!chunks[id / CHUNK_BINS]) {
        chunks[id / CHUNK_BINS] = ms_map(CHUNK_BINS * sizeof(ms_bin));
        if (!chunks[id / CHUNK_BINS]) return 0;
    }
    ms_bin_get(id)->kind = kind;
    return id;
}

static void publish_locked(uint32_t id) { __atomic_store_n(&nbins, id + 1, __ATOMIC_RELEASE); }

int ms_bins_init(void)
{
    if (nbins) return 0;
    pthread_mutex_lock(&bins_lock);
    int rc = -1;
    if (chunks[0] || (chunks[0] = ms_map(CHUNK_BINS * sizeof(ms_bin)))) {
        chunks[0][0].kind = MS_BIN_OTHER;
        publish_locked(0);
        rc = 0;
    }
    pthread_mutex_unlock(&bins_lock);
    return rc;
}

uint32_t ms_bins_add_global(uint64_t addr, uint64_t size, uint32_t module, const char *name)
{
    return ms_bins_add_variable(MS_BIN_GLOBAL, addr, size, module, name);
}

uint32_t ms_bins_add_variable(uint8_t kind, uint64_t addr, uint64_t size, uint32_t module, const char *name)
{
    pthread_mutex_lock(&bins_lock);
    uint32_t id = new_bin_locked(kind);
    if (id) {
        ms_bin *b = ms_bin_get(id);
        b->addr = addr;
        b->size = size;
        b->module = module;
        b->name = name;
        publish_locked(id);
    }
    pthread_mutex_unlock(&bins_lock);
    return id;
}

/* ---- interning ---- */

typedef struct {
    uint8_t kind;
    uint16_t depth;
    uint64_t pc;
    const uint64_t *path;
    uint64_t tag; /* MMAP, MAPPING: hash of the file path / label */
} bin_key;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdull;
}

static uint64_t key_hash(const bin_key *k)
{
    uint64_t h = mix(mix(k->kind, k->pc), k->tag);
    for (uint16_t i = 0; i < k->depth; i++) h = mix(h, k->path[i]);
    return h | 1; /* never 0: 0 marks an empty cache slot */
}

static int key_matches(const ms_bin *b, const bin_key *k)
{
    if (b->kind != k->kind || b->pc != k->pc || b->depth != k->depth || b->tag != k->tag) return 0;
    for (uint16_t i = 0; i < k->depth; i++)
        if (b->path[i] != k->path[i]) return 0;
    return 1;
}

static int index_grow_locked(void)
{
    uint32_t cap = index_cap ? index_cap * 2 : 1024;
    uint32_t *slots = ms_map(cap * sizeof *slots);
    if (!slots) return -1;
    for (uint32_t i = 0; i < index_cap; i++) {
        uint32_t id = index_slots[i];
        if (!id) continue;
        const ms_bin *b = ms_bin_get(id);
        bin_key k = { b->kind, b->depth, b->pc, b->path, b->tag };
        uint32_t j = (uint32_t)key_hash(&k) & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = id;
    }
    ms_unmap(index_slots, index_cap * sizeof *index_slots);
    index_slots = slots;
    index_cap = cap;
    return 0;
}

static uint32_t intern_locked(const bin_key *k, uint64_t hash)
{
    if (index_used * 2 >= index_cap && index_grow_locked() < 0) return 0;
    uint32_t j = (uint32_t)hash & (index_cap - 1);
    for (; index_slots[j]; j = (j + 1) & (index_cap - 1))
        if (key_matches(ms_bin_get(index_slots[j]), k)) return index_slots[j];
    uint32_t id = new_bin_locked(k->kind);
    if (!id) return 0;
    ms_bin *b = ms_bin_get(id);
    b->pc = k->pc;
    b->tag = k->tag;
    b->depth = k->depth;
    for (uint16_t i = 0; i < k->depth; i++) b->path[i] = k->path[i];
    publish_locked(id);
    index_slots[j] = id;
    index_used++;
    return id;
}

/* Bin for key k: the thread's cache, else the shared index. */
static uint32_t intern(ms_bin_cache_slot *cache, const bin_key *k)
{
    uint64_t hash = key_hash(k);
    ms_bin_cache_slot *slot = &cache[(hash >> 7) & (MS_CACHE_SLOTS - 1)];
    if (slot->key == hash && key_matches(ms_bin_get(slot->bin), k)) return slot->bin;
    uint8_t prev = ms_busy_begin();
    pthread_mutex_lock(&bins_lock);
    uint32_t id = intern_locked(k, hash);
    pthread_mutex_unlock(&bins_lock);
    ms_busy_end(prev);
    if (id) {
        slot->key = hash;
        slot->bin = id;
    }
    return id;
}

uint32_t ms_bins_stack(ms_thread *t, uintptr_t func_pc)
{
    bin_key k = { MS_BIN_STACK, 0, func_pc, NULL, 0 };
    return intern(t->data->stack_cache, &k);
}

/* FNV-1a of a string: the key of a file or label (64 bits: two texts of one hash, never seen
 * in practice, would share a bin). */
static uint64_t text_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
    return h;
}

/* The bin interned under k whose name is text (set once, on creation). */
static uint32_t intern_named(ms_thread *t, bin_key *k, const char *text)
{
    k->tag = text_hash(text);
    uint32_t id = intern(t->data->heap_cache, k);
    if (!id) return 0;
    ms_bin *b = ms_bin_get(id);
    if (!__atomic_load_n(&b->name, __ATOMIC_ACQUIRE)) {
        const char *copy = ms_arena_strdup(text);
        const char *expected = NULL;
        __atomic_compare_exchange_n(&b->name, &expected, copy, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    }
    return id;
}

uint32_t ms_bins_stack_var(ms_thread *t, uintptr_t func_pc, const char *name)
{
    bin_key k = { MS_BIN_STACKVAR, 0, func_pc, NULL, 0 };
    return intern_named(t, &k, name);
}

uint32_t ms_bins_mapping(ms_thread *t, const char *label)
{
    bin_key k = { MS_BIN_MAPPING, 0, 0, NULL, 0 };
    return intern_named(t, &k, label);
}

/* The call path of the calling thread, innermost first, recursion collapsed: first the frames
 * of uninstrumented code between the allocation's site and the shadow stack (nativepath.c). */
static uint16_t call_path(ms_thread *t, uintptr_t site_pc, uint64_t *path)
{
    uint16_t depth = ms_native_path(t, site_pc, path);
    for (uint32_t i = t->depth; i > 0 && depth < MS_MAX_PATH; i--) {
        uint64_t ra = t->frames[i - 1].call_ra;
        if (depth && path[depth - 1] == ra) continue; /* collapse recursion */
        path[depth++] = ra;
    }
    return depth;
}

uint32_t ms_bins_mmap(ms_thread *t, uintptr_t site_pc, const char *file)
{
    uint64_t path[MS_MAX_PATH];
    bin_key k = { MS_BIN_MMAP, call_path(t, site_pc, path), site_pc, path, 0 };
    return intern_named(t, &k, file);
}

uint32_t ms_bins_heap(ms_thread *t, uintptr_t site_pc)
{
    if (MS_UNLIKELY(t->longjmp_pending)) ms_shadow_stack_resync(t, site_pc - 1);
    uint64_t path[MS_MAX_PATH];
    bin_key k = { MS_BIN_HEAP, call_path(t, site_pc, path), site_pc, path, 0 };
    return intern(t->data->heap_cache, &k);
}

/* Add usable live bytes to b and raise its peak. */
static void add_live(ms_bin *b, uint64_t usable)
{
    uint64_t live = __atomic_add_fetch(&b->live, usable, __ATOMIC_RELAXED);
    uint64_t peak = __atomic_load_n(&b->peak, __ATOMIC_RELAXED);
    while (live > peak && !__atomic_compare_exchange_n(&b->peak, &peak, live, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}

void ms_bins_heap_alloc(uint32_t bin, uint64_t requested, uint64_t usable)
{
    ms_bin *b = ms_bin_get(bin);
    __atomic_fetch_add(&b->objects, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&b->bytes, requested, __ATOMIC_RELAXED);
    add_live(b, usable);
}

void ms_bins_heap_resize(uint32_t bin, uint64_t grown_requested, uint64_t new_usable)
{
    ms_bin *b = ms_bin_get(bin);
    __atomic_fetch_add(&b->bytes, grown_requested, __ATOMIC_RELAXED);
    add_live(b, new_usable);
}

void ms_bins_heap_free(uint32_t bin, uint64_t usable)
{
    ms_bin *b = ms_bin_get(bin);
    if (b->kind == MS_BIN_HEAP || b->kind == MS_BIN_MMAP) __atomic_fetch_sub(&b->live, usable, __ATOMIC_RELAXED);
}

static uint64_t alloc_seq; /* the program's blocks allocated so far */

void ms_bins_heap_placed(uint32_t bin, uintptr_t p, uint64_t requested)
{
    ms_bin *b = ms_bin_get(bin);
    uint64_t word = ((const uint64_t *)p)[-1]; /* glibc's chunk size | NON_MAIN_ARENA 4 | IS_MMAPPED 2 */
    uint64_t seq = __atomic_add_fetch(&alloc_seq, 1, __ATOMIC_RELAXED), none = 0;
    if (word & 2) __atomic_fetch_add(&b->mapped, 1, __ATOMIC_RELAXED);
    if (__atomic_load_n(&b->first_seq, __ATOMIC_RELAXED) ||
        !__atomic_compare_exchange_n(&b->first_seq, &none, seq, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return;
    b->first_addr = p;
    b->first_request = requested;
    b->first_chunk = word;
}

int ms_bin_is_heap(uint32_t bin)
{
    return bin != MS_BIN_SHARED && bin < ms_bins_count() && ms_bin_get(bin)->kind == MS_BIN_HEAP;
}
