/* The synchronisation semantics of the replay (src/format/stream.h lists the events):
 *   locks: exclusive or shared holds; a thread that cannot have the lock queues, and a release
 *          hands the lock to the queue's head(s) in the order they started waiting (FIFO), so
 *          a waiter holds it before it runs again. Re-acquiring a lock the thread holds
 *          succeeds (recursive mutexes). Releasing a lock the thread does not hold is ignored.
 *   barriers: the n-th arrival of a thread at id joins episode (id, n); the episode completes
 *          when `participants` threads have arrived (one region boundary), then all pass.
 *   cond wait/signal: a wait is woken by a signal issued while it waited, judged by the
 *          recorded seqs: between the waiter's previous sync event and its COND_WAIT (which
 *          the runtime stamps when the wait returned). A signal replayed before the wait
 *          began in replay order is kept for it; a signal wakes the longest such waiter, a
 *          broadcast all of them.
 *   create/join, semaphores (initial count 0), OpenMP fork/begin.
 *   atomics: an acquiring event waits for the earlier releases on its address (replay_atomic.c).
 * A forced event (deadlock break) proceeds at once: a lock is granted on top of its holders,
 * a barrier episode completes with the threads that arrived, a cond wait stops waiting, a
 * semaphore count goes below 0 (a later post pays it back), a join or begin passes. */
#include <stdlib.h>

#include "../format/stream.h"
#include "replay_internal.h"

static void region(replay_state *st)
{
    if (st->sink->region) st->sink->region(st->sink->ud);
}

static void enqueue(wait_queue *q, replay_thread *t)
{
    t->wait_next = NULL;
    if (q->tail)
        q->tail->wait_next = t;
    else
        q->head = t;
    q->tail = t;
}

static replay_thread *dequeue(wait_queue *q)
{
    replay_thread *t = q->head;
    if (t && !(q->head = t->wait_next)) q->tail = NULL;
    if (t) t->wait_next = NULL;
    return t;
}

/* Take t out of q wherever it is (a forced waiter). */
static void unqueue(wait_queue *q, replay_thread *t)
{
    replay_thread *prev = NULL;
    for (replay_thread *w = q->head; w; prev = w, w = w->wait_next) {
        if (w != t) continue;
        if (prev)
            prev->wait_next = w->wait_next;
        else
            q->head = w->wait_next;
        if (q->tail == w) q->tail = prev;
        w->wait_next = NULL;
        return;
    }
}

replay_thread *replay_thread_find(replay_state *st, uint64_t index)
{
    size_t lo = 0, hi = st->nthreads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->threads[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nthreads && st->threads[lo].index == index ? &st->threads[lo] : NULL;
}

static int compatible(const sync_obj *lock, int shared)
{
    return shared ? lock->u.lock.exclusive == 0 : lock->u.lock.exclusive == 0 && lock->u.lock.shared == 0;
}

static int holds(const replay_thread *t, const sync_obj *lock)
{
    for (size_t i = 0; i < t->nheld; i++)
        if (t->held[i].lock == lock) return 1;
    return 0;
}

/* t now holds lock. Returns 0 or -1 (out of memory). */
static int grant(replay_thread *t, sync_obj *lock, int shared)
{
    if (t->nheld == t->held_cap) {
        size_t cap = t->held_cap ? 2 * t->held_cap : 4;
        held_lock *h = realloc(t->held, cap * sizeof *h);
        if (!h) return -1;
        t->held = h;
        t->held_cap = cap;
    }
    t->held[t->nheld++] = (held_lock){ lock, shared };
    if (shared)
        lock->u.lock.shared++;
    else
        lock->u.lock.exclusive++;
    return 0;
}

/* Give the lock to the waiters at the head of its queue that are compatible, in order. */
static int hand_off(sync_obj *lock)
{
    replay_thread *w;
    while ((w = lock->u.lock.waiters.head) && compatible(lock, w->want_shared)) {
        dequeue(&lock->u.lock.waiters);
        w->queued_on = NULL;
        w->granted = 1;
        if (grant(w, lock, w->want_shared) < 0) return -1;
    }
    return 0;
}

/* t gives up its most recent hold of lock (if it has one). */
static int release(replay_thread *t, sync_obj *lock)
{
    for (size_t i = t->nheld; i-- > 0;) {
        if (t->held[i].lock != lock) continue;
        if (t->held[i].shared)
            lock->u.lock.shared--;
        else
            lock->u.lock.exclusive--;
        for (size_t j = i + 1; j < t->nheld; j++) t->held[j - 1] = t->held[j];
        t->nheld--;
        return hand_off(lock);
    }
    return 0;
}

static int acquire(replay_thread *t, sync_obj *lock, int shared, int force)
{
    if (t->granted) { /* handed over while it waited */
        t->granted = 0;
        return 1;
    }
    if (t->queued_on == lock) {
        if (!force) return 0;
        unqueue(&lock->u.lock.waiters, t);
        t->queued_on = NULL;
        return grant(t, lock, shared) < 0 ? -1 : 1;
    }
    if (force || holds(t, lock) || (!lock->u.lock.waiters.head && compatible(lock, shared)))
        return grant(t, lock, shared) < 0 ? -1 : 1;
    t->want_shared = shared;
    t->queued_on = lock;
    enqueue(&lock->u.lock.waiters, t);
    return 0;
}

/* Take a signal of cond issued while t waited (seq strictly between t's previous sync event
 * and its COND_WAIT, which is stamped when the wait returned). Returns 1 if there is one. */
static int take_pending_signal(sync_obj *cond, const replay_thread *t)
{
    pending_signal *p = cond->u.cond.pending;
    for (size_t i = 0; i < cond->u.cond.npending; i++) {
        if (p[i].seq <= t->wait_from || p[i].seq >= t->wait_to) continue;
        if (!p[i].broadcast) {
            for (size_t j = i + 1; j < cond->u.cond.npending; j++) p[j - 1] = p[j];
            cond->u.cond.npending--;
        }
        return 1;
    }
    return 0;
}

/* Keep a signal for waits later in replay order. Signals no future wait can take (seq at or
 * below every unfinished thread's last seq) are dropped first. Returns 0 or -1. */
static int keep_signal(replay_state *st, sync_obj *cond, const ms_replay_event *e)
{
    if (cond->u.cond.npending == cond->u.cond.cap) {
        uint64_t oldest = UINT64_MAX;
        for (size_t i = 0; i < st->nthreads; i++)
            if (!st->threads[i].done && st->threads[i].last_seq < oldest) oldest = st->threads[i].last_seq;
        size_t n = 0;
        for (size_t i = 0; i < cond->u.cond.npending; i++)
            if (cond->u.cond.pending[i].seq > oldest) cond->u.cond.pending[n++] = cond->u.cond.pending[i];
        cond->u.cond.npending = n;
    }
    if (cond->u.cond.npending == cond->u.cond.cap) {
        size_t cap = cond->u.cond.cap ? 2 * cond->u.cond.cap : 8;
        pending_signal *p = realloc(cond->u.cond.pending, cap * sizeof *p);
        if (!p) return -1;
        cond->u.cond.pending = p;
        cond->u.cond.cap = cap;
    }
    cond->u.cond.pending[cond->u.cond.npending++] = (pending_signal){ e->seq, (int)(e->size & 1) };
    return 0;
}

static int cond_wait(replay_state *st, replay_thread *t, const ms_replay_event *e, int force)
{
    sync_obj *mutex = sync_get(&st->objs, SYNC_LOCK, e->size, 0);
    if (!mutex) return -1;
    int gave_up_mutex = 0;
    if (t->cond_phase == 0) {
        sync_obj *cond = sync_get(&st->objs, SYNC_COND, e->addr, 0);
        if (!cond || release(t, mutex) < 0) return -1;
        t->wait_from = t->last_seq;
        t->wait_to = e->seq;
        t->signaled = take_pending_signal(cond, t);
        if (!t->signaled) {
            enqueue(&cond->u.cond.waiters, t);
            t->queued_on = cond;
        }
        t->cond_phase = 1;
        gave_up_mutex = 1;
    }
    if (t->cond_phase == 1) {
        if (!t->signaled) {
            if (!force) return gave_up_mutex ? 2 : 0;
            unqueue(&t->queued_on->u.cond.waiters, t);
            t->queued_on = NULL;
        }
        t->signaled = 0;
        t->cond_phase = 2;
    }
    int rc = acquire(t, mutex, 0, force);
    if (rc == 1) t->cond_phase = 0;
    return rc == 0 && gave_up_mutex ? 2 : rc;
}

/* Wake the longest waiter (signal) or every waiter (broadcast) whose wait the signal's seq
 * falls in; a signal that woke nobody, and every broadcast, is kept for later waits. */
static int cond_signal(replay_state *st, const ms_replay_event *e)
{
    sync_obj *cond = sync_get(&st->objs, SYNC_COND, e->addr, 0);
    if (!cond) return -1;
    int broadcast = (int)(e->size & 1), woke = 0;
    for (replay_thread *w = cond->u.cond.waiters.head, *next; w && (broadcast || !woke); w = next) {
        next = w->wait_next;
        if (e->seq <= w->wait_from || e->seq >= w->wait_to) continue;
        unqueue(&cond->u.cond.waiters, w);
        w->queued_on = NULL;
        w->signaled = 1;
        woke = 1;
    }
    return broadcast || !woke ? keep_signal(st, cond, e) : 0;
}

static void complete_episode(replay_state *st, sync_obj *episode)
{
    episode->u.episode.completed = 1;
    region(st);
}

static int barrier(replay_state *st, replay_thread *t, const ms_replay_event *e, int force)
{
    if (!t->episode) {
        sync_obj *arrivals = sync_get(&st->objs, SYNC_ARRIVALS, t->index, e->addr);
        if (!arrivals) return -1;
        sync_obj *episode = sync_get(&st->objs, SYNC_EPISODE, e->addr, (uint64_t)arrivals->u.count++);
        if (!episode) return -1;
        if (++episode->u.episode.arrived >= e->size) {
            complete_episode(st, episode);
            if (!episode->u.episode.waiting) sync_remove(&st->objs, episode);
            return 1;
        }
        episode->u.episode.waiting++;
        t->episode = episode;
    }
    sync_obj *episode = t->episode;
    if (!episode->u.episode.completed) {
        if (!force) return 0;
        complete_episode(st, episode);
    }
    t->episode = NULL;
    if (--episode->u.episode.waiting == 0) sync_remove(&st->objs, episode);
    return 1;
}

static int fork_begin(replay_state *st, const ms_replay_event *e, int force)
{
    sync_obj *fork = sync_find(&st->objs, SYNC_FORK, e->addr, 0);
    if (e->kind == MS_SYNC_FORK) {
        if (!fork && !(fork = sync_get(&st->objs, SYNC_FORK, e->addr, 0))) return -1;
        fork->u.count = (int64_t)e->size;
        region(st);
        return 1;
    }
    if (!fork) return force;
    if (--fork->u.count <= 0) sync_remove(&st->objs, fork); /* the whole team began */
    return 1;
}

int replay_sync(replay_state *st, replay_thread *t, const ms_replay_event *e, int force)
{
    sync_obj *o;
    replay_thread *other;
    switch (e->kind) {
    case MS_SYNC_ACQUIRE:
        if (!(o = sync_get(&st->objs, SYNC_LOCK, e->addr, 0))) return -1;
        return acquire(t, o, (int)(e->size & 1), force);
    case MS_SYNC_RELEASE: o = sync_find(&st->objs, SYNC_LOCK, e->addr, 0); return o && release(t, o) < 0 ? -1 : 1;
    case MS_SYNC_BARRIER: return barrier(st, t, e, force);
    case MS_SYNC_CREATE:
        if ((other = replay_thread_find(st, e->addr)) && other != t) other->started = 1;
        region(st);
        return 1;
    case MS_SYNC_JOIN:
        other = replay_thread_find(st, e->addr);
        if (other && other != t && !other->done && !force) return 0;
        region(st);
        return 1;
    case MS_SYNC_EXIT: return replay_thread_finish(t, 1) < 0 ? -1 : 1;
    case MS_SYNC_COND_WAIT: return cond_wait(st, t, e, force);
    case MS_SYNC_COND_SIGNAL: return cond_signal(st, e) < 0 ? -1 : 1;
    case MS_SYNC_SEM_POST:
    case MS_SYNC_SEM_WAIT:
        if (!(o = sync_get(&st->objs, SYNC_SEM, e->addr, 0))) return -1;
        if (e->kind == MS_SYNC_SEM_POST)
            o->u.count++;
        else if (o->u.count > 0 || force)
            o->u.count--;
        else
            return 0;
        return 1;
    case MS_SYNC_FORK:
    case MS_SYNC_BEGIN: return fork_begin(st, e, force);
    case MS_SYNC_ATOMIC: return replay_atomic(st, e, force);
    default: return 1; /* the reader refuses other kinds */
    }
}

int replay_thread_finish(replay_thread *t, int complete)
{
    int rc = 0;
    while (t->nheld) /* each release drops one hold, whatever hand_off returns */
        if (release(t, t->held[t->nheld - 1].lock) < 0) rc = -1;
    t->done = 1;
    t->complete = complete;
    t->started = 1;
    return rc;
}
