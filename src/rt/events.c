/* Event flushing: a thread's buffered accesses are mapped to contexts under one global lock
 * and handed to the simulator (one-processor mode; pipeline.c, which may simulate them on its
 * own thread) and/or encoded into the thread's stream chunk, which is compressed after the
 * lock is released. A data block's flush flag serialises its flushes with the exit
 * path and the switch to threads mode.
 * Each (pc, bin) pair becomes a dense context id (1, 2, ...; 0 unused) through a hash table,
 * with a small direct-mapped cache of the last mapping per pc in front of it.
 *
 * In threads mode (streams only, no simulator in the process) a flush takes no global lock:
 * it maps its events through a cache of its data block's own, and the contexts' table is read
 * without a lock (a context is made under the table's own lock, written before its id is
 * published; the table's arrays, when they grow, are copied and the old ones kept, never
 * unmapped, so a reader holding them stays safe: at most as much again as the final table).
 * So the threads' flushes do not wait for each other but to make a new context.
 *
 * A flush composes the chunk through the hit window (filter.c) unless the simulator thread
 * runs the window itself (pipeline.c decides). */
#include "compose.h"
#include "rt.h"
#include <pthread.h>
#include <sched.h>
#include <time.h>

static ms_sim *sim;
static pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t dropped;
static int closed; /* after the exit flush */

/* Contexts: ctx_pc/ctx_bin indexed by ctx; the hash index holds ctx ids (0 = empty). Written
 * under ctx_lock (pointers and ids stored with release, read with acquire: see above). */
static uint64_t *ctx_pc;
static uint32_t *ctx_bin;
static uint32_t nctx = 1, ctx_cap;
static uint32_t *ctx_index;
static uint32_t index_cap;
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;

ms_pc_slot *ms_pc_cache; /* rt.h, ms_ctx_of */

int ms_events_init(const ms_hier_config *cfg)
{
    ms_pc_cache = ms_map(MS_PC_CACHE_SLOTS * sizeof *ms_pc_cache);
    if (!ms_pc_cache) return -1;
    for (uint32_t i = 0; i < MS_PC_CACHE_SLOTS; i++) ms_pc_cache[i].pc = ~0ull; /* empty (ms_ctx_of) */
    if (ms_sim_create(&sim, cfg, &ms_sim_allocator) != 0) return -1;
    return ms_pipeline_init(sim, cfg);
}

ms_sim *ms_events_sim(void) { return sim; }
void ms_sim_lock(void) { pthread_mutex_lock(&sim_lock); }
int ms_sim_trylock(void) { return pthread_mutex_trylock(&sim_lock); }
void ms_sim_unlock(void) { pthread_mutex_unlock(&sim_lock); }
uint32_t ms_contexts_count(void) { return __atomic_load_n(&nctx, __ATOMIC_ACQUIRE); }
uint64_t ms_events_dropped(void) { return dropped + ms_pipeline_dropped(); }

void ms_context_get(uint32_t ctx, uint64_t *pc, uint32_t *bin)
{
    *pc = __atomic_load_n(&ctx_pc, __ATOMIC_ACQUIRE)[ctx];
    *bin = __atomic_load_n(&ctx_bin, __ATOMIC_ACQUIRE)[ctx];
}

static uint32_t ctx_hash(uint64_t pc, uint32_t bin)
{
    uint64_t h = (pc ^ ((uint64_t)bin << 40) ^ bin) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 32);
}

/* The hash index and its size, published together (readers take both from one load). */
typedef struct {
    uint32_t *slots;
    uint32_t cap;
} ctx_index_t;
static ctx_index_t *ctx_index_now; /* the current index (ctx_lock for writers) */

/* Make room for one more context (ctx_lock held). The old arrays stay mapped: readers without
 * the lock may still hold them. Returns 0 or -1. */
static int ctx_reserve(void)
{
    if (nctx < ctx_cap && (nctx + 1) * 2 <= index_cap) return 0;
    if (nctx >= ctx_cap) {
        uint32_t cap = ctx_cap ? ctx_cap * 2 : 4096;
        uint64_t *pcs = ms_map(cap * sizeof *pcs);
        uint32_t *bins = ms_map(cap * sizeof *bins);
        if (!pcs || !bins) {
            ms_unmap(pcs, cap * sizeof *pcs);
            ms_unmap(bins, cap * sizeof *bins);
            return -1;
        }
        if (ctx_pc) {
            ms_memcpy(pcs, ctx_pc, nctx * sizeof *pcs);
            ms_memcpy(bins, ctx_bin, nctx * sizeof *bins);
        }
        __atomic_store_n(&ctx_pc, pcs, __ATOMIC_RELEASE);
        __atomic_store_n(&ctx_bin, bins, __ATOMIC_RELEASE);
        ctx_cap = cap;
    }
    if ((nctx + 1) * 2 > index_cap) {
        uint32_t cap = index_cap ? index_cap * 2 : 8192;
        uint32_t *slots = ms_map(cap * sizeof *slots);
        ctx_index_t *ix = ms_map(sizeof *ix);
        if (!slots || !ix) {
            ms_unmap(slots, cap * sizeof *slots);
            ms_unmap(ix, sizeof *ix);
            return -1;
        }
        for (uint32_t c = 1; c < nctx; c++) {
            uint32_t j = ctx_hash(ctx_pc[c], ctx_bin[c]) & (cap - 1);
            while (slots[j]) j = (j + 1) & (cap - 1);
            slots[j] = c;
        }
        ix->slots = slots;
        ix->cap = cap;
        ctx_index = slots;
        index_cap = cap;
        __atomic_store_n(&ctx_index_now, ix, __ATOMIC_RELEASE);
    }
    return 0;
}

/* The context of (pc, bin) in the table, 0 if it has none yet; no lock needed. */
static uint32_t ctx_find(uint64_t pc, uint32_t bin)
{
    const ctx_index_t *ix = __atomic_load_n(&ctx_index_now, __ATOMIC_ACQUIRE);
    if (!ix) return 0;
    uint32_t c;
    for (uint32_t j = ctx_hash(pc, bin) & (ix->cap - 1); (c = __atomic_load_n(&ix->slots[j], __ATOMIC_ACQUIRE));
         j = (j + 1) & (ix->cap - 1))
        if (__atomic_load_n(&ctx_pc, __ATOMIC_ACQUIRE)[c] == pc &&
            __atomic_load_n(&ctx_bin, __ATOMIC_ACQUIRE)[c] == bin)
            return c;
    return 0;
}

/* The context of (pc, bin), made if new (ctx_lock held). 0 if out of memory. */
static uint32_t ctx_make(uint64_t pc, uint32_t bin)
{
    if (ctx_reserve() < 0) return 0;
    uint32_t j = ctx_hash(pc, bin) & (index_cap - 1);
    uint32_t c;
    for (; (c = ctx_index[j]); j = (j + 1) & (index_cap - 1))
        if (ctx_pc[c] == pc && ctx_bin[c] == bin) return c;
    c = nctx;
    ctx_pc[c] = pc;
    ctx_bin[c] = bin;
    __atomic_store_n(&nctx, c + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&ctx_index[j], c, __ATOMIC_RELEASE);
    return c;
}

/* Take ctx_lock; try_only: for at most about 200 ms (the signal path). Returns 0 if held. */
static int ctx_lock_take(int try_only)
{
    if (!try_only) return pthread_mutex_lock(&ctx_lock) == 0 ? 0 : -1;
    for (int i = 0; i < 200; i++) {
        if (pthread_mutex_trylock(&ctx_lock) == 0) return 0;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return -1;
}

uint32_t ms_ctx_in_slow(ms_pc_slot *cache, uint64_t pc, uint32_t bin, uint32_t slot_i, int try_only)
{
    uint32_t c = ctx_find(pc, bin);
    if (!c) {
        if (ctx_lock_take(try_only) < 0) return 0;
        c = ctx_make(pc, bin);
        pthread_mutex_unlock(&ctx_lock);
        if (!c) return 0;
    }
    cache[slot_i].pc = pc;
    cache[slot_i].bin = bin;
    cache[slot_i].ctx = c;
    return c;
}

uint32_t ms_ctx_of_slow(uint64_t pc, uint32_t bin, uint32_t slot_i)
{
    return ms_ctx_in_slow(ms_pc_cache, pc, bin, slot_i, 0);
}

/* ms_ctx_of through cache (its owner's: the shared one under the simulator lock, a data
 * block's by the holder of its flush flag); try_only: ms_ctx_in_slow's. */
static inline uint32_t ctx_in(ms_pc_slot *cache, uint64_t pc, uint32_t bin, int try_only)
{
    uint32_t slot_i = (uint32_t)(pc >> 1) & (MS_PC_CACHE_SLOTS - 1);
    if (MS_LIKELY(cache[slot_i].pc == pc && cache[slot_i].bin == bin)) return cache[slot_i].ctx;
    return ms_ctx_in_slow(cache, pc, bin, slot_i, try_only);
}

/* map_events' loop over events [0, n), for the chunk out (NULL: none) through filter (NULL: the
 * simulator thread runs the window) and the stream rec (NULL: none), contexts through cache
 * (ctx_in). Returns the chunk's commands. */
static uint32_t map_loop(const ms_event *ev, uint32_t n, ms_rec_stream *rec, ms_sim_ref *out, ms_filter *filter,
                         ms_pc_slot *cache, int try_only)
{
    uint32_t k = 0;
    const uintptr_t lo = ms_main_stack.lo, span = ms_main_stack.span, shift = ms_main_stack.shift;
    for (uint32_t i = 0; i < n; i++) {
        if (MS_UNLIKELY(ev[i].bin == MS_EV_SYNC_BIN)) { /* two slots (rt.h) */
            if (rec && i + 1 < n)
                ms_rec_sync(rec, ev[i].size_flags, ev[i].addr, ev[i + 1].addr, ev[i].pc,
                            ev[i + 1].pc ? ctx_in(cache, ev[i + 1].pc, ev[i + 1].size_flags, try_only)
                                         : 0); /* the site, with the object's bin (sync.c) */
            i++;
            continue;
        }
        uint32_t ctx = ctx_in(cache, ev[i].pc, ev[i].bin, try_only);
        uint64_t addr = ev[i].addr;
        if (MS_UNLIKELY(addr - lo < span)) addr += shift; /* rt.h */
        if (rec) ms_rec_event(rec, ctx, addr, ev[i].size_flags);
        if (!out) continue;
        if (MS_UNLIKELY(!ctx)) {
            dropped++;
            continue;
        }
        if (filter)
            ms_filter_put(filter, out, &k, ctx, addr, ev[i].size_flags);
        else
            ms_cmd_store(&out[k++], addr, ctx, ev[i].size_flags, 1); /* only to the thread */
    }
    return k;
}

uint32_t ms_compose_slow(ms_filter *f, ms_sim_ref *out, uint32_t k, uint32_t ctx, uint64_t addr, uint32_t sf,
                         uint32_t join)
{
    if (!join) {
        ms_filter_put(f, out, &k, ctx, addr, sf);
        return k;
    }
    uint32_t nops = (uint32_t)ms_window_join(&f->win, addr >> f->l1_shift, join - 1);
    if (nops) ms_filter_ops(f, out, &k, nops);
    ms_cmd_store(&out[k++], addr, ctx, sf, f->stream);
    return k;
}

/* map_loop's common case: no stream, the chunk out composed here (through filter's window
 * if it is on; filter NULL: the simulator thread runs it). Returns the chunk's commands. */
static __attribute__((noinline)) uint32_t map_window(const ms_event *ev, uint32_t n, ms_sim_ref *out, ms_filter *filter)
{
    ms_compose s;
    ms_compose_open(&s, out, filter);
    for (const ms_event *e = ev, *end = ev + n; e < end; e++) {
        if (MS_UNLIKELY(e->bin == MS_EV_SYNC_BIN)) { /* two slots (rt.h): for streams only */
            e++;
            continue;
        }
        ms_compose_put(&s, e->pc, e->bin, ms_compose_place(&s, e->addr), e->size_flags);
    }
    dropped += s.dropped;
    return ms_compose_close(&s);
}

/* Map n events of data block d to contexts, put them into a chunk for the simulator
 * (unless in threads mode) and append them to rec if recording (lock held). Sync events only
 * go to the stream. max_ms bounds the wait for the simulator thread (signal path); returns -1
 * if it was exceeded (the chunk is then lost to the simulator). */
static int map_events(ms_thread_data *d, uint32_t n, ms_rec_stream *rec, int max_ms)
{
    ms_filter *filter = NULL;
    ms_sim_ref *out = ms_streams_mode ? NULL : ms_pipeline_begin(max_ms, &filter);
    int lost = !ms_streams_mode && !out;
    if (!rec && out) {
        ms_pipeline_end(out, map_window(d->ev, n, out, filter));
        return 0;
    }
    uint32_t k = map_loop(d->ev, n, rec, out, filter, ms_pc_cache, 0);
    if (!out) return lost ? -1 : 0;
    ms_pipeline_end(out, filter ? ms_filter_finish(filter, out, k) : k);
    return 0;
}

/* A data block's contexts cache, empty; NULL if out of memory. */
static ms_pc_slot *ctx_cache_new(void)
{
    ms_pc_slot *c = ms_map(MS_PC_CACHE_SLOTS * sizeof *c);
    for (uint32_t i = 0; c && i < MS_PC_CACHE_SLOTS; i++) c[i].pc = ~0ull; /* empty */
    return c;
}

/* Take the simulator lock, or on the signal path try it for a bounded time. Returns 0 if held. */
static int sim_lock_for_flush(int sim_try)
{
    if (!sim_try) {
        pthread_mutex_lock(&sim_lock);
        return 0;
    }
    for (int i = 0; i < 200; i++) {
        if (pthread_mutex_trylock(&sim_lock) == 0) return 0;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    return -1;
}

int ms_events_flush_data(ms_thread_data *d, uint32_t *nev, int sim_try)
{
    uint32_t n = *nev;
    if (n > MS_EVENTS_PER_THREAD) n = MS_EVENTS_PER_THREAD;
    /* A vfork child borrowing this memory leaves the simulator alone (the parent's
     * simulator thread may be using it); its few accesses are dropped. */
    if (__atomic_load_n(&closed, __ATOMIC_ACQUIRE) || n == 0 || !ms_process_is_owner()) {
        *nev = 0;
        return 0;
    }
    ms_rec_stream *rec = ms_rec_chunk_begin(d); /* may open the file: outside the lock */
    int rc = 0;
    /* threads mode: streams only, no global lock (the mode, once on, stays on; a switch that
     * comes after this read restarts the stream once this flush gives up the block's flag) */
    if (rec && __atomic_load_n(&ms_streams_mode, __ATOMIC_ACQUIRE) &&
        (d->ctx_cache || (d->ctx_cache = ctx_cache_new()))) {
        map_loop(d->ev, n, rec, NULL, NULL, d->ctx_cache, sim_try);
    } else {
        if (sim_lock_for_flush(sim_try) < 0) return -1;
        rc = map_events(d, n, rec, sim_try ? 2000 : -1);
        pthread_mutex_unlock(&sim_lock);
    }
    *nev = 0;
    if (rec) ms_rec_chunk_end(rec); /* compression: outside the global lock */
    if (ms_progress_refs) __atomic_fetch_add(ms_progress_refs, n, __ATOMIC_RELAXED);
    return rc;
}

int ms_direct_begin(ms_thread *t, ms_compose *s)
{
    ms_thread_data *d = t->data;
    if (ms_streams_mode || ms_rec_active() || __atomic_load_n(&closed, __ATOMIC_ACQUIRE) || !ms_process_is_owner())
        return 0;
    uint8_t prev = ms_busy_begin();
    ms_flush_flag_take(d);
    pthread_mutex_lock(&sim_lock);
    uint32_t n = t->nev; /* in order: the events buffered before */
    if (n) {
        map_events(d, n > MS_EVENTS_PER_THREAD ? MS_EVENTS_PER_THREAD : n, NULL, -1);
        t->nev = 0;
        if (ms_progress_refs) __atomic_fetch_add(ms_progress_refs, n, __ATOMIC_RELAXED);
    }
    ms_filter *filter;
    ms_sim_ref *out = ms_pipeline_begin(-1, &filter); /* no limit: never NULL */
    ms_compose_open(s, out, filter);
    s->busy_prev = prev;
    return 1;
}

void ms_direct_end(ms_thread *t, ms_compose *s)
{
    dropped += s->dropped;
    ms_pipeline_end(s->out, ms_compose_close(s));
    pthread_mutex_unlock(&sim_lock);
    ms_flush_flag_give(t->data);
    if (ms_progress_refs) __atomic_fetch_add(ms_progress_refs, s->refs, __ATOMIC_RELAXED);
    ms_busy_end(s->busy_prev);
}

void ms_events_close(void) { __atomic_store_n(&closed, 1, __ATOMIC_RELEASE); }

void ms_flush_flag_take(ms_thread_data *d)
{
    while (__atomic_exchange_n(&d->flushing, 1, __ATOMIC_ACQUIRE)) sched_yield();
}

int ms_flush_flag_try(ms_thread_data *d, int ms)
{
    for (int i = 0;; i++) {
        if (!__atomic_exchange_n(&d->flushing, 1, __ATOMIC_ACQUIRE)) return 0;
        if (i >= ms) return -1;
        struct timespec one = { 0, 1000000 };
        nanosleep(&one, NULL);
    }
}

void ms_flush_flag_give(ms_thread_data *d) { __atomic_store_n(&d->flushing, 0, __ATOMIC_RELEASE); }

void ms_events_flush(ms_thread *t)
{
    uint8_t prev = ms_busy_begin();
    ms_flush_flag_take(t->data);
    ms_events_flush_data(t->data, &t->nev, 0);
    ms_flush_flag_give(t->data);
    ms_busy_end(prev);
}

/* Bytes of a shared granule that no global holds (the neighbours of a read-only global: the
 * compilers' constants, string literals): their mapping's bin, remembered per thread for the
 * granule, so that a -O0 loop's constant load takes the region table's lock once, not at
 * every access. */
static uint32_t shared_rest_bin(ms_thread *t, uintptr_t addr)
{
    ms_thread_data *d = t->data;
    uintptr_t g = addr >> MS_SHADOW_SHIFT;
    if (d && d->rest_bin && d->rest_granule == g) return d->rest_bin;
    uint32_t bin = ms_regions_bin(t, addr);
    if (d) {
        d->rest_granule = g;
        d->rest_bin = bin;
    }
    return bin;
}

uint32_t ms_resolve_bin(ms_thread *t, uintptr_t addr)
{
    if (addr - t->stack_lo < t->stack_span) return ms_stack_bin_slow(t, addr);
    uint32_t bin = ms_shadow_get(addr);
    if (bin == MS_BIN_SHARED) {
        bin = ms_globals_bin_at(addr);
        return bin ? bin : shared_rest_bin(t, addr); /* 0: bytes of no global there */
    }
    return bin ? bin : ms_regions_bin(t, addr);
}

void ms_record_slow(uintptr_t addr, uint32_t size_flags, uintptr_t pc)
{
    ms_thread *t = &ms_tls;
    if (!ms_thread_can_record(t)) return;
    ms_event *e = &t->data->ev[t->nev];
    e->addr = addr;
    e->pc = pc;
    e->bin = ms_resolve_bin(t, addr);
    e->size_flags = size_flags;
    if (++t->nev == MS_EVENTS_PER_THREAD) ms_events_flush(t);
}

void ms_record_range(uintptr_t addr, size_t len, uint32_t write_flag, uintptr_t pc)
{
    if (ms_count_only) return; /* MTOOL's runs simulate nothing (ms_record_range_bin) */
    while (len) {
        uint32_t piece = len > MS_EV_SIZE_MAX ? MS_EV_SIZE_MAX : (uint32_t)len;
        ms_record(addr, piece, write_flag, pc);
        addr += piece;
        len -= piece;
    }
}

void ms_record_range_bin(uintptr_t addr, size_t len, uint32_t write_flag, uintptr_t pc, uint32_t bin)
{
    ms_thread *t = &ms_tls;
    /* MTOOL's runs (MEMSPY_MODE=count, time) simulate nothing: a range the C library read or
     * wrote for the program (memset, memcpy, realloc's copy) was simulated line by line at the
     * next flush (nbf's memset of its private array each step: 11% of either run) */
    if (ms_count_only) return;
    if (ms_focus_skips(t)) return; /* outside --focus: not simulated */
    while (len && ms_thread_can_record(t)) {
        uint32_t piece = len > MS_EV_SIZE_MAX ? MS_EV_SIZE_MAX : (uint32_t)len;
        ms_event *e = &t->data->ev[t->nev];
        e->addr = addr;
        e->pc = pc;
        e->bin = bin;
        e->size_flags = piece | write_flag;
        if (++t->nev == MS_EVENTS_PER_THREAD) ms_events_flush(t);
        addr += piece;
        len -= piece;
    }
}
