/* Basic blocks and loops of plugin-instrumented code (ABI version 2, src/rt/msplug_abi.h):
 * the registry of block and loop descriptors, exact per-thread execution counts, the WORK
 * events of the recorded streams, and the raw sections BLOCKS and LOOPS.
 *
 * Registration (constructors, dlopen): every block descriptor gets a run-global id, in the
 * order of the modules' (pc, block) sections, so the same program gets the same ids; a
 * function's loops get consecutive ids when its first block is registered.
 *
 * Counting: plugin.c's drain hands each block word to ms_blocks_count, which adds one to the
 * thread's pending count of that block (a list of the blocks pending since the last WORK
 * events keeps the emission proportional to the blocks executed, not to the program's size).
 * In threads mode the pending counts become WORK events (format/stream.h) before every
 * synchronisation event the thread records and when its plugin buffer fills; elsewhere they
 * stay pending and the dump adds them to the totals. Per-thread arrays live in the thread's
 * data block (reused by later threads, so totals are sums over data blocks); they come from
 * mmap, grow when a dlopen adds blocks, and old arrays are never unmapped (the dump may read
 * another thread's arrays while it runs).
 *
 * The counting copies of optimised code (both plugins) count without words (ABI 5): each
 * thread adds to its own array, __memspy_counts, which __memspy_counts_init attaches to the
 * thread's data block (so a later thread reusing the block adds to the same counters, as its
 * pending counts fold into the same totals) and which the dump sums with the rest. */
#include "rt.h"
#include "../format/raw.h"
#include <sched.h>
#include <sys/mman.h>
#include "../format/stream.h"

/* Registry capacity: descriptors of every block and loop of the program (virtual, reserved
 * lazily by the kernel). */
#define MAX_BLOCKS (1u << 24)
#define MAX_LOOPS (1u << 22)

typedef struct {
    const msplug_loop *desc;
    uint32_t parent; /* run-global id, UINT32_MAX none */
} loop_entry;

int ms_count_only;

static const msplug_block **blocks; /* by id */
static loop_entry *loops;           /* by id */
static uint32_t nblocks, nloops;
static int reg_lock;

static void lock(void)
{
    while (__atomic_exchange_n(&reg_lock, 1, __ATOMIC_ACQUIRE)) sched_yield();
}
static void unlock(void) { __atomic_store_n(&reg_lock, 0, __ATOMIC_RELEASE); }

uint32_t ms_blocks_registered(void) { return __atomic_load_n(&nblocks, __ATOMIC_ACQUIRE); }

/* Ids for the loops of the table at address table (lock held). */
static void register_loops(uint64_t table)
{
    msplug_loop_table *h = (msplug_loop_table *)(uintptr_t)table;
    if (h->first_id || !h->nloops || h->nloops > MAX_LOOPS - nloops) return;
    const msplug_loop *l = (const msplug_loop *)(h + 1);
    uint32_t first = nloops;
    for (uint64_t i = 0; i < h->nloops; i++) {
        uint32_t parent = MSPLUG_LOOP_PARENT(l[i].info);
        loops[first + i].desc = &l[i];
        loops[first + i].parent = parent == MSPLUG_NO_LOOP || parent >= h->nloops ? UINT32_MAX : first + parent;
    }
    h->first_id = first + 1u;
    __atomic_store_n(&nloops, first + (uint32_t)h->nloops, __ATOMIC_RELEASE);
}

void __memspy_register_blocks(const msplug_pc_pair *begin, const msplug_pc_pair *end)
{
    ms_runtime_init();
    if (!begin || begin >= end) return;
    lock();
    if (!blocks) {
        blocks = ms_map_flags(MAX_BLOCKS * sizeof *blocks, MAP_NORESERVE);
        loops = ms_map_flags(MAX_LOOPS * sizeof *loops, MAP_NORESERVE);
        if (!blocks || !loops) {
            unlock();
            return;
        }
    }
    uint32_t n = nblocks;
    for (const msplug_pc_pair *p = begin; p < end && n < MAX_BLOCKS; p++) {
        msplug_block *b = (msplug_block *)(uintptr_t)p->site;
        if (!b || b->id) continue; /* every unit of a module passes the module's whole section */
        b->pc = p->pc;
        if (b->loop_table) register_loops(b->loop_table);
        blocks[n] = b;
        b->id = ++n;
    }
    __atomic_store_n(&nblocks, n, __ATOMIC_RELEASE);
    unlock();
}

/* --focus on loops: per loop id, 0 not matched yet, 1 out of focus, 2 in focus (itself or a
 * loop around it named); loops [0, focus_done) are matched. */
static uint8_t *loop_focus;
static uint32_t focus_done;

/* Whether loop id (or its parents) is named: loop_focus of its parents first (lock held). */
static int loop_named(uint32_t id, const uint32_t *first, const uint32_t *last, uint32_t depth)
{
    if (id == UINT32_MAX || depth > MAX_LOOPS) return 0;
    if (loop_focus[id] || id < focus_done || id >= nloops) return loop_focus[id] == 2;
    const msplug_block *hb = (const msplug_block *)(uintptr_t)loops[id].desc->header;
    int named =
        hb && first[id - focus_done] && ms_focus_names_loop(hb->pc, first[id - focus_done], last[id - focus_done]);
    named |= loop_named(loops[id].parent, first, last, depth + 1);
    loop_focus[id] = named ? 2 : 1;
    return named;
}

void ms_blocks_focus_resolve(void)
{
    if (!ms_focus_loops || __atomic_load_n(&focus_done, __ATOMIC_ACQUIRE) == __atomic_load_n(&nloops, __ATOMIC_ACQUIRE))
        return;
    lock();
    uint32_t nl = nloops, nb = nblocks, n = nl - focus_done;
    if (!loop_focus) loop_focus = ms_map_flags(MAX_LOOPS, MAP_NORESERVE);
    uint32_t *first = n ? ms_map((size_t)n * 2 * sizeof *first) : NULL, *last = first ? first + n : NULL;
    if (loop_focus && first) {
        /* a loop's lines: those of its blocks and of its nested loops' blocks (analysis/blocks.c) */
        for (uint32_t i = 0; i < nb; i++) {
            const msplug_block *b = blocks[i];
            uint32_t loop = MSPLUG_BLOCK_LOOP(b->info), lo = (uint32_t)b->lines, hi = (uint32_t)(b->lines >> 32);
            const msplug_loop_table *h = (const msplug_loop_table *)(uintptr_t)b->loop_table;
            if (!lo || loop == MSPLUG_NO_LOOP || !h || !h->first_id || loop >= h->nloops) continue;
            if (hi < lo) hi = lo;
            for (uint32_t l = (uint32_t)(h->first_id - 1 + loop), guard = 0; l != UINT32_MAX && guard < nl;
                 l = loops[l].parent, guard++) {
                if (l < focus_done || l >= nl) continue;
                uint32_t k = l - focus_done;
                if (!first[k] || lo < first[k]) first[k] = lo;
                if (hi > last[k]) last[k] = hi;
            }
        }
        for (uint32_t id = focus_done; id < nl; id++) loop_named(id, first, last, 0);
        __atomic_store_n(&focus_done, nl, __ATOMIC_RELEASE);
    }
    if (first) ms_unmap(first, (size_t)n * 2 * sizeof *first);
    unlock();
}

int ms_blocks_in_focus(const msplug_block *b)
{
    uint32_t loop = MSPLUG_BLOCK_LOOP(b->info);
    const msplug_loop_table *h = (const msplug_loop_table *)(uintptr_t)b->loop_table;
    if (loop == MSPLUG_NO_LOOP || !h || !h->first_id || loop >= h->nloops) return 0;
    uint32_t id = (uint32_t)(h->first_id - 1 + loop);
    if (id >= __atomic_load_n(&focus_done, __ATOMIC_ACQUIRE)) ms_blocks_focus_resolve();
    return loop_focus && id < __atomic_load_n(&focus_done, __ATOMIC_ACQUIRE) && loop_focus[id] == 2;
}

__thread uint64_t *__memspy_counts __attribute__((tls_model("initial-exec")));

/* Where the counters of a thread the runtime cannot adopt go (the runtime's own threads, a
 * thread's exit after its data block went back): shared, never read. */
static uint64_t *spare_counts;
static uint64_t spare_fallback[1u << 16];

uint64_t *__memspy_counts_init(void)
{
    ms_thread *t = &ms_tls;
    if (t->mode != MS_T_BUSY && t->mode != MS_T_DEAD && ms_thread_can_record(t) && t->data) {
        ms_thread_data *d = t->data;
        /* every id the registry can give (MAX_BLOCKS: virtual, the kernel maps what is used),
         * so that a dlopen never moves an array a running function holds */
        if (!d->blk_direct) d->blk_direct = ms_map_flags(((size_t)MAX_BLOCKS + 1) * sizeof(uint64_t), MAP_NORESERVE);
        if (d->blk_direct) return __memspy_counts = d->blk_direct;
    }
    uint64_t *s = __atomic_load_n(&spare_counts, __ATOMIC_ACQUIRE);
    if (!s) {
        uint64_t *m = ms_map_flags(((size_t)MAX_BLOCKS + 1) * sizeof(uint64_t), MAP_NORESERVE), *none = NULL;
        if (!m) return spare_fallback; /* not kept: the next call tries again */
        if (__atomic_compare_exchange_n(&spare_counts, &none, m, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            s = m;
        else
            ms_unmap(m, ((size_t)MAX_BLOCKS + 1) * sizeof(uint64_t)), s = none;
    }
    return s; /* not kept in __memspy_counts: a later call may adopt the thread */
}

/* Plain-copy pcs by block id (0: the block's function has no plain copy). */
static uint64_t *plain_pcs;

void __memspy_register_plain(const msplug_pc_pair *begin, const msplug_pc_pair *end)
{
    if (!begin || begin >= end) return;
    lock();
    if (!plain_pcs) plain_pcs = ms_map_flags(MAX_BLOCKS * sizeof *plain_pcs, MAP_NORESERVE);
    for (const msplug_pc_pair *p = begin; plain_pcs && p < end; p++) {
        const msplug_block *b = (const msplug_block *)(uintptr_t)p->site;
        if (b && b->id && b->id <= MAX_BLOCKS) plain_pcs[b->id - 1] = p->pc;
    }
    unlock();
}

int ms_blocks_grow(ms_thread_data *d, uint32_t id)
{
    uint32_t cap = d->blk_cap ? d->blk_cap : 1024;
    uint32_t want = ms_blocks_registered();
    while (cap <= id || cap < want) cap *= 2;
    if (cap > MAX_BLOCKS) cap = MAX_BLOCKS;
    if (id >= cap) return -1;
    uint64_t *count = ms_map((size_t)cap * sizeof *count), *pending = ms_map((size_t)cap * sizeof *pending);
    uint32_t *list = ms_map((size_t)cap * sizeof *list);
    if (!count || !pending || !list) return -1;
    for (uint32_t i = 0; i < d->blk_cap; i++) {
        count[i] = d->blk_count[i];
        pending[i] = d->blk_pending[i];
    }
    for (uint32_t i = 0; i < d->blk_npending; i++) list[i] = d->blk_list[i];
    /* the dump reads the new arrays once it sees the new capacity */
    d->blk_count = count;
    d->blk_pending = pending;
    d->blk_list = list;
    __atomic_store_n(&d->blk_cap, cap, __ATOMIC_RELEASE);
    return 0;
}

void ms_blocks_emit_work(ms_thread *t)
{
    ms_thread_data *d = t->data;
    uint32_t n = d->blk_npending;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t id = d->blk_list[i];
        uint64_t c = d->blk_pending[id];
        ms_sync_put(t, MS_SYNC_WORK, id, c, 0, 0, 0);
        d->blk_count[id] += c;
        d->blk_pending[id] = 0;
    }
    d->blk_npending = 0;
}

void ms_blocks_fold(ms_thread_data *d)
{
    for (uint32_t i = 0; i < d->blk_npending; i++) {
        uint32_t id = d->blk_list[i];
        d->blk_count[id] += d->blk_pending[id];
        d->blk_pending[id] = 0;
    }
    d->blk_npending = 0;
}

typedef struct {
    uint64_t *total;
    uint32_t n;
} sum_ctx;

static void add_data(ms_thread_data *d, void *ud)
{
    sum_ctx *s = ud;
    uint32_t cap = __atomic_load_n(&d->blk_cap, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < cap && i < s->n; i++) s->total[i] += d->blk_count[i] + d->blk_pending[i];
    const uint64_t *direct = __atomic_load_n(&d->blk_direct, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; direct && i < s->n; i++) s->total[i] += direct[i + 1];
}

uint64_t *ms_blocks_totals(uint32_t *n)
{
    *n = ms_blocks_registered();
    uint64_t *total = *n ? ms_map((size_t)*n * sizeof *total) : NULL;
    if (total) {
        sum_ctx s = { total, *n };
        ms_threads_each_data_all(add_data, &s);
        ms_calls_entries(total, *n);
    }
    return total;
}

void ms_blocks_put_raw(ms_raw_writer *w)
{
    uint32_t n, nl = __atomic_load_n(&nloops, __ATOMIC_ACQUIRE);
    uint64_t *total = ms_blocks_totals(&n);
    if (!n) return;
    ms_raw_section_begin(w, MS_RAW_BLOCKS);
    ms_raw_put_u32(w, n);
    for (uint32_t i = 0; i < n; i++) {
        const msplug_block *b = blocks[i];
        uint32_t loop = MSPLUG_BLOCK_LOOP(b->info);
        const msplug_loop_table *h = (const msplug_loop_table *)(uintptr_t)b->loop_table;
        uint32_t loop_id = loop != MSPLUG_NO_LOOP && h && h->first_id && loop < h->nloops
                               ? (uint32_t)(h->first_id - 1 + loop)
                               : UINT32_MAX;
        ms_raw_put_u64(w, b->pc);
        ms_raw_put_u32(w, loop_id);
        ms_raw_put_u32(w, MSPLUG_BLOCK_MEMOPS(b->info));
        ms_raw_put_u32(w, MSPLUG_BLOCK_STMTS(b->info));
        ms_raw_put_u32(w, (uint32_t)b->lines);
        ms_raw_put_u32(w, (uint32_t)(b->lines >> 32));
        ms_raw_put_u64(w, total ? total[i] : 0);
    }
    ms_raw_section_end(w);
    if (total) ms_unmap(total, (size_t)n * sizeof *total);
    uint32_t nplain = 0;
    for (uint32_t i = 0; plain_pcs && i < n; i++) nplain += plain_pcs[i] != 0;
    if (nplain) {
        ms_raw_section_begin(w, MS_RAW_PLAIN_PCS);
        ms_raw_put_u32(w, nplain);
        for (uint32_t i = 0; i < n; i++)
            if (plain_pcs[i]) {
                ms_raw_put_u32(w, i);
                ms_raw_put_u64(w, plain_pcs[i]);
            }
        ms_raw_section_end(w);
    }
    if (!nl) return;
    ms_raw_section_begin(w, MS_RAW_LOOPS);
    ms_raw_put_u32(w, nl);
    for (uint32_t i = 0; i < nl; i++) {
        const msplug_block *hb = (const msplug_block *)(uintptr_t)loops[i].desc->header;
        ms_raw_put_u32(w, loops[i].parent);
        ms_raw_put_u32(w, MSPLUG_LOOP_DEPTH(loops[i].desc->info));
        ms_raw_put_u32(w, hb && hb->id ? (uint32_t)(hb->id - 1) : UINT32_MAX);
        ms_raw_put_u64(w, hb ? hb->pc : 0);
    }
    ms_raw_section_end(w);
}
