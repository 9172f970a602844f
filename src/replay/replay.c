/* The replay scheduler (replay.h): per-thread stream readers, ccSIM's interleaved and piped
 * orders, deadlock breaks and the result. The synchronisation semantics are in replay_sync.c.
 *
 * Before replaying, every version 2 stream is scanned once for CREATE events: a thread that
 * some stream creates starts at that CREATE (its parent is the creator), every other thread
 * starts at once (a single stream is not scanned: nothing can gate it). The scan keeps sync
 * events only, and the replay's own read of a stream does not redo the CRC of the chunks the
 * scan found good, nor decompress again the last chunks it kept (ms_replay_set_keep). A
 * stream whose runtime appended a sync index (src/format/stream.h) is not scanned: its index
 * says the same, and the stream is decompressed and parsed once, by the replay. The
 * streams are scanned in parallel where they are decoded ahead. The replay clock that measures
 * wait_turns counts interleaved turns in which some thread made progress, and replayed
 * accesses in piped mode; a thread's wait lasts from its first blocked attempt to its next
 * successful one. */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/stream.h"
#include "../util/util.h"
#include "replay_internal.h"
#include "stream_index.h"

#define MAX_SCAN_THREADS 16 /* the pre-scan's threads besides the caller's */

struct ms_replay {
    char *dir;
    uint32_t max_ctx;
    uint32_t *indices; /* thread indices of the streams, ascending */
    size_t nthreads;
    unsigned ahead, parsers; /* ms_replay_set_decode_ahead */
    size_t keep;             /* ms_replay_set_keep */
    int use_index;           /* ms_replay_set_use_index */
};

typedef struct {
    replay_state st;
    ms_interleave mode;
    uint64_t turns, accesses, dropped, syncs, deadlocks_broken;
    int any_bad;
    int has_work;           /* some stream holds WORK events (the timed order's pre-scan) */
    uint64_t epoch;         /* interleaved, piped: sync events passed, threads ended, mutexes given
                             * up by cond waits (a blocked head can only proceed after one) */
    int sync_changed;       /* timed: a sync event passed or a thread ended since blocked ones were tried */
    uint64_t release_clock; /* timed: the clock at which that happened (waits released end there) */
    char **problems;
    size_t nproblems;
    char *err;
    size_t errlen;
} replay_run;

static char *stream_path(const ms_replay *r, uint32_t index)
{
    size_t len = strlen(r->dir) + 32;
    char *path = malloc(len);
    if (path) snprintf(path, len, "%s/thread-%u.zst", r->dir, index);
    return path;
}

/* Open the stream of index. Returns MS_SR_CHUNK (header good), MS_SR_BAD (err: the problem) or
 * MS_SR_FAIL (err set). */
static int open_stream(const ms_replay *r, uint32_t index, ms_stream_reader **rd, char *err, size_t errlen)
{
    char *path = stream_path(r, index);
    if (!path) return ms_errorf(err, errlen, "out of memory");
    int rc = ms_stream_reader_open(rd, path, index, r->max_ctx, err, errlen);
    free(path);
    return rc;
}

/* "thread-N.zst" with N a decimal thread index as the runtime writes it (no leading zero):
 * N; -1 for a name not starting "thread-"; -2 for any other "thread-*" name (thread-01.zst
 * would replay thread 1 twice, thread-1.zst.bak is no stream: both are refused). */
static int64_t stream_index(const char *name)
{
    if (strncmp(name, "thread-", 7) != 0) return -1;
    const char *p = name + 7;
    uint64_t n = 0;
    if (*p < '0' || *p > '9' || (p[0] == '0' && p[1] >= '0' && p[1] <= '9')) return -2;
    for (; *p >= '0' && *p <= '9'; p++)
        if ((n = n * 10 + (uint64_t)(*p - '0')) > UINT32_MAX) return -2;
    return strcmp(p, ".zst") == 0 ? (int64_t)n : -2;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Collect the thread indices of dir's streams into r. Returns 0 or -1. */
static int list_streams(ms_replay *r, char *err, size_t errlen)
{
    DIR *d = opendir(r->dir);
    if (!d) return ms_errorf(err, errlen, "cannot open the recording %s: %s", r->dir, strerror(errno));
    size_t cap = 0;
    int rc = 0;
    for (struct dirent *de; (de = readdir(d));) {
        int64_t index = stream_index(de->d_name);
        if (index == -2) {
            rc = ms_errorf(err, errlen,
                           "%s: unexpected stream file '%s' (streams are named thread-N.zst, N "
                           "without leading zeros): remove or rename it",
                           r->dir, de->d_name);
            break;
        }
        if (index < 0) continue;
        if (r->nthreads == cap) {
            cap = cap ? 2 * cap : 16;
            uint32_t *v = realloc(r->indices, cap * sizeof *v);
            if (!v) {
                rc = ms_errorf(err, errlen, "out of memory");
                break;
            }
            r->indices = v;
        }
        r->indices[r->nthreads++] = (uint32_t)index;
    }
    closedir(d);
    if (rc == 0 && !r->nthreads) rc = ms_errorf(err, errlen, "%s holds no recorded streams (thread-N.zst)", r->dir);
    if (rc == 0) qsort(r->indices, r->nthreads, sizeof *r->indices, cmp_u32);
    return rc;
}

int ms_replay_open(ms_replay **out, const char *dir, uint32_t max_ctx, char *err, size_t errlen)
{
    *out = NULL;
    ms_replay *r = calloc(1, sizeof *r);
    if (!r || !(r->dir = strdup(dir))) {
        free(r);
        return ms_errorf(err, errlen, "out of memory");
    }
    r->max_ctx = max_ctx;
    r->use_index = 1;
    int rc = list_streams(r, err, errlen);
    for (size_t i = 0; rc == 0 && i < r->nthreads; i++) {
        ms_stream_reader *rd = NULL;
        char problem[512]; /* a stream damaged before its header is reported by the run */
        if (open_stream(r, r->indices[i], &rd, problem, sizeof problem) == MS_SR_FAIL)
            rc = ms_errorf(err, errlen, "%s", problem);
        ms_stream_reader_close(rd);
    }
    if (rc < 0) {
        ms_replay_close(r);
        return -1;
    }
    *out = r;
    return 0;
}

size_t ms_replay_nthreads(const ms_replay *r) { return r->nthreads; }

void ms_replay_set_decode_ahead(ms_replay *r, unsigned nstreams, unsigned nparsers)
{
    r->ahead = nstreams;
    r->parsers = nparsers;
}

void ms_replay_set_keep(ms_replay *r, size_t bytes) { r->keep = bytes; }

void ms_replay_set_use_index(ms_replay *r, int on) { r->use_index = on != 0; }

void ms_replay_close(ms_replay *r)
{
    if (!r) return;
    free(r->indices);
    free(r->dir);
    free(r);
}

static int add_problem(replay_run *run, const char *text)
{
    char **v = realloc(run->problems, (run->nproblems + 1) * sizeof *v);
    if (!v) return ms_errorf(run->err, run->errlen, "out of memory");
    run->problems = v;
    if (!(v[run->nproblems] = strdup(text))) return ms_errorf(run->err, run->errlen, "out of memory");
    run->nproblems++;
    return 0;
}

/* The thread's stream ended badly at the reader's problem: record it, end the thread. */
static int stream_went_bad(replay_run *run, replay_thread *t, const char *problem)
{
    run->any_bad = 1;
    if (add_problem(run, problem) < 0) return -1;
    return replay_thread_finish(t, 0);
}

/* Load t's next chunk once its head is past the current one; at the end of the stream the
 * thread ends. Returns 0 or -1 (hard error). */
static int load_chunk(replay_run *run, replay_thread *t)
{
    char problem[512];
    if (t->carry_end) return replay_thread_finish(t, 1); /* the carried events were the last */
    int rc = MS_SR_CHUNK;
    if (t->nrest) { /* the chunk whose head was merged behind a carry: the rest of it */
        t->ev = t->rest;
        t->n = t->nrest;
        t->nrest = 0;
    } else {
        rc = ms_stream_reader_next(t->reader, &t->ev, &t->n, problem, sizeof problem);
    }
    t->pos = 0;
    size_t ncarry = t->ncarry;
    t->ncarry = 0;
    if (rc == MS_SR_END && ncarry) { /* no next chunk: the carried events are replayed last */
        rc = MS_SR_CHUNK;
        t->n = 0;
        t->carry_end = 1;
    }
    switch (rc) {
    case MS_SR_CHUNK: {
        if (!ncarry) return 0;
        /* the carried events and the chunk's head, enough to tell the carried spin iteration;
         * the rest of the chunk is not copied */
        size_t join = t->n < REPLAY_CARRY_JOIN ? t->n : REPLAY_CARRY_JOIN;
        if (!t->merged) {
            t->merged = malloc((sizeof t->carry / sizeof *t->carry + REPLAY_CARRY_JOIN) * sizeof *t->merged);
            if (!t->merged) return ms_errorf(run->err, run->errlen, "out of memory");
        }
        memcpy(t->merged, t->carry, ncarry * sizeof *t->carry);
        if (join) memcpy(t->merged + ncarry, t->ev, join * sizeof *t->ev);
        t->rest = t->ev + join;
        t->nrest = t->n - join;
        t->ev = t->merged;
        t->n = ncarry + join;
        return 0;
    }
    case MS_SR_END: return replay_thread_finish(t, 1);
    case MS_SR_BAD: return stream_went_bad(run, t, problem);
    default: return ms_errorf(run->err, run->errlen, "%s", problem);
    }
}

static uint64_t clock_now(const replay_run *run)
{
    return run->mode == MS_INTERLEAVE_PIPED ? run->accesses : run->turns;
}

/* t's head proceeded: end its wait, move past the event. */
static void passed_sync(replay_run *run, replay_thread *t)
{
    if (t->blocked) {
        if (run->mode != MS_INTERLEAVE_TIMED) t->wait_turns += clock_now(run) - t->blocked_since;
        t->blocked = 0;
    }
    t->last_seq = t->ev[t->pos].seq;
    t->pos++;
    t->syncs++;
    run->syncs++;
    run->epoch++;
}

/* Whether t is blocked and trying again would change nothing and fail (the attempt that
 * blocked it already did what a first attempt does: queueing, a barrier arrival): it waits in
 * a lock's or condition variable's queue (leaving it only when the lock is handed to it or a
 * signal wakes it), at a barrier episode not yet complete, or nothing happened since its last
 * attempt that could let it proceed (no sync event passed, no thread ended, no mutex given up). */
static inline int still_blocked(const replay_run *run, const replay_thread *t)
{
    return t->blocked && (t->tried_epoch == run->epoch || (t->queued_on && !t->granted) ||
                          (t->episode && !t->episode->u.episode.completed));
}

/* Replay the access at t's head (e) and move past it. */
static inline void replay_access(replay_run *run, replay_thread *t, const ms_replay_event *e)
{
    const ms_replay_sink *sink = run->st.sink;
    sink->access(sink->ud, t->cpu, e->addr, e->size, e->write, t->nheld != 0, e->ctx);
    t->pos++;
    t->accesses++;
    run->accesses++;
    run->dropped += e->ctx == 0;
}

/* Replay the run of accesses at t's head, at most `most` (>= 1) of them, up to the next
 * other event or the end of the chunk, and move past them: to the sink's `accesses` at once
 * where it has one and there are several. Returns the number replayed. */
static uint64_t replay_accesses(replay_run *run, replay_thread *t, uint64_t most)
{
    /* the counts kept in locals (the sink cannot change them, but the compiler would reload
     * them after every call through its pointer) */
    const ms_replay_sink *sink = run->st.sink;
    const ms_replay_event *ev = t->ev;
    size_t start = t->pos, end = t->n - start > most ? start + (size_t)most : t->n, pos = start;
    unsigned cpu = t->cpu, locked = t->nheld != 0;
    uint64_t dropped = 0;
    for (; pos < end && ev[pos].kind == 0; pos++) dropped += ev[pos].ctx == 0;
    if (sink->accesses && pos - start > 1) /* one access: `access`, without a run's set-up */
        sink->accesses(sink->ud, cpu, locked, ev + start, pos - start);
    else
        for (size_t i = start; i < pos; i++)
            sink->access(sink->ud, cpu, ev[i].addr, ev[i].size, ev[i].write, locked, ev[i].ctx);
    uint64_t k = pos - start;
    t->pos = pos;
    t->accesses += k;
    run->accesses += k;
    run->dropped += dropped;
    return k;
}

/* If t's head is one iteration of a spin-wait (replay_atomic_spin), skip it; if the chunk
 * ends before that can be told, carry the head over to the next chunk. Returns 1 if t's head
 * moved so, 0 if the head is to be replayed. */
static int spin_skip(replay_thread *t)
{
    size_t k = replay_atomic_spin(t->ev, t->pos, t->n);
    if (k == REPLAY_SPIN_UNDECIDED && t->carry_end) k = 0; /* the stream's last events */
    if (k == REPLAY_SPIN_UNDECIDED) {
        t->ncarry = t->n - t->pos; /* the load, MS_ATOMIC_SPIN_BODY_MAX + 1 reads, WORK events */
        memcpy(t->carry, t->ev + t->pos, t->ncarry * sizeof *t->carry);
        k = t->ncarry;
    }
    t->pos += k;
    return k != 0;
}

/* Run thread t until it blocks, ends, or has replayed `budget` accesses (sync events do not
 * count). Returns 1 if it made progress, 0 if it was blocked at once, -1 on a hard error. */
static int run_thread(replay_run *run, replay_thread *t, uint64_t budget)
{
    int progress = 0;
    for (;;) {
        if (t->pos == t->n) {
            if (load_chunk(run, t) < 0) return -1;
            if (t->done) {
                run->epoch++; /* its locks released, its joiners free */
                return 1;
            }
            continue;
        }
        const ms_replay_event *e = &t->ev[t->pos];
        if (e->kind == 0) {
            budget -= replay_accesses(run, t, budget);
            progress = 1;
            if (budget == 0) return 1;
            continue;
        }
        if (e->kind == MS_SYNC_WORK) { /* work, not synchronisation: no ordering effect */
            const ms_replay_sink *sink = run->st.sink;
            if (sink->work) sink->work(sink->ud, t->cpu, (uint32_t)e->addr, e->size);
            t->pos++;
            progress = 1;
            continue;
        }
        if (e->kind == MS_SYNC_ATOMIC && spin_skip(t)) continue; /* a spin-wait's iteration */
        int rc = replay_sync(&run->st, t, e, 0);
        if (rc < 0) return ms_errorf(run->err, run->errlen, "out of memory");
        if (rc != 1) {
            if (!t->blocked) {
                t->blocked = 1;
                t->blocked_since = clock_now(run);
            }
            t->tried_epoch = run->epoch;
            if (rc == 2) run->epoch++; /* a cond wait gave up its mutex */
            return progress || rc == 2;
        }
        passed_sync(run, t);
        if (t->done) return 1; /* EXIT */
        progress = 1;
    }
}

static int runnable(const replay_thread *t) { return t->started && !t->done; }

/* One round-robin turn: every runnable thread, in index order, one access. Returns 1 if some
 * thread made progress, 0 if none could, -1 on a hard error. */
static int interleaved_turn(replay_run *run)
{
    int progress = 0;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (!runnable(t)) continue;
        if (t->pos < t->n && t->ev[t->pos].kind == 0) { /* the common case, inline */
            replay_access(run, t, &t->ev[t->pos]);
            progress = 1;
            continue;
        }
        if (still_blocked(run, t)) continue; /* it would fail again */
        int rc = run_thread(run, t, 1);
        if (rc < 0) return -1;
        progress |= rc;
    }
    run->turns += (uint64_t)progress;
    return progress;
}

/* The lowest runnable thread that can make progress runs until it blocks or ends. */
static int piped_step(replay_run *run)
{
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (!runnable(t) || still_blocked(run, t)) continue;
        int rc = run_thread(run, t, UINT64_MAX);
        if (rc != 0) return rc;
    }
    return 0;
}

/* Nothing can run: let the blocked thread whose head has the lowest recorded seq through, or,
 * if no thread is blocked (only threads whose CREATE never came are left), start the lowest
 * of those. Returns 1 if a wait was broken, 0 if every thread has ended, -1 on error. */
static int break_deadlock(replay_run *run)
{
    replay_thread *pick = NULL, *unstarted = NULL;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (t->done) continue;
        if (!t->started) {
            if (!unstarted) unstarted = t;
        } else if (t->blocked && (!pick || t->ev[t->pos].seq < pick->ev[pick->pos].seq)) {
            pick = t;
        }
    }
    if (!pick && !unstarted) return 0;
    run->deadlocks_broken++;
    run->epoch++;
    if (!pick) {
        unstarted->started = 1;
        return 1;
    }
    if (replay_sync(&run->st, pick, &pick->ev[pick->pos], 1) < 0)
        return ms_errorf(run->err, run->errlen, "out of memory");
    passed_sync(run, pick);
    return 1;
}

/* What the pre-scan found in one stream (scan_stream): its CREATE and releasing ATOMIC events
 * in stream order, whether it holds WORK events, its good chunks and its kept last chunks. */
typedef struct {
    const ms_replay *r;
    uint32_t index;
    size_t keep; /* the most bytes of chunks it may keep */
    ms_replay_event *ev;
    size_t n, cap;
    int has_work, failed;
    uint64_t good_chunks;
    ms_stream_kept *kept;
    char msg[512];       /* failed: the problem */
    pthread_mutex_t *mu; /* scan_worker: the next stream to take */
    size_t *next, nscans;
} stream_scan;

/* Take sc's findings from its stream's sync index (stream_index.h) where it has a usable one.
 * Returns 1 (taken), 0 (none: scan the stream) or -1 (out of memory: sc->failed). */
static int scan_index(stream_scan *sc)
{
    char *path = stream_path(sc->r, sc->index);
    ms_stream_index ix;
    int rc = path ? ms_stream_index_read(path, sc->index, sc->r->max_ctx, &ix, sc->msg, sizeof sc->msg)
                  : ms_errorf(sc->msg, sizeof sc->msg, "out of memory");
    free(path);
    if (rc == 1) { /* the stream's bytes are the runtime's: its chunks' CRCs hold, not redone */
        sc->ev = ix.ev;
        sc->n = sc->cap = ix.n;
        sc->has_work = ix.has_work;
        sc->good_chunks = ix.chunks;
    }
    sc->failed = rc < 0;
    return rc;
}

/* Scan one stream (sc's own, any thread): a damaged stream is scanned up to the damage (the
 * replay reports it); a stream with a usable sync index is not read, its index is. Not
 * inlined: bench/threads/decode.sh measures it by name. */
__attribute__((noinline)) static void scan_stream(stream_scan *sc)
{
    if (sc->r->use_index && scan_index(sc) != 0) return;
    ms_stream_reader *rd = NULL;
    int rc = open_stream(sc->r, sc->index, &rd, sc->msg, sizeof sc->msg);
    if (rd) ms_stream_reader_syncs_only(rd);
    if (rd && sc->keep) ms_stream_reader_keep(rd, sc->keep);
    const ms_replay_event *ev;
    size_t n;
    while (rc == MS_SR_CHUNK && ms_stream_reader_version(rd) >= 2 &&
           (rc = ms_stream_reader_next(rd, &ev, &n, sc->msg, sizeof sc->msg)) == MS_SR_CHUNK) {
        for (size_t i = 0; i < n && rc == MS_SR_CHUNK; i++) {
            sc->has_work |= ev[i].kind == MS_SYNC_WORK;
            if (ev[i].kind != MS_SYNC_CREATE && (ev[i].kind != MS_SYNC_ATOMIC || !ms_atomic_releases(ev[i].size)))
                continue;
            if (sc->n == sc->cap) {
                size_t cap = sc->cap ? 2 * sc->cap : 64;
                ms_replay_event *v = realloc(sc->ev, cap * sizeof *v);
                if (!v) {
                    rc = ms_errorf(sc->msg, sizeof sc->msg, "out of memory");
                    break;
                }
                sc->ev = v;
                sc->cap = cap;
            }
            sc->ev[sc->n++] = ev[i];
        }
    }
    if (rd) {
        size_t bytes;
        sc->good_chunks = ms_stream_reader_good_chunks(rd);
        if (rc != MS_SR_FAIL) sc->kept = ms_stream_reader_take_kept(rd, &bytes);
    }
    ms_stream_reader_close(rd);
    sc->failed = rc == MS_SR_FAIL;
}

/* A pre-scan thread: the streams not yet taken, one at a time. */
static void *scan_worker(void *arg)
{
    stream_scan *scans = arg;
    for (;;) {
        pthread_mutex_lock(scans->mu);
        size_t i = (*scans->next)++;
        pthread_mutex_unlock(scans->mu);
        if (i >= scans->nscans) return NULL;
        scan_stream(&scans[i]);
    }
}

/* Scan every stream for CREATE events (their children wait for them), releasing ATOMIC events
 * (acquiring ones wait for them) and WORK events, each keeping its last chunks within an
 * equal share of the budget; on threads of its own where the streams are decoded ahead. The
 * findings are applied in stream order, so the result does not depend on the threads.
 * Returns 0 or -1. */
static int prescan(replay_run *run, const ms_replay *r)
{
    replay_state *st = &run->st;
    stream_scan *scans = calloc(st->nthreads, sizeof *scans);
    if (!scans) return ms_errorf(run->err, run->errlen, "out of memory");
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    size_t next = 0;
    for (size_t i = 0; i < st->nthreads; i++)
        scans[i] = (stream_scan){ .r = r, .index = st->threads[i].index, .keep = r->keep / st->nthreads };
    scans[0].mu = &mu;
    scans[0].next = &next;
    scans[0].nscans = st->nthreads;
    pthread_t tid[MAX_SCAN_THREADS];
    size_t nt = 0, want = r->ahead ? (st->nthreads - 1 < MAX_SCAN_THREADS ? st->nthreads - 1 : MAX_SCAN_THREADS) : 0;
    while (nt < want && pthread_create(&tid[nt], NULL, scan_worker, scans) == 0) nt++;
    scan_worker(scans); /* this thread too (all of it where no thread started) */
    for (size_t i = 0; i < nt; i++) pthread_join(tid[i], NULL);
    int rc = 0;
    for (size_t i = 0; i < st->nthreads; i++) {
        stream_scan *sc = &scans[i];
        replay_thread *t = &st->threads[i];
        t->checked_chunks = sc->good_chunks;
        t->kept = sc->kept;
        run->has_work |= sc->has_work;
        if (rc == 0 && sc->failed) rc = ms_errorf(run->err, run->errlen, "%s", sc->msg);
        for (size_t k = 0; rc == 0 && k < sc->n; k++) {
            const ms_replay_event *e = &sc->ev[k];
            replay_thread *child;
            if (e->kind == MS_SYNC_ATOMIC && replay_atomic_note(st, e) < 0)
                rc = ms_errorf(run->err, run->errlen, "out of memory");
            if (e->kind != MS_SYNC_CREATE || !(child = replay_thread_find(st, e->addr)) || child == t || child->gated)
                continue;
            child->gated = 1;
            child->parent = (int32_t)t->index;
        }
        free(sc->ev);
    }
    free(scans);
    return rc;
}

/* Set up the threads: processors, creation gates, open readers. Returns 0 or -1. */
static int start_threads(replay_run *run, const ms_replay *r, unsigned nprocs)
{
    replay_state *st = &run->st;
    if (!(st->threads = calloc(r->nthreads, sizeof *st->threads)))
        return ms_errorf(run->err, run->errlen, "out of memory");
    st->nthreads = r->nthreads;
    for (size_t i = 0; i < r->nthreads; i++) {
        replay_thread *t = &st->threads[i];
        t->index = r->indices[i];
        t->cpu = (uint32_t)(i % nprocs);
        t->parent = -1;
    }
    /* One stream has no other thread to gate (its own CREATEs name other threads, which are
     * not recorded): the pre-scan would only decompress the whole stream a second time. */
    if ((st->nthreads > 1 || run->mode == MS_INTERLEAVE_TIMED) && prescan(run, r) < 0) return -1;
    if (replay_atomic_prepare(st) < 0) return ms_errorf(run->err, run->errlen, "out of memory");
    for (size_t i = 0; i < st->nthreads; i++) {
        replay_thread *t = &st->threads[i];
        char msg[512];
        int rc = open_stream(r, t->index, &t->reader, msg, sizeof msg);
        if (rc == MS_SR_FAIL) return ms_errorf(run->err, run->errlen, "%s", msg);
        if (t->reader) ms_stream_reader_trust(t->reader, t->checked_chunks);
        if (t->reader && rc == MS_SR_CHUNK && t->kept) ms_stream_reader_use_kept(t->reader, t->kept);
        if (t->kept && (!t->reader || rc != MS_SR_CHUNK)) ms_stream_kept_free(t->kept);
        t->kept = NULL;
        if (t->reader && rc == MS_SR_CHUNK && i < r->ahead) ms_stream_reader_ahead(t->reader, r->parsers);
        if (rc == MS_SR_BAD && stream_went_bad(run, t, msg) < 0) return -1;
        t->started = !t->gated || t->done;
        t->clock_set = t->started;
    }
    return 0;
}

/* The most turns of several threads one batch replays (batch_turns: the scan for the
 * shortest run stops there), and the most threads it takes. */
#define BATCH_TURNS 256u
#define BATCH_THREADS 64u

/* Interleaved turns handed over as one batch. While every runnable thread either has an
 * access at its head or is blocked so that a turn would skip it (still_blocked: accesses
 * change nothing it waits for), each turn replays one access of each of the former, in index
 * order, and nothing else: the turns up to the end of the shortest of their runs of accesses
 * (the next other event or the chunk's end; at most BATCH_TURNS of them for several threads)
 * go to the sink at once (`turns`; one thread's run to `accesses`), one turn each. Returns
 * the number of turns replayed (0: a turn must handle some thread's head event). */
static uint64_t batch_turns(replay_run *run)
{
    replay_thread *th[BATCH_THREADS];
    const ms_replay_event *ev[BATCH_THREADS];
    unsigned cpu[BATCH_THREADS], locked[BATCH_THREADS];
    size_t k = 0;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (!runnable(t)) continue;
        if (t->pos == t->n || t->ev[t->pos].kind != 0) {
            if (still_blocked(run, t)) continue;
            return 0;
        }
        if (k == BATCH_THREADS) return 0;
        th[k] = t;
        ev[k] = t->ev + t->pos;
        cpu[k] = t->cpu;
        locked[k] = t->nheld != 0;
        k++;
    }
    if (k == 0) return 0;
    if (k == 1) { /* one thread: its whole run (replay_accesses finds its end) */
        uint64_t n = replay_accesses(run, th[0], UINT64_MAX);
        run->turns += n;
        return n;
    }
    size_t m = BATCH_TURNS;
    for (size_t i = 0; i < k; i++) {
        size_t most = th[i]->n - th[i]->pos < m ? th[i]->n - th[i]->pos : m, r = 1;
        while (r < most && ev[i][r].kind == 0) r++;
        m = r;
    }
    const ms_replay_sink *sink = run->st.sink;
    if (sink->turns)
        sink->turns(sink->ud, k, cpu, locked, ev, m);
    else
        for (size_t j = 0; j < m; j++)
            for (size_t i = 0; i < k; i++)
                sink->access(sink->ud, cpu[i], ev[i][j].addr, ev[i][j].size, ev[i][j].write, locked[i], ev[i][j].ctx);
    uint64_t dropped = 0;
    for (size_t i = 0; i < k; i++) {
        for (size_t j = 0; j < m; j++) dropped += ev[i][j].ctx == 0;
        th[i]->pos += m;
        th[i]->accesses += m;
    }
    run->accesses += (uint64_t)k * m;
    run->dropped += dropped;
    run->turns += m;
    return m;
}

/* ---- the timed order (replay.h) ---- */

/* t reached the sync event at its head (or its stream's end): report the arrival once. */
static void timed_arrive(replay_run *run, replay_thread *t, unsigned kind, uint64_t obj)
{
    if (t->arrived) return;
    t->arrived = 1;
    t->arrivals++;
    const ms_replay_sink *sink = run->st.sink;
    if (sink->arrive) sink->arrive(sink->ud, t->cpu, t->arrivals, kind, obj, t->clock);
}

/* Threads started since the last pass (a CREATE) begin at the creator's clock `now`. */
static void timed_start_clocks(replay_run *run, uint64_t now)
{
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (t->started && !t->clock_set) {
            t->clock = now;
            t->clock_set = 1;
        }
    }
}

/* Retry every blocked thread after `late` passed a sync event or ended at its clock: those
 * that can proceed end their wait then (a wait record each), until nothing changes. */
static int timed_wake(replay_run *run, const replay_thread *late)
{
    const ms_replay_sink *sink = run->st.sink;
    for (int again = 1; again;) {
        again = 0;
        for (size_t i = 0; i < run->st.nthreads; i++) {
            replay_thread *w = &run->st.threads[i];
            if (!runnable(w) || !w->blocked || w == late) continue;
            const ms_replay_event *e = &w->ev[w->pos];
            int rc = replay_sync(&run->st, w, e, 0);
            if (rc < 0) return ms_errorf(run->err, run->errlen, "out of memory");
            if (rc != 1) continue;
            uint64_t from = w->blocked_since, to = run->release_clock > w->clock ? run->release_clock : w->clock;
            w->waiting += to - w->clock;
            w->clock = to;
            if (sink->wait && w->clock > from) {
                ms_replay_wait rec = { e->kind,     e->addr,        w->cpu,
                                       w->arrivals, (int)late->cpu, late->arrivals,
                                       from,        w->clock,       e->ctx ? e->ctx : w->last_ctx };
                sink->wait(sink->ud, &rec);
            }
            w->blocked = 0;
            w->arrived = 0;
            w->clock += MS_TIMED_SYNC_CYCLES;
            w->sync_cycles += MS_TIMED_SYNC_CYCLES;
            w->last_seq = e->seq;
            w->pos++;
            w->syncs++;
            run->syncs++;
            if (w->done) run->sync_changed = 1;
            again = 1;
        }
    }
    return 0;
}

/* The run of accesses at t's head (up to the next other event or the chunk's end) through the
 * sink's accesses_cycles, for as long as t stays the thread timed_step would pick: its clock
 * below limit (timed_step). */
static void timed_accesses(replay_run *run, replay_thread *t, uint64_t limit)
{
    const ms_replay_sink *sink = run->st.sink;
    const ms_replay_event *ev = t->ev + t->pos;
    size_t n = t->n - t->pos; /* the sink stops at the first other event */
    uint64_t compute = run->has_work ? 0 : MS_TIMED_REF_CYCLES, stall = 0, clock = t->clock;
    size_t k = sink->accesses_cycles(sink->ud, t->cpu, t->nheld != 0, ev, n, compute, &clock, limit, &stall);
    uint64_t dropped = 0;
    for (size_t i = 0; i < k; i++) dropped += ev[i].ctx == 0;
    for (size_t i = k; i-- > 0;)
        if (ev[i].ctx) {
            t->last_ctx = ev[i].ctx;
            break;
        }
    t->clock = clock;
    t->stall += stall;
    t->compute += compute * k;
    t->pos += k;
    t->accesses += k;
    run->accesses += k;
    run->dropped += dropped;
}

/* Handle the event at t's head in the timed order; limit: the clock at which another thread
 * would be picked before t (timed_step). Returns 1 when t moved, 0 when it blocked, -1 on a
 * hard error. */
static int timed_event(replay_run *run, replay_thread *t, uint64_t limit)
{
    const ms_replay_sink *sink = run->st.sink;
    if (t->pos == t->n) {
        if (load_chunk(run, t) < 0) return -1;
        if (t->done) {
            timed_arrive(run, t, MS_SYNC_EXIT, 0);
            run->sync_changed = 1;
            run->release_clock = t->clock;
        }
        return 1;
    }
    const ms_replay_event *e = &t->ev[t->pos];
    if (e->kind == 0 && sink->accesses_cycles) {
        timed_accesses(run, t, limit);
        return 1;
    }
    if (e->kind == 0) {
        uint64_t stall = 0;
        unsigned locked = t->nheld != 0;
        if (sink->access_cycles)
            stall = sink->access_cycles(sink->ud, t->cpu, e->addr, e->size, e->write, locked, e->ctx);
        else
            sink->access(sink->ud, t->cpu, e->addr, e->size, e->write, locked, e->ctx);
        uint64_t compute = run->has_work ? 0 : MS_TIMED_REF_CYCLES;
        t->clock += stall + compute;
        t->stall += stall;
        t->compute += compute;
        if (e->ctx) t->last_ctx = e->ctx;
        t->pos++;
        t->accesses++;
        run->accesses++;
        run->dropped += e->ctx == 0;
        return 1;
    }
    if (e->kind == MS_SYNC_WORK) {
        uint64_t cycles = e->size;
        if (sink->work) sink->work(sink->ud, t->cpu, (uint32_t)e->addr, e->size);
        if (sink->work_cycles) cycles = sink->work_cycles(sink->ud, (uint32_t)e->addr, e->size);
        t->clock += cycles;
        t->compute += cycles;
        t->pos++;
        return 1;
    }
    if (e->kind == MS_SYNC_ATOMIC && spin_skip(t)) return 1; /* a spin-wait's iteration */
    /* an atomic load's event precedes its read: the wait is placed at the load's code */
    if (e->kind == MS_SYNC_ATOMIC && t->pos + 1 < t->n && t->ev[t->pos + 1].kind == 0 &&
        t->ev[t->pos + 1].addr == e->addr && t->ev[t->pos + 1].ctx)
        t->last_ctx = t->ev[t->pos + 1].ctx;
    timed_arrive(run, t, e->kind, e->addr);
    int rc = replay_sync(&run->st, t, e, 0);
    if (rc < 0) return ms_errorf(run->err, run->errlen, "out of memory");
    if (rc != 1) {
        t->blocked = 1;
        t->blocked_since = t->clock;
        if (rc == 2) { /* a cond wait gave up its mutex */
            run->sync_changed = 1;
            run->release_clock = t->clock;
        }
        return 0;
    }
    t->arrived = 0;
    run->release_clock = t->clock;
    t->clock += MS_TIMED_SYNC_CYCLES;
    t->sync_cycles += MS_TIMED_SYNC_CYCLES;
    t->last_seq = e->seq;
    t->pos++;
    t->syncs++;
    run->syncs++;
    run->sync_changed = 1;
    return 1;
}

/* One step of the timed order: the unblocked runnable thread with the earliest clock handles
 * its head event; blocked threads are retried after every sync event passed. Returns 1 on
 * progress, 0 when no thread can move (a deadlock or the end), -1 on error. */
static int timed_step(replay_run *run)
{
    replay_thread *next = NULL;
    size_t at = 0;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (runnable(t) && !t->blocked && (!next || t->clock < next->clock)) {
            next = t;
            at = i;
        }
    }
    if (!next) return 0;
    /* next stays the pick while its clock is below every earlier candidate's clock and at most
     * every later one's (ties go to the lower index); accesses change no other thread */
    uint64_t limit = UINT64_MAX;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        const replay_thread *t = &run->st.threads[i];
        if (i == at || !runnable(t) || t->blocked) continue;
        uint64_t bound = i < at ? t->clock : t->clock == UINT64_MAX ? UINT64_MAX : t->clock + 1;
        if (bound < limit) limit = bound;
    }
    int rc = timed_event(run, next, limit);
    if (rc < 0) return -1;
    if (run->sync_changed) {
        run->sync_changed = 0;
        timed_start_clocks(run, run->release_clock);
        if (timed_wake(run, next) < 0) return -1;
    }
    return 1;
}

/* After a deadlock break: the thread let through (no longer blocked) goes on at its clock. */
static void timed_after_break(replay_run *run)
{
    for (size_t i = 0; i < run->st.nthreads; i++) {
        replay_thread *t = &run->st.threads[i];
        if (t->started && !t->clock_set) {
            t->clock_set = 1; /* an unstarted thread let through starts at the latest clock */
            for (size_t j = 0; j < run->st.nthreads; j++)
                if (run->st.threads[j].clock > t->clock) t->clock = run->st.threads[j].clock;
        }
        if (!t->blocked) t->arrived = 0;
    }
}

static int replay_all(replay_run *run)
{
    if (run->mode == MS_INTERLEAVE_TIMED)
        for (;;) {
            int rc = timed_step(run);
            if (rc == 0 && (rc = break_deadlock(run)) > 0) timed_after_break(run);
            if (rc <= 0) return rc;
        }
    for (;;) {
        if (run->mode != MS_INTERLEAVE_PIPED && batch_turns(run)) continue;
        int rc = run->mode == MS_INTERLEAVE_PIPED ? piped_step(run) : interleaved_turn(run);
        if (rc == 0) rc = break_deadlock(run);
        if (rc <= 0) return rc;
    }
}

static int fill_result(replay_run *run, ms_replay_result *res)
{
    res->accesses = run->accesses;
    res->syncs = run->syncs;
    res->dropped = run->dropped;
    res->deadlocks_broken = run->deadlocks_broken;
    res->timed_approximate = run->mode == MS_INTERLEAVE_TIMED && !run->has_work;
    res->problems = run->problems;
    res->nproblems = run->nproblems;
    run->problems = NULL;
    if (!run->st.nthreads) return 0;
    if (!(res->threads = calloc(run->st.nthreads, sizeof *res->threads)))
        return ms_errorf(run->err, run->errlen, "out of memory");
    res->nthreads = run->st.nthreads;
    for (size_t i = 0; i < run->st.nthreads; i++) {
        const replay_thread *t = &run->st.threads[i];
        res->threads[i] =
            (ms_replay_thread){ t->index,    t->cpu,     t->parent, t->accesses, t->syncs,      t->wait_turns,
                                t->complete, t->compute, t->stall,  t->waiting,  t->sync_cycles };
    }
    return 0;
}

const char *ms_interleave_name(ms_interleave mode)
{
    return mode == MS_INTERLEAVE_PIPED     ? "piped"
           : mode == MS_INTERLEAVE_TIMED   ? "timed"
           : mode == MS_INTERLEAVE_DEFAULT ? "default"
                                           : "interleaved";
}

ms_interleave ms_interleave_resolve(ms_interleave mode, size_t nthreads)
{
    if (mode != MS_INTERLEAVE_DEFAULT) return mode;
    return nthreads > 1 ? MS_INTERLEAVE_TIMED : MS_INTERLEAVE_INTERLEAVED;
}

int ms_interleave_parse(const char *name, ms_interleave *mode)
{
    for (int m = MS_INTERLEAVE_INTERLEAVED; m <= MS_INTERLEAVE_TIMED; m++)
        if (strcmp(name, ms_interleave_name((ms_interleave)m)) == 0) {
            *mode = (ms_interleave)m;
            return 0;
        }
    return -1;
}

int ms_replay_run(ms_replay *r, ms_interleave mode, unsigned nprocs, const ms_replay_sink *sink, ms_replay_result *res,
                  char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (nprocs < 1) return ms_errorf(err, errlen, "the replay needs at least one processor");
    mode = ms_interleave_resolve(mode, r->nthreads);
    replay_run run = { .st = { .sink = sink }, .mode = mode, .err = err, .errlen = errlen };
    int rc = start_threads(&run, r, nprocs);
    if (rc == 0) rc = replay_all(&run);
    if (fill_result(&run, res) < 0) rc = -1;
    for (size_t i = 0; i < run.st.nthreads; i++) {
        ms_stream_reader_close(run.st.threads[i].reader);
        ms_stream_kept_free(run.st.threads[i].kept);
        free(run.st.threads[i].held);
        free(run.st.threads[i].merged);
    }
    free(run.st.threads);
    sync_table_free(&run.st.objs);
    return rc < 0 ? -1 : run.any_bad ? 1 : 0;
}

void ms_replay_result_free(ms_replay_result *res)
{
    if (!res) return;
    for (size_t i = 0; i < res->nproblems; i++) free(res->problems[i]);
    free(res->problems);
    free(res->threads);
    memset(res, 0, sizeof *res);
}
