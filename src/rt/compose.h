/* References composed into a chunk for the simulator one at a time (events.c), by the flush
 * from a thread's events and by the plugin's drain straight from its records (plugin.c,
 * ms_direct_begin): the contexts' cache, the main stack's placement and the hit window's
 * common case, inlined into both loops. */
#ifndef MEMSPY_RT_COMPOSE_H
#define MEMSPY_RT_COMPOSE_H
#include "rt.h"

/* The contexts' cache in front of their table (events.c): the last context per pc slot. One
 * shared by the flushes that hold the simulator lock (ms_pc_cache), one per data block for the
 * streams-only flushes, which do not take it (ms_thread_data.ctx_cache). */
typedef struct ms_pc_slot {
    uint64_t pc; /* ~0: empty (no event's pc) */
    uint32_t bin, ctx;
} ms_pc_slot;
#define MS_PC_CACHE_SLOTS 4096u
extern ms_pc_slot *ms_pc_cache;
/* ms_ctx_of past the cache: the table, the context made on first sight (lock held). */
uint32_t ms_ctx_of_slow(uint64_t pc, uint32_t bin, uint32_t slot_i);
/* The same for any cache (its owner's): the table is read without a lock, a new context is
 * made under the contexts' own lock (only tried for a while if try_only: the signal path;
 * 0 when it was not had). */
uint32_t ms_ctx_in_slow(ms_pc_slot *cache, uint64_t pc, uint32_t bin, uint32_t slot_i, int try_only);

/* Context id of (pc, bin), made on first sight (simulator lock held). 0 if out of memory. An
 * empty cache slot has ctx 0 and pc ~0, so one compare of pc and bin suffices. */
MS_HOT uint32_t ms_ctx_of(uint64_t pc, uint32_t bin)
{
    uint32_t slot_i = (uint32_t)(pc >> 1) & (MS_PC_CACHE_SLOTS - 1);
    if (MS_LIKELY(ms_pc_cache[slot_i].pc == pc && ms_pc_cache[slot_i].bin == bin)) return ms_pc_cache[slot_i].ctx;
    return ms_ctx_of_slow(pc, bin, slot_i);
}

/* A chunk being composed (simulator lock held), by the flush from its events or by the
 * plugin's drain straight from its records (ms_direct_begin): ms_compose_put takes one
 * reference at a time, with the window's state of its common cases here (in registers when
 * the state is a local of the caller's loop), written back around the rare paths. */
typedef struct {
    ms_sim_ref *out;
    uint32_t k;   /* commands in out */
    ms_filter *f; /* its window composes the chunk; NULL: plain references */
    int stream;   /* ms_cmd_store's */
    unsigned l1;  /* L1's line shift */
    uint64_t last_line, seq, filtered, pause;
    ms_win_entry *last;
    uint64_t *counts;
    uint32_t cap;              /* contexts below cap are counted here */
    uintptr_t lo, span, shift; /* the main stack's placement (rt.h) */
    uint64_t dropped;          /* references without a context (out of memory) */
    uint64_t refs;             /* references put */
    uint8_t busy_prev;         /* ms_direct_begin's ms_busy_begin */
} ms_compose;

/* A reference ms_compose_put's loop does not take itself (window written back): a line
 * joining the window (join: 1 + its slot), or anything through ms_filter_put. Returns k. */
uint32_t ms_compose_slow(ms_filter *f, ms_sim_ref *out, uint32_t k, uint32_t ctx, uint64_t addr, uint32_t sf,
                         uint32_t join);

MS_HOT void ms_compose_load(ms_compose *s)
{
    const ms_window *w = &s->f->win;
    s->last_line = w->last_line;
    s->last = w->last_entry;
    s->seq = w->seq;
    s->pause = w->pause;
    s->filtered = 0;
    s->counts = s->f->counts;
    s->cap = s->f->counts_cap;
}

MS_HOT void ms_compose_save(ms_compose *s)
{
    ms_window *w = &s->f->win;
    w->pause = s->pause;
    w->last_line = s->last_line;
    w->last_entry = s->last;
    w->seq = s->seq;
    w->filtered += s->filtered;
}

/* Start composing into chunk out for filter (NULL: the simulator thread runs the window),
 * as ms_pipeline_begin gave them. */
MS_HOT void ms_compose_open(ms_compose *s, ms_sim_ref *out, ms_filter *filter)
{
    *s = (ms_compose){ .out = out,
                       .f = filter && filter->win.on ? filter : NULL,
                       .stream = filter ? filter->stream : 1,
                       .l1 = filter ? filter->l1_shift : 0,
                       .lo = ms_main_stack.lo,
                       .span = ms_main_stack.span,
                       .shift = ms_main_stack.shift };
    if (s->f) ms_compose_load(s);
}

/* End composing: the window's state written back, the counts appended. Returns the chunk's
 * commands. */
MS_HOT uint32_t ms_compose_close(ms_compose *s)
{
    if (!s->f) return s->k;
    ms_compose_save(s);
    return ms_filter_finish(s->f, s->out, s->k);
}

/* addr where it is simulated: moved by the main stack's placement (rt.h). An address the
 * shadow map holds (a heap block, a global) is never in the main thread's stack mapping, so
 * only a stack address needs this. */
MS_HOT uint64_t ms_compose_place(const ms_compose *s, uint64_t addr)
{
    return MS_UNLIKELY(addr - s->lo < s->span) ? addr + s->shift : addr;
}

/* Where a site's reference found its line in the window last, and what the window adds to
 * its context's count (1 a read, 1 << 32 a write): the composer's state per compiled site
 * (ms_compose_put_win's hint). */
typedef struct {
    uint64_t line;
    uint64_t inc;
    size_t off; /* its slot's offset in the window's slots (bytes) */
} ms_compose_hint;

/* One reference of context ctx >= 1 (an access of a data bin by the code at a pc, ms_ctx_of;
 * addr placed by ms_compose_place, size_flags as ms_event's) through the window (s->f set)
 * as ms_filter_put does, not counted in s->refs. A reference within one line already in the
 * window is counted here, one while the window pauses passed on; a line joining goes to
 * ms_compose_slow (after the probe here), as does a reference straddling lines or of a
 * context beyond the counts (below_cap: ctx is known below them). hint: the site's own state
 * (NULL: none). */
MS_HOT void ms_compose_put_win(ms_compose *s, uint32_t ctx, uint64_t addr, uint32_t sf, ms_compose_hint *hint,
                               int below_cap)
{
    uint32_t join = 0; /* join: 1 + the slot a joining line takes */
    uint64_t line = addr >> s->l1;
    uint32_t size = sf & MS_EV_SIZE_MAX;
    /* within one line (user addresses: no overflow) */
    if (MS_LIKELY(size && ((addr + size - 1) >> s->l1) == line)) {
        if (MS_UNLIKELY(s->pause)) { /* passed unfiltered (ms_window_ref) */
            s->pause--;
            ms_cmd_store(&s->out[s->k++], addr, ctx, sf, s->stream);
            return;
        }
        if (!below_cap && MS_UNLIKELY(ctx >= s->cap)) goto slow;
        ms_win_entry *we = s->last;
        if (line != s->last_line) {
            /* the site's line as last time, still in its slot (a line is in one slot at most:
             * where the probe would find it) */
            if (!hint || hint->line != line ||
                (we = (ms_win_entry *)(void *)((char *)s->f->win.slot + hint->off))->line != line)
                for (unsigned j = ms_window_slot(line);; j = (j + 1) & (MS_WIN_SLOTS - 1)) {
                    we = &s->f->win.slot[j];
                    if (we->line == line) {
                        if (hint) {
                            hint->line = line;
                            hint->off = j * sizeof *we;
                        }
                        break;
                    }
                    if (we->line == MS_WIN_EMPTY) { /* joins (ms_window_ref): simulated */
                        join = j + 1;
                        goto slow;
                    }
                }
            we->last = ++s->seq;
            s->last_line = line;
            s->last = we;
        }
        we->dirty |= (uint8_t)(sf >> 31); /* MS_EV_WRITE */
        s->filtered++;
        uint64_t c = s->counts[ctx];
        if (MS_UNLIKELY(!c)) s->f->touched[s->f->ntouched++] = ctx;
        s->counts[ctx] = c + (hint ? hint->inc : 1ull << ((sf >> 31) << 5)); /* writes << 32 | reads */
        return;
    }
slow:
    ms_compose_save(s);
    s->k = ms_compose_slow(s->f, s->out, s->k, ctx, addr, sf, join);
    ms_compose_load(s);
}

/* One reference of context ctx (0: none, out of memory) as ms_compose_put_win, the window
 * off (s->f NULL) included; not counted in s->refs. */
MS_HOT void ms_compose_put_ctx(ms_compose *s, uint32_t ctx, uint64_t addr, uint32_t sf, ms_compose_hint *hint)
{
    if (MS_UNLIKELY(!ctx)) {
        s->dropped++;
        return;
    }
    if (MS_UNLIKELY(!s->f)) {
        ms_cmd_store(&s->out[s->k++], addr, ctx, sf, s->stream);
        return;
    }
    ms_compose_put_win(s, ctx, addr, sf, hint, 0);
}

/* ms_compose_put_ctx of the context of (pc, bin) (0: none, out of memory), counted in s->refs. */
MS_HOT void ms_compose_put(ms_compose *s, uint64_t pc, uint32_t bin, uint64_t addr, uint32_t sf)
{
    s->refs++;
    ms_compose_put_ctx(s, ms_ctx_of(pc, bin), addr, sf, NULL);
}

/* The plugin's drain of the calling thread t (ready, in focus, with at least
 * MS_DIRECT_MIN_WORDS words) composes its references straight into a chunk when the run
 * records no stream: returns 1 with the simulator lock and t's flush flag held, the events
 * t had buffered flushed first and s open (the drain then ms_compose_put's its references
 * and calls ms_direct_end), or 0 (the references go through the event buffer). */
int ms_direct_begin(ms_thread *t, ms_compose *s);
/* Hand s's chunk over and release what ms_direct_begin took. */
void ms_direct_end(ms_thread *t, ms_compose *s);
#define MS_DIRECT_MIN_WORDS 256u

#endif
