/* The hit window: an exact filter of L1 hits for a one-processor hierarchy whose L1 is LRU
 * (window.c says why it is exact). Pure: its state is an ms_window, no I/O, and it never looks
 * at the simulator's state, only at the reference stream and L1's geometry. So it can run on
 * either side of a hand-over: ms_sim_access applies it itself (ms_sim_set_window), and the
 * runtime runs one in front of its simulator thread (events.c), so that references it counts
 * never cross over.
 *
 * Use: for each reference that lies in one L1 line, r = ms_window_ref(w, line, write);
 * r < 0: the reference is an L1 hit to be counted only (ms_sim_count); r >= 0: apply the
 * first r operations of w->ops (ms_sim_window_ops: a closing window restoring the recency
 * order) and simulate the reference in full. Before any other reference (one straddling two
 * lines, say), close the window (ms_window_close) and apply its operations. */
#ifndef MEMSPY_SIM_WINDOW_H
#define MEMSPY_SIM_WINDOW_H
#include <stddef.h>
#include <stdint.h>

#include "mem.h"
#include "sim.h"

#define MS_WIN_MAX 64 /* lines in a window at most */
#define MS_WIN_SLOT_BITS 8
#define MS_WIN_SLOTS (1u << MS_WIN_SLOT_BITS)
#define MS_WIN_EMPTY UINT64_MAX

typedef struct {
    uint64_t line; /* MS_WIN_EMPTY = free slot */
    uint64_t last; /* sequence number of the line's last reference in the window */
    uint8_t dirty; /* a counted-only write: the L1 line's dirty bit is set on closing */
    uint64_t used; /* used-mask bits of counted-only references: OR-ed into L1's on closing */
} ms_win_entry;

/* What a closing window asks of the simulator for one of its lines, in order. */
typedef struct {
    uint64_t line;       /* L1 line number */
    uint8_t rereference; /* 1: reference it again (an L1 hit, not counted); 0: only dirty */
    uint8_t dirty;       /* set its dirty bit */
    uint64_t used;       /* OR these bits into its used mask (spatial utilisation) */
} ms_win_op;

typedef struct {
    int on;             /* the filter applies (set by ms_window_init) */
    uint64_t last_line; /* the line referenced last (its entry: last_entry) */
    ms_win_entry *last_entry;
    uint64_t seq;
    uint32_t n, max;                          /* lines in the window; at most max */
    uint32_t per_set;                         /* lines of one L1 set in the window at most (its ways) */
    uint64_t set_mask;                        /* L1 sets - 1 */
    uint64_t filtered;                        /* references counted without simulation in this window */
    uint64_t pause;                           /* references to pass unfiltered before the next window */
    unsigned strikes;                         /* windows in a row that did not pay */
    uint64_t windows, filtered_total, paused; /* closed windows, their filtered references,
                                                 * pauses (tests, measurements) */
    ms_win_entry slot[MS_WIN_SLOTS];          /* open addressing by line (linear probing) */
    uint8_t member[MS_WIN_MAX];               /* slots of the lines, in first-reference order */
    uint8_t *set_count;                       /* per L1 set: lines of the window in it */
    size_t set_bytes;
    ms_win_op ops[MS_WIN_MAX]; /* the last closing's operations */
} ms_window;

/* Set w up for cfg's L1. It is on if cfg has one processor and an LRU L1 of at least three
 * lines (a window holds fewer lines than L1). mem provides the per-set counts. 0 or -1. */
int ms_window_init(ms_window *w, const ms_hier_config *cfg, ms_mem *mem);
void ms_window_free(ms_window *w, ms_mem *mem);

/* Spatial utilisation (docs/simulator.md): the used-mask bits of bytes lo..hi (inclusive
 * offsets within one L1 line of 2^line_shift bytes): bit i covers bytes [i*g, (i+1)*g),
 * g = max(line/64, 1). */
static inline uint64_t ms_used_mask(unsigned line_shift, uint64_t lo, uint64_t hi)
{
    unsigned g = line_shift > 6 ? line_shift - 6 : 0;
    unsigned a = (unsigned)(lo >> g), b = (unsigned)(hi >> g);
    return (~0ull >> (63 - (b - a))) << a; /* b - a + 1 bits from bit a */
}

/* Out-of-line part of ms_window_ref: line is not in the window. */
int ms_window_join(ms_window *w, uint64_t line, unsigned slot);

static inline unsigned ms_window_slot(uint64_t line)
{
    return (unsigned)((line * 0x9E3779B97F4A7C15ull) >> (64 - MS_WIN_SLOT_BITS));
}

/* One reference (w->on) to L1 line `line`, bytes `bits` of it (the used mask's bits,
 * sim_internal.h ms_used_bits; 0 where utilisation is not kept): < 0 to count it only, else
 * the number of operations in w->ops to apply before simulating it in full. */
static inline int ms_window_ref(ms_window *w, uint64_t line, unsigned write, uint64_t bits)
{
    if (w->pause) {
        w->pause--;
        return 0;
    }
    ms_win_entry *e = w->last_entry;
    if (line != w->last_line) {
        unsigned i = ms_window_slot(line);
        for (;; i = (i + 1) & (MS_WIN_SLOTS - 1)) {
            e = &w->slot[i];
            if (e->line == line) break;
            if (e->line == MS_WIN_EMPTY) return ms_window_join(w, line, i);
        }
        e->last = ++w->seq;
        w->last_line = line;
        w->last_entry = e;
    }
    e->dirty |= (uint8_t)write;
    e->used |= bits;
    w->filtered++;
    return -1;
}

/* Close the window (it empties): returns the number of operations in w->ops. */
uint32_t ms_window_close(ms_window *w);

/* Apply n operations of a closing window to the simulator (one processor). */
void ms_sim_window_ops(ms_sim *sim, const ms_win_op *ops, uint32_t n);

#endif
