/* The runtime side of memspy's compiler plugin (ABI: src/rt/msplug_abi.h).
 *
 * Plugin-instrumented code appends raw records (an address per access, a header per group
 * naming its sites) to the thread's buffer __memspy_buf without calling the runtime. The
 * "drain" turns them into exactly what the ThreadSanitizer hooks record (ms_record: pc of the
 * site, data bin resolved from the shadow stack or the heap shadow map), later than the
 * accesses happened.
 *
 * Why deferred resolution gives the same bins as resolution at access time: a record's bin
 * depends on (a) the heap shadow map, changed only by the runtime's allocation functions,
 * (b) the shadow call stack, changed only at function entry and exit, (c) the globals table,
 * which only grows (dlopen) with objects the program cannot have touched before. The buffer
 * is drained at each of these points, before the change: in ms_record (every TSan hook and
 * interposed string function, so their events also stay in program order), in the
 * allocation functions (alloc.c) before the shadow map changes, in __memspy_func_entry/exit
 * and __tsan_func_entry/exit before the shadow stack changes, before a synchronisation
 * operation takes effect (sync.c, atomics.c, omp.c: once the two threads synchronise, another
 * one may free what this one touched, or exit the process: rt.h, ms_plug_sync_ready), and at
 * exit (dump.c). Instrumented code commits its records before every call, so no record is
 * pending in the buffer while one of these runs in the same thread. Between two drain points
 * the mapping is therefore the one each access saw. The thread's own buffer is the only one
 * drained: another thread's free of an object this thread touched without synchronising is a
 * data race, attributed as the TSan path would (to whatever the address maps to then). At
 * exit, the records other threads committed since their last drain point (a thread blocked
 * in a system call, say) are drained from their buffers by the exit flush
 * (ms_plug_drain_data), with their own shadow stacks.
 *
 * Not profiling (no `memspy run`): the buffer still fills and __memspy_flush drops it; entry
 * and exit return after one check. */
#include "compose.h"
#include "rt.h"
#include <stddef.h>
#include <time.h>

__thread uint64_t __memspy_buf[1 + MSPLUG_BUF_WORDS] __attribute__((tls_model("initial-exec")));
int __memspy_plain;

/* The buffer count at which memcpy/memset last claimed a plugin copy (ms_plug_claim). */
static __thread uint64_t claimed __attribute__((tls_model("initial-exec")));

/* Bits of the plugins whose units registered: PLUG_GCC, PLUG_LLVM. */
enum { PLUG_GCC = 1, PLUG_LLVM = 2 };
static volatile uint32_t plug_modules;
static volatile uint64_t plug_sites;
volatile int ms_tsan_seen;

#define HEADER_TAG (1ull << 63)
_Static_assert(MS_EV_WRITE == 1u << 31 && MSPLUG_K_WRITE == MSPLUG_K_READ + 1, "parse's write flag of a read or write");

/* Where a drain's accesses go: the calling thread's recording path (ms_record), or at the
 * exit flush another thread's event buffer (other != NULL). */
typedef struct {
    ms_thread *other;
    ms_thread_data *d;
    uint32_t *nev;
    int sim_try;
    ms_event *ev;       /* the calling thread's events (other == NULL) */
    ms_compose *direct; /* while not NULL: the calling thread's records go straight into a chunk */
} sink;

/* One access of len bytes (len may exceed an event's size: split as ms_record_range does;
 * none for len 0: a copy or set of a run-time length 0 touches no memory). The calling
 * thread's records take ms_record's common case without its per-access checks: the drain
 * runs only for a ready thread with the runtime on (ms_plug_drain), drops whatever is out of
 * focus itself (parse), and starts with the buffer's count at 0 (instrumented code, a signal
 * handler's included, commits and drains its records before returning). The common case,
 * plain reads and writes, does not come here (plain_sites). */
static void emit(const sink *k, uint64_t addr, uint64_t len, uint32_t write, uintptr_t pc)
{
    if (MS_UNLIKELY(!len)) return;
    if (MS_LIKELY(!k->other)) {
        if (MS_LIKELY(len <= MS_EV_SIZE_MAX))
            ms_record_ready(&ms_tls, k->ev, addr, (uint32_t)len | write, pc);
        else
            ms_record_range(addr, len, write, pc);
        return;
    }
    while (len) {
        uint32_t piece = len > MS_EV_SIZE_MAX ? MS_EV_SIZE_MAX : (uint32_t)len;
        if (*k->nev >= MS_EVENTS_PER_THREAD) ms_events_flush_data(k->d, k->nev, k->sim_try);
        ms_event *e = &k->d->ev[(*k->nev)++];
        e->addr = addr;
        e->pc = pc;
        e->bin = ms_resolve_bin(k->other, addr);
        e->size_flags = piece | write;
        addr += piece;
        len -= piece;
    }
}

/* Record one site's access(es); w: its words. */
static void record_site(const sink *k, uint32_t kind, uint32_t size, const uint64_t *w, uintptr_t pc)
{
    switch (kind) {
    case MSPLUG_K_READ: /* address 0: a masked-off lane of a gather (LLVM plugin) */
        if (w[0]) emit(k, w[0], size, 0, pc);
        break;
    case MSPLUG_K_WRITE:
        if (w[0]) emit(k, w[0], size, MS_EV_WRITE, pc);
        break;
    case MSPLUG_K_ATOMIC_LOAD: emit(k, w[0], size, 0, pc); break;
    case MSPLUG_K_ATOMIC_STORE: emit(k, w[0], size, MS_EV_WRITE, pc); break;
    case MSPLUG_K_ATOMIC_RMW:
        emit(k, w[0], size, 0, pc);
        emit(k, w[0], size, MS_EV_WRITE, pc);
        break;
    case MSPLUG_K_COPY:
        emit(k, w[1], size, 0, pc);
        emit(k, w[0], size, MS_EV_WRITE, pc);
        break;
    case MSPLUG_K_COPY_VAR:
        emit(k, w[1], w[2], 0, pc);
        emit(k, w[0], w[2], MS_EV_WRITE, pc);
        break;
    case MSPLUG_K_SET: emit(k, w[0], size, MS_EV_WRITE, pc); break;
    case MSPLUG_K_SET_VAR: emit(k, w[0], w[1], MS_EV_WRITE, pc); break;
    }
}

/* Compiled groups (the direct path's common case). A group of plain reads and writes whose
 * sites all have their pcs is compiled once into an entry of a table of the runtime's: each
 * site's pc, size and write flag, and the (bin, context) it referenced last, so that the drain
 * takes the group's addresses in one loop with no per-site checks and finds a reference's
 * context with one compare while its site keeps to one bin (a context is never dropped: the
 * cached one is the one ms_ctx_of gives). The entry's index + 1 is noted in the group's first
 * site (its info's runtime bits, MSPLUG_INFO_RT_SHIFT; CGROUP_NONE: not compilable). Written
 * only with the simulator lock held (the direct path); other threads' drains read info's
 * other bits. */
typedef struct {
    uint64_t pc;
    uint32_t sf;         /* size | MS_EV_WRITE */
    uint32_t bin, ctx;   /* the last (bin, context); bin 0: none yet */
    uint64_t reg;        /* the shadow map's chunk found last for the site's addresses: their */
    const uint32_t *map; /* address >> CGROUP_REG_SHIFT (~0: none yet), its bins */
    ms_compose_hint win; /* its line's window slot last, its count's increment */
} cgroup_site;
#define CGROUP_REG_SHIFT (MS_SHADOW_SHIFT + MS_SHADOW_CHUNK_BITS)
#define CGROUP_NONE 0xfffu
#define CGROUPS_MAX (CGROUP_NONE - 1u)
#define CGROUP_SITES_MAX 64u
#define CGROUP_POOL (1u << 15)
typedef struct {
    uint32_t first, n; /* its sites in cgroup_pool */
} cgroup;
static cgroup *cgroups;
static cgroup_site *cgroup_pool;
static uint32_t ncgroups, ncgroup_sites;

/* Mark head's group as compiled to index gi (+ 1) or CGROUP_NONE. */
static void cgroup_mark(const msplug_site *head, uint64_t gi)
{
    msplug_site *w = (msplug_site *)(uintptr_t)head; /* the tables are writable: pcs are filled in */
    __atomic_store_n(&w->info, head->info | gi << MSPLUG_INFO_RT_SHIFT, __ATOMIC_RELAXED);
}

/* Compile the group whose first site is head (simulator lock held). Returns its index + 1,
 * or CGROUP_NONE. */
static __attribute__((noinline)) uint32_t cgroup_compile(const msplug_site *head)
{
    uint32_t n = 0;
    for (const msplug_site *s = head;; s++) {
        uint64_t info = s->info;
        uint32_t kind = MSPLUG_INFO_KIND(info), size = MSPLUG_INFO_SIZE(info);
        if (kind - MSPLUG_K_READ >= 2u || size - 1u >= MS_EV_SIZE_MAX || !s->pc || ++n > CGROUP_SITES_MAX) {
            n = 0;
            break;
        }
        if (MSPLUG_INFO_FLAGS(info) & MSPLUG_F_LAST) break;
    }
    if (n && !cgroups) {
        cgroups = ms_map(CGROUPS_MAX * sizeof *cgroups);
        cgroup_pool = ms_map(CGROUP_POOL * sizeof *cgroup_pool);
        if (!cgroups || !cgroup_pool) n = 0, ncgroups = CGROUPS_MAX; /* none from now on */
    }
    if (!n || n != MSPLUG_INFO_GET_GROUP_WORDS(head->info) || ncgroups >= CGROUPS_MAX ||
        ncgroup_sites + n > CGROUP_POOL) {
        cgroup_mark(head, CGROUP_NONE);
        return CGROUP_NONE;
    }
    cgroup_site *q = cgroup_pool + ncgroup_sites;
    for (uint32_t j = 0; j < n; j++) {
        uint64_t info = head[j].info;
        uint32_t write = MSPLUG_INFO_KIND(info) - MSPLUG_K_READ;
        q[j] = (cgroup_site){ .pc = head[j].pc,
                              .reg = ~0ull,
                              .win = { .line = MS_WIN_EMPTY, .inc = 1ull << (write << 5) },
                              .sf = MSPLUG_INFO_SIZE(info) | write << 31 };
    }
    cgroups[ncgroups].first = ncgroup_sites;
    cgroups[ncgroups].n = n;
    ncgroup_sites += n;
    uint32_t gi = ++ncgroups;
    cgroup_mark(head, gi);
    return gi;
}

/* Whether chunk reg of the shadow map (addresses >> CGROUP_REG_SHIFT) meets t's stack. */
static int cgroup_reg_in_stack(uint64_t reg, const ms_thread *t)
{
    uint64_t lo = reg << CGROUP_REG_SHIFT, hi = lo + (1ull << CGROUP_REG_SHIFT);
    return t->stack_span && lo < t->stack_lo + t->stack_span && t->stack_lo < hi;
}

/* The n addresses w of compiled group q (left words from w on, n at least) straight into
 * chunk c, as sites_loop would, then again while the next words are the block word run_word
 * (not 0) and the group's header word once more with n words after them (a loop of one block:
 * the run of the block and the next group taken here, *runs counting the block's executions).
 * Returns the words taken; *taken: the addresses taken of the last group, n, or the index of
 * the first whose bin needs the general path. While a
 * site keeps to one heap bin of one chunk of the shadow map (chunks are never unmapped or
 * replaced: the one the site found last is the one ms_shadow_get reads), away from the
 * thread's stack (the site's chunk is noted with the salt of the thread that found it outside
 * its stack; a thread's stack never grows), and the window is on,
 * its bin is one load from that chunk, compared with the site's last (never 0 or
 * MS_BIN_SHARED: what ms_heap_bin_fast gives then), whose context is the reference's, known
 * to be below the window's counts (a site's chunk is noted only then: the counts only grow;
 * a new bin forgets it). The three assumptions are checked on every such hit in debug builds
 * (MS_ASSUMED); test_rt_shadow checks that a chunk stays once mapped. */
MS_HOT uint64_t cgroup_run(cgroup_site *q, uint32_t n, const uint64_t *w, uint64_t left, uint64_t run_word,
                           uint64_t header, const ms_thread *t, ms_compose *c, uint64_t *runs, uint32_t *taken)
{
    const uint64_t *wp = w;
    cgroup_site *qs = q, *qend = q + n;
    /* the last place a repetition may start: n + 2 words before the end (none without a block) */
    uintptr_t last = run_word && left >= n + 2u ? (uintptr_t)(w + left - n - 2) : 0;
    uint64_t reps = 0;
    for (;;) {
        uint64_t addr = *wp;
        uint32_t sf = qs->sf;
        if (!(sf & MS_EV_SIZE_MAX)) __builtin_unreachable(); /* 1 to MS_EV_SIZE_MAX bytes */
        if (MS_LIKELY((addr >> CGROUP_REG_SHIFT | t->salt) == qs->reg && c->f &&
                      qs->map[(addr >> MS_SHADOW_SHIFT) & ((1u << MS_SHADOW_CHUNK_BITS) - 1)] == qs->bin)) {
            /* what the cache rests on (above), checked in debug builds */
            MS_ASSUMED(qs->map == ms_shadow_l1[(addr >> CGROUP_REG_SHIFT) & ((1u << MS_SHADOW_L1_BITS) - 1)]);
            MS_ASSUMED(addr - t->stack_lo >= t->stack_span);
            MS_ASSUMED(qs->ctx < c->cap && c->cap <= c->f->counts_cap);
            ms_compose_put_win(c, qs->ctx, addr, sf, &qs->win, 1);
            goto next;
        }
        int stack = addr - t->stack_lo < t->stack_span;
        uint32_t bin = 1;
        uint64_t at = addr, reg = addr >> CGROUP_REG_SHIFT;
        const uint32_t *map = NULL;
        if (stack) {
            bin = ms_stack_bin_fast(t, addr);
            at = ms_compose_place(c, addr);
        } else if (MS_LIKELY(addr)) { /* ms_heap_bin_fast */
            map = ms_shadow_l1[reg & ((1u << MS_SHADOW_L1_BITS) - 1)];
            bin = MS_LIKELY(map != NULL) ? map[(addr >> MS_SHADOW_SHIFT) & ((1u << MS_SHADOW_CHUNK_BITS) - 1)] : 0;
            bin = MS_LIKELY(bin + 1u > 1u) ? bin : 0; /* 0 (no bin yet) or MS_BIN_SHARED */
        }
        if (MS_UNLIKELY(!bin)) {
            *taken = (uint32_t)(qs - q);
            c->refs += *taken;
            *runs += reps;
            return (uint64_t)(wp - w);
        }
        if (MS_UNLIKELY(!addr)) {
            c->refs--; /* a masked-off lane: none */
            goto next;
        }
        uint32_t ctx = qs->ctx;
        if (MS_UNLIKELY(bin != qs->bin)) {
            ctx = ms_ctx_of(qs->pc, bin);
            if (ctx) {
                qs->bin = bin;
                qs->ctx = ctx;
                qs->reg = ~0ull;
            }
        }
        if (map && bin == qs->bin && c->f && ctx < c->cap && !cgroup_reg_in_stack(reg, t)) {
            qs->reg = reg | t->salt; /* the site's chunk (its bin not 0: taken above) */
            qs->map = map;
        }
        ms_compose_put_ctx(c, ctx, at, sf, &qs->win);
    next:
        wp++;
        if (++qs < qend) continue;
        c->refs += n;
        /* the group again: its block word and its header, then its n addresses */
        if ((uintptr_t)wp > last || wp[0] != run_word || wp[1] != header) break;
        wp += 2;
        reps++;
        qs = q;
    }
    *taken = n;
    *runs += reps;
    return (uint64_t)(wp - w);
}

/* The common case of the calling thread's drain (t == &ms_tls, records not dropped): the
 * group's sites from *sp on while each is a read or a write of 1 to MS_EV_SIZE_MAX bytes,
 * recorded as emit would (into the events ev, or with c straight into c's chunk while the
 * bin needs no call), then the groups that follow it while only headers and more executions
 * of the block run_word come between (*run counts those). Inlined into a function of its own
 * per case (plain_sites, direct_sites) so that its loop keeps its few values in registers
 * (inside parse they were spilled), going from group to group without returning (a loop of
 * one block is a block word and a group per iteration). Returns the index of the next word;
 * *sp becomes NULL when a group's last site is done and the next word is for parse, else the
 * first site left to the general path. */
MS_HOT uint64_t sites_loop(const msplug_site **sp, const uint64_t *b, uint64_t i, uint64_t end, ms_thread *t,
                           ms_event *ev, ms_compose *c, uint64_t run_word, uint64_t *run)
{
    const msplug_site *s = *sp;
    uint64_t runs = 0;
    for (;;) {
        uint64_t info = s->info;
        if (c && (info >> MSPLUG_INFO_RT_SHIFT || MSPLUG_INFO_GET_GROUP_WORDS(info))) { /* a group's first site */
            uint32_t gi = (uint32_t)(info >> MSPLUG_INFO_RT_SHIFT);
            if (!gi) gi = cgroup_compile(s);
            if (gi != CGROUP_NONE && cgroups[gi - 1].n <= end - i) {
                uint32_t n = cgroups[gi - 1].n, j;
                i += cgroup_run(cgroup_pool + cgroups[gi - 1].first, n, b + i, end - i, run_word,
                                (uint64_t)(uintptr_t)s | HEADER_TAG, t, c, &runs, &j);
                if (MS_UNLIKELY(j < n)) { /* left to the general path, after the chunk */
                    s += j;
                    break;
                }
                goto next_group;
            }
        }
        uint32_t kind = MSPLUG_INFO_KIND(info), size = MSPLUG_INFO_SIZE(info);
        if (MS_UNLIKELY(kind - MSPLUG_K_READ >= 2u || size - 1u >= MS_EV_SIZE_MAX || i >= end)) break;
        uintptr_t pc = s->pc;
        if (MS_UNLIKELY(!pc) && t->depth) pc = t->frames[t->depth - 1].pc; /* label dropped */
        uint64_t addr = b[i];
        /* address 0: a masked-off lane of a gather (LLVM plugin); MS_EV_WRITE is bit 31 */
        if (c) {
            uint32_t bin = 1;
            uint64_t at = addr; /* where it is simulated */
            if (addr - t->stack_lo < t->stack_span) {
                bin = ms_stack_bin_fast(t, addr);
                at = ms_compose_place(c, addr);
            } else if (MS_LIKELY(addr)) {
                bin = ms_heap_bin_fast(addr);
            }
            if (MS_UNLIKELY(!bin)) break; /* left to the general path, after the chunk */
            if (MS_LIKELY(addr)) ms_compose_put(c, pc, bin, at, size | (kind - MSPLUG_K_READ) << 31);
        } else if (MS_LIKELY(addr)) {
            ms_record_ready(t, ev, addr, size | (kind - MSPLUG_K_READ) << 31, pc);
        }
        i++;
        if (!(MSPLUG_INFO_FLAGS(info) & MSPLUG_F_LAST)) {
            s++;
            continue;
        }
    next_group:;
        /* the group is done: go on to the next one if only the same block's words come between
         * (run_word is a block word, never a call's: parse tests the call tag first) */
        uint64_t h = 0;
        while (i < end && (h = b[i]) == run_word && run_word) {
            runs++;
            i++;
        }
        if (i >= end || (h & MSPLUG_BLOCK_TAG) != HEADER_TAG) {
            *sp = NULL;
            *run += runs;
            return i;
        }
        i++;
        s = (const msplug_site *)(uintptr_t)(h & ~HEADER_TAG);
    }
    *sp = s;
    *run += runs;
    return i;
}

static __attribute__((noinline)) uint64_t plain_sites(const msplug_site **sp, const uint64_t *b, uint64_t i,
                                                      uint64_t end, ms_thread *t, ms_event *ev, uint64_t run_word,
                                                      uint64_t *run)
{
    return sites_loop(sp, b, i, end, t, ev, NULL, run_word, run);
}

/* sites_loop's references straight into the chunk *c, whose state is a local here. */
static __attribute__((noinline)) uint64_t direct_sites(const msplug_site **sp, const uint64_t *b, uint64_t i,
                                                       uint64_t end, ms_thread *t, ms_compose *c, uint64_t run_word,
                                                       uint64_t *run)
{
    ms_compose s = *c;
    i = sites_loop(sp, b, i, end, t, NULL, &s, run_word, run);
    *c = s;
    return i;
}

/* Two words at an address aligned to 8 bytes (the buffer's). */
typedef uint64_t words2 __attribute__((vector_size(16), aligned(8), may_alias));

/* The index of the first word of b[i..end) that differs from h, or end, found eight and then
 * four words at a time (one branch for several: the counting run of a loop of one block
 * fills the buffer with its block word, and counting them was most of that run's cost). */
static uint64_t same_words(const uint64_t *b, uint64_t i, uint64_t end, uint64_t h)
{
    const words2 hh = { h, h };
    while (i + 8 <= end) {
        const words2 *w = (const words2 *)(const void *)(b + i);
        words2 x = (w[0] ^ hh) | (w[1] ^ hh) | (w[2] ^ hh) | (w[3] ^ hh);
        if (x[0] | x[1]) break;
        i += 8;
    }
    while (i + 4 <= end && ((b[i] ^ h) | (b[i + 1] ^ h) | (b[i + 2] ^ h) | (b[i + 3] ^ h)) == 0) i += 4;
    return i;
}

/* n calls (none: nothing) of callee from the block of call word w, into d's table. */
static void count_calls(ms_thread_data *d, uint64_t w, uint64_t callee, uint64_t n)
{
    if (n) ms_calls_count(d, (const msplug_block *)(uintptr_t)(w & ~MSPLUG_CALL_TAG), callee, n);
}

/* Walk words 1..used of buffer b (its count already reset) into k; t: the owning thread. */
static void parse(const uint64_t *b, uint64_t used, const ms_thread *t, sink *k)
{
    if (used > MSPLUG_BUF_WORDS) used = MSPLUG_BUF_WORDS;
    uint64_t i = 1, end = used + 1;
    /* block words are counted by runs of the same block (a loop of one block fills the
     * buffer with its word): one update per run, not a chain of dependent increments */
    uint64_t run_word = 0, run = 0;
    /* call words likewise by runs of the same call (caller block and callee), whatever block
     * words come between: a loop that calls one function counts its calls in one update; two
     * runs at a time, so that a loop that calls two functions in turn (a lock and an unlock)
     * does too (the one used less recently is counted and replaced) */
    uint64_t call_word[2] = { 0, 0 }, callee[2] = { 0, 0 }, calls[2] = { 0, 0 };
    int last = 0;
    /* Between two drains the records are the innermost frame's: one focus test for them all,
     * unless loops are named: then each block word says whether the frame's code is in focus
     * (its innermost loop's), and the frame keeps that state for the next drain and its
     * callees (the calling thread's own frame only; another thread's, drained at exit, is
     * left as it is). */
    int focus_drop = ms_focus_skips(t), drop = ms_count_only || focus_drop;
    ms_frame *fr = MS_UNLIKELY(ms_focus_loops) && t == &ms_tls && t->depth ? &ms_tls.frames[t->depth - 1] : NULL;
    uint64_t dropped = 0;
    while (i < end) {
        uint64_t h = b[i++];
        if ((h & MSPLUG_CALL_TAG) == MSPLUG_CALL_TAG) { /* a call: the callee's address follows */
            if (i < end && t->data) {
                if (h == call_word[last] && b[i] == callee[last]) {
                    calls[last]++;
                } else if (h == call_word[!last] && b[i] == callee[!last]) {
                    last = !last;
                    calls[last]++;
                } else {
                    last = !last;
                    count_calls(t->data, call_word[last], callee[last], calls[last]);
                    call_word[last] = h;
                    callee[last] = b[i];
                    calls[last] = 1;
                }
            }
            i++;
            continue;
        }
        if ((h & MSPLUG_BLOCK_TAG) == MSPLUG_BLOCK_TAG) { /* a block executed (n times: a repeat word) */
            uint64_t n = 1;
            if (MS_UNLIKELY(h & MSPLUG_REPEAT_BIT)) {
                if (i >= end) break; /* its count cut off (a signal handler's drain) */
                n = b[i++];
                h &= ~MSPLUG_REPEAT_BIT;
            }
            if (h == run_word) {
                run += n;
                if (i < end && b[i] == h) { /* a longer run: scanned (short ones stay cheap) */
                    uint64_t j = same_words(b, i, end, h);
                    run += j - i;
                    i = j;
                }
                continue;
            }
            if (run && t->data)
                ms_blocks_count(t->data, (const msplug_block *)(uintptr_t)(run_word & ~MSPLUG_BLOCK_TAG), run);
            run_word = h;
            run = n;
            if (MS_UNLIKELY(fr != NULL)) {
                uint32_t now = (fr->focus & MS_FOCUS_FRAME) ||
                               ms_blocks_in_focus((const msplug_block *)(uintptr_t)(h & ~MSPLUG_BLOCK_TAG));
                fr->focus = (fr->focus & MS_FOCUS_FRAME) | now;
                focus_drop = !now;
                drop = ms_count_only || focus_drop;
            }
            continue;
        }
        /* Not a header: the rest of a group an instrumented signal handler cut; skipped. */
        if (!(h & HEADER_TAG)) continue;
        const msplug_site *s = (const msplug_site *)(uintptr_t)(h & ~HEADER_TAG);
        if (drop) { /* blocks only: skip the group's addresses in one step */
            uint32_t nw = MSPLUG_INFO_GET_GROUP_WORDS(s->info);
            if (nw) {
                i += nw;
                dropped += nw;
                continue;
            }
        }
        for (;;) {
            if (MS_LIKELY(!k->other && !drop)) { /* t is ms_tls */
                if (k->direct) {
                    i = direct_sites(&s, b, i, end, &ms_tls, k->direct, run_word, &run);
                    if (!s) break; /* the group's last site done */
                    /* the rest of the drain goes through the events, after this chunk */
                    ms_direct_end(&ms_tls, k->direct);
                    k->direct = NULL;
                } else {
                    i = plain_sites(&s, b, i, end, &ms_tls, k->ev, run_word, &run);
                    if (!s) break;
                }
            }
            uint64_t info = s->info;
            uint32_t kind = MSPLUG_INFO_KIND(info), nw = msplug_site_words(kind);
            if (!nw || i + nw > end) {
                i = end;
                break;
            }
            uintptr_t pc = s->pc;
            if (MS_UNLIKELY(!pc) && t->depth) pc = t->frames[t->depth - 1].pc; /* label dropped */
            if (MS_LIKELY(!drop))
                record_site(k, kind, MSPLUG_INFO_SIZE(info), b + i, pc);
            else
                dropped += nw;
            i += nw;
            if (MSPLUG_INFO_FLAGS(info) & MSPLUG_F_LAST) break;
            s++;
        }
    }
    if (run && t->data) ms_blocks_count(t->data, (const msplug_block *)(uintptr_t)(run_word & ~MSPLUG_BLOCK_TAG), run);
    for (int r = 0; r < 2; r++) count_calls(t->data, call_word[r], callee[r], calls[r]);
    if (!ms_count_only) ms_focus_count_skipped(dropped); /* words: about one per reference */
}

int ms_test_drain_pause_ms;
int ms_plug_direct_off;

/* The test hook's pause (rt.h), in threads other than the main one. */
static void test_pause(const ms_thread *t)
{
    if (!t->data || !t->data->rec_thread_index) return;
    struct timespec ts = { ms_test_drain_pause_ms / 1000, (long)(ms_test_drain_pause_ms % 1000) * 1000000 };
    while (nanosleep(&ts, &ts) != 0) {}
}

void ms_plug_drain(void)
{
    uint64_t *b = __memspy_buf;
    uint64_t used = b[0];
    b[0] = 0; /* first: ms_record below drains again only if new records came */
    claimed = 0;
    ms_thread *t = &ms_tls;
    /* time mode: the records of functions that could not be versioned are dropped (their
     * counts would be a part of the program's only) */
    if (!used || __memspy_plain == MSPLUG_RUN_PLAIN || !ms_thread_can_record(t)) return;
    if (MS_UNLIKELY(ms_test_drain_pause_ms)) test_pause(t);
    sink k = { NULL, NULL, NULL, 0, t->data->ev, NULL };
    /* a drain of many records composes them straight into a chunk for the simulator (rt.h,
     * ms_direct_begin), the drop of records out of focus left to the general path */
    ms_compose c;
    if (used >= MS_DIRECT_MIN_WORDS && !ms_count_only && !ms_focus_active && !ms_plug_direct_off &&
        ms_direct_begin(t, &c))
        k.direct = &c;
    parse(b, used, t, &k);
    if (k.direct) ms_direct_end(t, k.direct);
}

void ms_plug_drain_data(ms_thread_data *d, uint32_t *nev, int sim_try)
{
    uint64_t *b = d->plug_buf;
    if (!b) return;
    uint64_t used = __atomic_exchange_n(&b[0], 0, __ATOMIC_ACQ_REL);
    if (!used || __memspy_plain == MSPLUG_RUN_PLAIN) return;
    ms_thread *owner = (ms_thread *)(void *)((char *)nev - offsetof(ms_thread, nev));
    sink k = { owner, d, nev, sim_try, NULL, NULL };
    parse(b, used, owner, &k);
}

void __memspy_flush(void)
{
    if (MS_LIKELY(ms_rt_on)) {
        ms_plug_drain();
        /* a full buffer also ends a stretch of work in the recorded stream (blocks.c) */
        ms_thread *t = &ms_tls;
        if (ms_streams_mode && t->mode == MS_T_READY && t->data && t->data->blk_npending) ms_blocks_emit_work(t);
        return;
    }
    __memspy_buf[0] = 0; /* not profiling: drop */
}

/* Whether the group last committed is a copy (set: a set) of exactly these operands that the
 * plugin recorded; it then must not be recorded again by the interposed function. */
int ms_plug_claim(uintptr_t dst, uintptr_t src, size_t n, int set)
{
    const uint64_t *b = __memspy_buf;
    uint64_t used = b[0];
    if (!used || used > MSPLUG_BUF_WORDS || used == claimed) return 0;
    for (int var = 0; var < 2; var++) {
        uint32_t kind = set ? (var ? MSPLUG_K_SET_VAR : MSPLUG_K_SET) : (var ? MSPLUG_K_COPY_VAR : MSPLUG_K_COPY);
        uint32_t nw = msplug_site_words(kind);
        if (used < nw + 1 || (b[used - nw] & MSPLUG_BLOCK_TAG) != HEADER_TAG) continue; /* not a group header */
        const msplug_site *s = (const msplug_site *)(uintptr_t)(b[used - nw] & ~HEADER_TAG);
        uint64_t info = s->info;
        const uint64_t *w = b + used - nw + 1;
        if (MSPLUG_INFO_KIND(info) != kind || w[0] != dst || (!set && w[1] != src)) continue;
        if ((var ? w[nw - 1] : MSPLUG_INFO_SIZE(info)) != n) continue;
        claimed = used;
        return 1;
    }
    return 0;
}

/* Write the pcs of a module's (pc, site) pairs into its sites, once per module. */
static void register_pcs(const msplug_pc_pair *begin, const msplug_pc_pair *end, uint32_t plugin)
{
    /* Every translation unit of a module passes the module's whole section: once is enough. */
    static const msplug_pc_pair *seen[256];
    static uint32_t nseen;
    ms_runtime_init(); /* a library's constructors may run code before the runtime's own */
    plug_modules = plug_modules | plugin;
    if (!begin || begin >= end) return;
    for (uint32_t i = 0; i < nseen; i++)
        if (seen[i] == begin) return;
    if (nseen < sizeof seen / sizeof seen[0]) seen[nseen++] = begin;
    for (const msplug_pc_pair *p = begin; p < end; p++) {
        msplug_site *s = (msplug_site *)(uintptr_t)p->site;
        if (s && !s->pc) s->pc = p->pc;
    }
    plug_sites = plug_sites + (uint64_t)(end - begin);
}

void __memspy_register_pcs(const msplug_pc_pair *begin, const msplug_pc_pair *end)
{
    register_pcs(begin, end, PLUG_GCC);
}

void __memspy_register_llvm(const msplug_pc_pair *begin, const msplug_pc_pair *end)
{
    register_pcs(begin, end, PLUG_LLVM);
}

const char *ms_instrumentation_note(void)
{
    static const char *const alone[4] = {
        NULL,
        "instrumentation: memspy gcc plugin (inline capture after vectorisation)",
        "instrumentation: memspy llvm plugin (inline capture after vectorisation)",
        "instrumentation: memspy gcc and llvm plugins (inline capture after vectorisation)",
    };
    static const char *const mixed[4] = {
        NULL,
        "instrumentation: memspy gcc plugin and ThreadSanitizer hooks (mixed objects)",
        "instrumentation: memspy llvm plugin and ThreadSanitizer hooks (mixed objects)",
        "instrumentation: memspy gcc and llvm plugins and ThreadSanitizer hooks (mixed objects)",
    };
    uint32_t m = plug_modules & 3;
    if (m) return ms_tsan_seen ? mixed[m] : alone[m];
    if (ms_tsan_seen) return "instrumentation: ThreadSanitizer hooks (-fsanitize=thread)";
    return NULL;
}
