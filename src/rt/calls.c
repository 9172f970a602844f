/* Call edges of plugin-instrumented code: how many times each block called each function
 * (MS_RAW_CALLS), for MTOOL's call graph.
 *
 * Instrumented code writes a call word (the caller block's descriptor, MSPLUG_CALL_TAG) and
 * the callee's address before each call of a function (msplug_abi.h); the drain (plugin.c)
 * hands each pair (a run of equal pairs at once) to ms_calls_count, which adds them to the
 * pair's count in the thread data block's own open-addressing table: no lock. Tables grow by doubling into a new mapping; the
 * old one stays mapped (the dump may be reading it from another thread), and the new one is
 * published before its capacity, so a reader that sees the capacity sees the table. The dump
 * merges every data block's table (threads that exited left theirs in their data block,
 * which a later thread reuses and adds to) into one table, sorted by caller block and callee.
 *
 * Direct call sites (ABI 6): a block's first call, when direct, writes no call word; the
 * module's section of (caller block, callee) entries is registered once
 * (__memspy_register_calls) and the dump adds each entry's block total to its pair, so the
 * CALLS section reads as if every call had its word. An entry whose block has no id is a
 * discarded copy's (a COMDAT function another unit's copy replaced: its block pairs are gone).
 *
 * Entry blocks counted by their calls (ABI 7): an entry whose block has MSPLUG_CALL_ENTRY is
 * no call site but a function's entry block, whose total (ms_blocks_totals) is set to the sum
 * of the function's call edges, merged as for the CALLS section. */
#include "rt.h"
#include <sched.h>

/* The registered call-site sections (one per module), a list that only grows. */
typedef struct site_range {
    const msplug_call_site *begin, *end;
    struct site_range *next;
} site_range;
static site_range *site_ranges;
static int ranges_lock;
static int have_entries; /* a registered section holds an entry block (ABI 7) */

void __memspy_register_calls(const msplug_call_site *begin, const msplug_call_site *end)
{
    ms_runtime_init();
    if (!begin || begin >= end) return;
    for (const msplug_call_site *c = begin; c < end; c++)
        if (c->block & MSPLUG_CALL_ENTRY) __atomic_store_n(&have_entries, 1, __ATOMIC_RELEASE);
    while (__atomic_exchange_n(&ranges_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
    site_range *r = site_ranges;
    while (r && r->begin != begin) r = r->next; /* every unit of a module passes its section */
    if (!r && (r = ms_arena_alloc(sizeof *r))) {
        r->begin = begin;
        r->end = end;
        r->next = site_ranges;
        __atomic_store_n(&site_ranges, r, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&ranges_lock, 0, __ATOMIC_RELEASE);
}

typedef struct {
    uint64_t callee;
    uint64_t count;
    uint32_t block1; /* caller block id + 1; 0 = empty slot */
    uint32_t pad;
} call_slot;

struct ms_call_table {
    call_slot *slots;
    uint32_t cap, n;
};

static uint32_t slot_of(uint32_t block1, uint64_t callee, uint32_t cap)
{
    uint64_t h = (callee ^ (uint64_t)block1 << 40 ^ block1) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32) & (cap - 1);
}

/* Add count to (block1, callee) in slots (cap a power of two, never full). Returns 1 if a
 * new slot was taken. */
static int add(call_slot *slots, uint32_t cap, uint32_t block1, uint64_t callee, uint64_t count)
{
    uint32_t j = slot_of(block1, callee, cap);
    for (;; j = (j + 1) & (cap - 1)) {
        call_slot *s = &slots[j];
        if (s->block1 == block1 && s->callee == callee) {
            s->count += count;
            return 0;
        }
        if (!s->block1) {
            s->callee = callee;
            s->count = count;
            __atomic_store_n(&s->block1, block1, __ATOMIC_RELEASE);
            return 1;
        }
    }
}

/* The count of (block1, callee) in slots (cap a power of two, never full), 0 if absent. */
static uint64_t find(const call_slot *slots, uint32_t cap, uint32_t block1, uint64_t callee)
{
    for (uint32_t j = slot_of(block1, callee, cap);; j = (j + 1) & (cap - 1)) {
        if (!slots[j].block1) return 0;
        if (slots[j].block1 == block1 && slots[j].callee == callee) return slots[j].count;
    }
}

/* Make room for one more pair in d's table (doubling). Returns 0 or -1 (no memory). */
static int reserve(ms_thread_data *d)
{
    struct ms_call_table *t = d->calls;
    if (!t && !(t = d->calls = ms_arena_alloc(sizeof *t))) return -1;
    if (t->cap && (t->n + 1) * 4 <= t->cap * 3) return 0;
    uint32_t cap = t->cap ? t->cap * 2 : 256;
    call_slot *slots = ms_map((size_t)cap * sizeof *slots);
    if (!slots) return -1;
    for (uint32_t i = 0; i < t->cap; i++)
        if (t->slots[i].block1) add(slots, cap, t->slots[i].block1, t->slots[i].callee, t->slots[i].count);
    __atomic_store_n(&t->slots, slots, __ATOMIC_RELEASE); /* the old table stays mapped */
    __atomic_store_n(&t->cap, cap, __ATOMIC_RELEASE);
    return 0;
}

void ms_calls_count(ms_thread_data *d, const msplug_block *caller, uint64_t callee, uint64_t n)
{
    uint64_t id1 = caller->id;
    if (MS_UNLIKELY(!id1 || id1 > UINT32_MAX)) return; /* its module's constructor has not run yet */
    if (MS_UNLIKELY(reserve(d) < 0)) return;
    struct ms_call_table *t = d->calls;
    t->n += (uint32_t)add(t->slots, t->cap, (uint32_t)id1, callee, n);
}

/* ---- the dump ---- */

typedef struct {
    call_slot *slots;
    uint32_t cap;
    int failed;
} merged;

static void merge_data(ms_thread_data *d, void *ud)
{
    merged *m = ud;
    struct ms_call_table *t = __atomic_load_n(&d->calls, __ATOMIC_ACQUIRE);
    if (!t) return;
    uint32_t cap = __atomic_load_n(&t->cap, __ATOMIC_ACQUIRE);
    const call_slot *slots = __atomic_load_n(&t->slots, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < cap && !m->failed; i++) {
        uint32_t block1 = __atomic_load_n(&slots[i].block1, __ATOMIC_ACQUIRE);
        if (!block1) continue;
        if (!m->cap) {
            m->failed = 1; /* no room: sized below from every table's count */
            return;
        }
        add(m->slots, m->cap, block1, slots[i].callee, slots[i].count);
    }
}

static void count_data(ms_thread_data *d, void *ud)
{
    struct ms_call_table *t = __atomic_load_n(&d->calls, __ATOMIC_ACQUIRE);
    if (t) *(uint64_t *)ud += __atomic_load_n(&t->cap, __ATOMIC_ACQUIRE);
}

static int before(const call_slot *a, const call_slot *b)
{
    return a->block1 != b->block1 ? a->block1 < b->block1 : a->callee < b->callee;
}

/* Shell sort of n slots by (block, callee) (no allocation: the dump may run in a signal
 * handler's aftermath). */
static void sort_slots(call_slot *s, uint32_t n)
{
    for (uint32_t gap = n / 2; gap > 0; gap /= 2)
        for (uint32_t i = gap; i < n; i++) {
            call_slot v = s[i];
            uint32_t j = i;
            for (; j >= gap && before(&v, &s[j - gap]); j -= gap) s[j] = s[j - gap];
            s[j] = v;
        }
}

/* Add the direct call sites' counts (their blocks' totals, blk: nb of them) to m. */
static void add_sites(merged *m, const uint64_t *blk, uint32_t nb)
{
    for (const site_range *r = __atomic_load_n(&site_ranges, __ATOMIC_ACQUIRE); r; r = r->next)
        for (const msplug_call_site *c = r->begin; c < r->end; c++) {
            if (c->block & MSPLUG_CALL_ENTRY) continue; /* an entry block, no call site */
            const msplug_block *b = (const msplug_block *)(uintptr_t)c->block;
            uint64_t id1 = b ? b->id : 0;
            if (id1 && id1 <= nb && blk[id1 - 1]) add(m->slots, m->cap, (uint32_t)id1, c->callee, blk[id1 - 1]);
        }
}

/* Every thread's table and the direct call sites (blk: the blocks' totals, nb of them) merged
 * into m, a new table (m->slots NULL: no call, or no memory). */
static void merge_calls(merged *m, const uint64_t *blk, uint32_t nb)
{
    uint64_t total = 0;
    ms_threads_each_data_all(count_data, &total);
    for (const site_range *r = __atomic_load_n(&site_ranges, __ATOMIC_ACQUIRE); r; r = r->next)
        total += (uint64_t)(r->end - r->begin);
    *m = (merged){ NULL, 0, 0 };
    if (!total || total > (1u << 28)) return;
    uint32_t cap = 1;
    while (cap < 2 * total) cap *= 2;
    if (!(m->slots = ms_map((size_t)cap * sizeof(call_slot)))) return;
    m->cap = cap;
    ms_threads_each_data_all(merge_data, m);
    if (blk) add_sites(m, blk, nb);
}

void ms_calls_entries(uint64_t *total, uint32_t n)
{
    if (!__atomic_load_n(&have_entries, __ATOMIC_ACQUIRE)) return;
    merged m;
    merge_calls(&m, total, n);
    call_slot *per = m.slots ? ms_map((size_t)m.cap * sizeof(call_slot)) : NULL; /* by callee alone */
    for (uint32_t i = 0; per && i < m.cap; i++)
        if (m.slots[i].block1) add(per, m.cap, 1, m.slots[i].callee, m.slots[i].count);
    for (const site_range *r = __atomic_load_n(&site_ranges, __ATOMIC_ACQUIRE); r; r = r->next)
        for (const msplug_call_site *c = r->begin; c < r->end; c++) {
            if (!(c->block & MSPLUG_CALL_ENTRY)) continue;
            const msplug_block *b = (const msplug_block *)(uintptr_t)(c->block & ~MSPLUG_CALL_ENTRY);
            uint64_t id1 = b->id;
            if (id1 && id1 <= n) total[id1 - 1] = per ? find(per, m.cap, 1, c->callee) : 0;
        }
    if (per) ms_unmap(per, (size_t)m.cap * sizeof(call_slot));
    if (m.slots) ms_unmap(m.slots, (size_t)m.cap * sizeof(call_slot));
}

void ms_calls_put_raw(ms_raw_writer *w)
{
    uint32_t nb;
    uint64_t *blk = ms_blocks_totals(&nb);
    merged m;
    merge_calls(&m, blk, nb);
    if (blk) ms_unmap(blk, (size_t)nb * sizeof *blk);
    if (!m.slots) return;
    uint32_t cap = m.cap, n = 0;
    for (uint32_t i = 0; i < cap; i++)
        if (m.slots[i].block1) m.slots[n++] = m.slots[i];
    sort_slots(m.slots, n);
    ms_raw_section_begin(w, MS_RAW_CALLS);
    ms_raw_put_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        ms_raw_put_u32(w, m.slots[i].block1 - 1);
        ms_raw_put_u64(w, m.slots[i].callee);
        ms_raw_put_u64(w, m.slots[i].count);
    }
    ms_raw_section_end(w);
    ms_unmap(m.slots, (size_t)cap * sizeof(call_slot));
}
