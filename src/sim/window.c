/* The hit window: an exact filter in front of a one-processor LRU L1 (sim_internal.h).
 *
 * Why it is exact. The window W holds the lines referenced since it opened; each line's first
 * reference in the window is simulated in full, later ones only counted. At most `ways` lines
 * of W map to one L1 set and fewer than the L1 shadow's capacity are in W, so:
 *  - no line of W leaves L1 or the shadow while the window is open (an eviction takes the set's
 *    or the shadow's least recent line, and every line of W is more recent than every line
 *    outside it, of which the set, or the shadow, still holds one or has an empty way);
 *  - a first reference's outcome (hit or miss at every level, 3C cause, victim, evictor) does
 *    not depend on the order of the lines of W among themselves, only on which lines were
 *    referenced since its line's last reference, and the filtered references add none that
 *    its full simulation does not see;
 *  - a filtered reference is an L1 hit: it only adds to its context's reads or writes, sets
 *    the line's dirty bit (deferred: the line cannot be evicted before the window closes) and
 *    changes the recency order among the lines of W.
 * Closing the window restores that order: the simulator holds W's lines in first-reference
 * order, the program left them in last-reference order; the lines after the longest prefix of
 * the last-reference order that is already in first-reference order are referenced again, in
 * last-reference order (each an L1 hit that is not counted: ms_sim_window_ops). State and counters are then
 * exactly those of simulating every reference; test_sim_reference checks it on random and
 * strided streams against a brute-force model. */
#include <string.h>

#include "sim_internal.h"

int ms_window_init(ms_window *w, const ms_hier_config *cfg, ms_mem *mem)
{
    memset(w, 0, sizeof *w);
    w->last_line = MS_WIN_EMPTY;
    for (unsigned i = 0; i < MS_WIN_SLOTS; i++) w->slot[i].line = MS_WIN_EMPTY;
    const ms_level_config *l1 = &cfg->level[0];
    uint64_t lines = l1->size / l1->line;
    uint64_t max = lines > 1 ? lines - 1 : 0; /* fewer lines than the L1 shadow holds */
    w->max = max < MS_WIN_MAX ? (uint32_t)max : MS_WIN_MAX;
    w->per_set = l1->ways < 255 ? l1->ways : 255;
    w->set_mask = lines / l1->ways - 1;
    w->set_bytes = (size_t)(w->set_mask + 1);
    w->set_count = ms_mem_alloc(mem, w->set_bytes);
    if (!w->set_count) return -1;
    w->on = w->max >= 2 && l1->policy == MS_POLICY_LRU && cfg->nprocs <= 1;
    return 0;
}

void ms_window_free(ms_window *w, ms_mem *mem)
{
    ms_mem_release(mem, w->set_count, w->set_bytes);
    w->set_count = NULL;
    w->on = 0;
}

static void add(ms_window *w, uint64_t line, unsigned slot)
{
    ms_win_entry *e = &w->slot[slot];
    e->line = line;
    e->last = ++w->seq;
    e->dirty = 0;
    e->used = 0;
    w->member[w->n++] = (uint8_t)slot;
    w->set_count[line & w->set_mask]++;
    w->last_line = line;
    w->last_entry = e;
}

uint32_t ms_window_close(ms_window *w)
{
    uint32_t n = w->n, nops = 0;
    if (n == 0) return 0;
    /* The members (in first-reference order) sorted by last reference: insertion sort, as
     * the two orders mostly agree. */
    struct {
        uint64_t last;
        uint32_t pos;
    } order[MS_WIN_MAX];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t last = w->slot[w->member[i]].last;
        uint32_t j = i;
        for (; j > 0 && order[j - 1].last > last; j--) order[j] = order[j - 1];
        order[j].last = last;
        order[j].pos = i;
    }
    uint32_t keep = 1; /* the longest prefix of `order` that is increasing */
    while (keep < n && order[keep].pos > order[keep - 1].pos) keep++;
    for (uint32_t j = 0; j < n; j++) {
        ms_win_entry *e = &w->slot[w->member[order[j].pos]];
        if (j >= keep || e->dirty || e->used)
            w->ops[nops++] = (ms_win_op){ e->line, (uint8_t)(j >= keep), e->dirty, e->used };
        w->set_count[e->line & w->set_mask]--;
        e->line = MS_WIN_EMPTY;
    }
    w->windows++;
    w->filtered_total += w->filtered;
    w->n = 0;
    w->seq = 0;
    w->filtered = 0;
    w->last_line = MS_WIN_EMPTY;
    w->last_entry = NULL;
    return nops;
}

int ms_window_join(ms_window *w, uint64_t line, unsigned slot)
{
    int nops = 0;
    if (w->n == w->max || w->set_count[line & w->set_mask] == w->per_set) {
        /* Full: close and judge the window. It pays when its filtered references outnumber
         * the work of its lines (joining, closing, re-referencing): below two per line, pause
         * for 1K references, doubling up to 1M while windows keep not paying. */
        int paid = w->filtered >= 2ull * w->n;
        nops = (int)ms_window_close(w);
        if (paid) {
            w->strikes = 0;
        } else {
            w->pause = 1024ull << (w->strikes < 10 ? w->strikes : 10);
            w->strikes++;
            w->paused++;
            return nops;
        }
        slot = ms_window_slot(line); /* the table is empty now */
    }
    add(w, line, slot);
    return nops;
}

void ms_sim_window_ops(ms_sim *sim, const ms_win_op *ops, uint32_t n)
{
    ms_cache *l1 = &sim->cache[0];
    for (uint32_t i = 0; i < n; i++) {
        uint64_t line = ops[i].line, set_no = line & l1->set_mask;
        if (ops[i].rereference) {
            int way = ms_cache_lookup(l1, line, ops[i].dirty);
            if (way < 0) continue; /* never: lines of the window stay in L1 */
            if (ops[i].used && l1->used) l1->used[set_no * l1->ways + (uint32_t)way] |= ops[i].used;
            ms_fa_touch(&sim->fa[0], line, ms_cache_aux(l1, line, way));
            continue;
        }
        if (ops[i].used && l1->used) { /* utilisation: the line's way, order unchanged */
            int way = l1->fp ? ms_cache_find(l1, set_no, line) : -1;
            for (uint32_t w = 0; way < 0 && w < l1->ways; w++)
                if ((l1->tags[set_no * l1->ways + w] >> 1) == line) way = (int)w;
            if (way >= 0) l1->used[set_no * l1->ways + (uint32_t)way] |= ops[i].used;
        }
        if (ops[i].dirty) ms_cache_mark_dirty(l1, line); /* dirty bit, order unchanged */
    }
}
