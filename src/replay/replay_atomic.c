/* Atomic operations as ordering edges in every interleaving (stream.h, MS_SYNC_ATOMIC).
 *
 * The runtime stamps a releasing atomic (a store with release, acq_rel or seq_cst order, or the
 * write of such a read-modify-write) before it writes and an acquiring one (a load with
 * consume or stronger order) after it read, from the process-wide sync sequence. So a load
 * that read the value of another thread's release has the larger seq. The replay keeps, per
 * address, the sorted seqs of all its releasing events (found by the pre-scan of the streams)
 * and how many of them, from the lowest, have all been replayed: an acquiring event with seq s
 * waits until every releasing event on its address with a seq below s has been replayed.
 * Edges only go from lower to higher seqs, so they add no cycle to the recorded order; a
 * release that never comes (a damaged stream) ends in a deadlock break like any other wait.
 * Relaxed atomics carry no event: they are plain accesses. */
#include <stdlib.h>

#include "../format/stream.h"
#include "replay_internal.h"

int replay_atomic_note(replay_state *st, const ms_replay_event *e)
{
    if (e->kind != MS_SYNC_ATOMIC || !ms_atomic_releases(e->size)) return 0;
    sync_obj *o = sync_get(&st->objs, SYNC_ATOMIC, e->addr, 0);
    if (!o) return -1;
    if (o->u.atomic.n == o->u.atomic.cap) {
        /* the first seq in the object itself (sync_table.h), then 16, 32, ... on the heap */
        size_t cap = o->u.atomic.cap > 1 ? 2 * o->u.atomic.cap : o->u.atomic.cap ? 16 : 1;
        uint64_t *v = &o->u.atomic.seq1;
        if (cap > 1) {
            int inline_seqs = o->u.atomic.seqs == &o->u.atomic.seq1;
            if (!(v = realloc(inline_seqs ? NULL : o->u.atomic.seqs, cap * sizeof *v))) return -1;
            if (inline_seqs) v[0] = o->u.atomic.seq1;
        }
        o->u.atomic.seqs = v;
        o->u.atomic.cap = cap;
    }
    o->u.atomic.seqs[o->u.atomic.n++] = e->seq;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int replay_atomic_prepare(replay_state *st)
{
    for (size_t i = 0; i < st->objs.nbuckets; i++)
        for (sync_obj *o = st->objs.buckets[i]; o; o = o->next) {
            if (o->type != SYNC_ATOMIC || o->u.atomic.done) continue;
            if (o->u.atomic.n > 1) qsort(o->u.atomic.seqs, o->u.atomic.n, sizeof *o->u.atomic.seqs, cmp_u64);
            if (o->u.atomic.n <= 1)
                o->u.atomic.done = &o->u.atomic.done1; /* zeroed with the object */
            else if (!(o->u.atomic.done = calloc(o->u.atomic.n, 1)))
                return -1;
        }
    return 0;
}

/* The number of seqs below s. */
static size_t seqs_below(const sync_obj *o, uint64_t s)
{
    size_t lo = 0, hi = o->u.atomic.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (o->u.atomic.seqs[mid] < s)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int replay_atomic(replay_state *st, const ms_replay_event *e, int force)
{
    sync_obj *o = sync_find(&st->objs, SYNC_ATOMIC, e->addr, 0);
    if (!o || !o->u.atomic.done) return 1; /* no release on it (or no pre-scan: one thread) */
    if (ms_atomic_acquires(e->size) && !force && o->u.atomic.prefix < seqs_below(o, e->seq)) return 0;
    if (ms_atomic_releases(e->size)) {
        size_t i = seqs_below(o, e->seq);
        if (i < o->u.atomic.n && o->u.atomic.seqs[i] == e->seq) o->u.atomic.done[i] = 1;
        while (o->u.atomic.prefix < o->u.atomic.n && o->u.atomic.done[o->u.atomic.prefix]) o->u.atomic.prefix++;
    }
    return 1;
}

/* An ATOMIC event that only reads (a load). */
static int atomic_load_event(const ms_replay_event *e)
{
    return e->kind == MS_SYNC_ATOMIC && (e->size & (MS_ATOMIC_READ | MS_ATOMIC_WRITE)) == MS_ATOMIC_READ;
}

size_t replay_atomic_spin(const ms_replay_event *ev, size_t pos, size_t n)
{
    const ms_replay_event *e = &ev[pos];
    if (!atomic_load_event(e)) return 0;
    /* the load's own read, then the loop's accesses, and the WORK of the loop's blocks (plugin
     * code: skipped with the iteration, as its time is waiting) */
    size_t works = 0, i, last = pos + 1 + MS_ATOMIC_SPIN_BODY_MAX; /* the last place looked at, + 1 per WORK */
    for (i = pos + 1; i < n && i <= last; i++) {
        unsigned kind = ev[i].kind;
        if (kind == 0) continue; /* an access: most of them */
        if (atomic_load_event(&ev[i])) return ev[i].addr == e->addr ? i - pos : 0;
        if (kind != MS_SYNC_WORK || works == REPLAY_SPIN_WORK_MAX) return 0;
        works++;
        last++;
    }
    return i == n && i <= last ? REPLAY_SPIN_UNDECIDED : 0;
}
