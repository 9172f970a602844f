/* State shared by the replay's scheduler (replay.c) and its synchronisation semantics
 * (replay_sync.c). Internal to src/replay. */
#ifndef MEMSPY_REPLAY_REPLAY_INTERNAL_H
#define MEMSPY_REPLAY_REPLAY_INTERNAL_H
#include <stddef.h>
#include <stdint.h>

#include "../format/stream.h"
#include "replay.h"
#include "stream_reader.h"
#include "sync_table.h"

typedef struct {
    sync_obj *lock;
    int shared;
} held_lock;

/* The most WORK events a spin iteration may hold (replay_atomic_spin). */
#define REPLAY_SPIN_WORK_MAX 32u
/* Events of a chunk copied behind a carried possible spin iteration (replay.c): more than the
 * most a spin iteration's test looks at (MS_ATOMIC_SPIN_BODY_MAX + 2 + REPLAY_SPIN_WORK_MAX),
 * so that the carried iteration is told within them. */
#define REPLAY_CARRY_JOIN 256u

typedef struct replay_thread {
    uint32_t index, cpu;
    int32_t parent;
    ms_stream_reader *reader;
    const ms_replay_event *ev; /* the current chunk's events; ev[pos] is the head */
    size_t pos, n;
    int gated;               /* some stream CREATEs it: it starts at that CREATE */
    uint64_t checked_chunks; /* good chunks the pre-scan read (their CRC is not redone) */
    ms_stream_kept *kept;    /* the last of them, kept by the pre-scan (not decompressed again) */
    int started, done, complete;
    int blocked;            /* its head could not proceed at its last attempt */
    uint64_t blocked_since; /* replay clock when it blocked */
    uint64_t tried_epoch;   /* interleaved, piped: the run's sync epoch at that attempt */
    /* what the blocked head is waiting in, so a later attempt continues where it left off */
    sync_obj *queued_on; /* lock or cond whose wait queue holds it */
    struct replay_thread *wait_next;
    int want_shared; /* queued on a lock for a shared hold */
    int granted;     /* a lock was handed to it while it waited */
    int cond_phase;  /* COND_WAIT: 0 start, 1 waiting for a signal, 2 re-acquiring */
    int signaled;
    uint64_t last_seq;           /* seq of the last sync event it passed (0: none yet) */
    uint64_t wait_from, wait_to; /* COND_WAIT: the seqs between which its waking signal lies */
    sync_obj *episode;           /* BARRIER: the episode it arrived at */
    held_lock *held;             /* locks it holds, in acquisition order */
    size_t nheld, held_cap;
    uint64_t accesses, syncs, wait_turns;
    /* timed order: clock (cycles) and its parts; arrivals: sync events reached so far (the
     * head's arrival is reported once, `arrived`); last_ctx: context of its last access */
    uint64_t clock, compute, stall, waiting, sync_cycles, arrivals;
    int arrived, clock_set;
    uint32_t last_ctx;
    /* a possible spin iteration cut by the chunk's end, replayed (or skipped) with the next
     * chunk, whose first REPLAY_CARRY_JOIN events are then copied behind it into `merged`;
     * the rest of that chunk (`rest`, nrest events) comes next, in place */
    ms_replay_event carry[MS_ATOMIC_SPIN_BODY_MAX + 2 + REPLAY_SPIN_WORK_MAX]; /* accesses and WORK events */
    size_t ncarry;
    int carry_end;           /* the stream ended after the carried events: they are the last ones */
    ms_replay_event *merged; /* room for carry and REPLAY_CARRY_JOIN events */
    const ms_replay_event *rest;
    size_t nrest;
} replay_thread;

typedef struct {
    replay_thread *threads;
    size_t nthreads;
    sync_table objs;
    const ms_replay_sink *sink;
} replay_state;

/* Carry out the sync event e at thread t's head. force: a deadlock break, proceed whatever the
 * state. Returns 1 when the thread proceeds past e, 0 when it blocks (its wait state records
 * how far it got), 2 when it blocks after a step others may be waiting for (a COND_WAIT gave
 * up its mutex), -1 when out of memory. Region boundaries go to st->sink. */
int replay_sync(replay_state *st, replay_thread *t, const ms_replay_event *e, int force);

/* Atomics as ordering edges (replay_atomic.c). Before the replay, every stream's ATOMIC
 * events are shown to replay_atomic_note (the pre-scan), then replay_atomic_prepare orders
 * what was noted; both return 0 or -1 (out of memory). replay_atomic carries out the ATOMIC
 * event e at t's head: 1 when it passes, 0 when it must wait (an acquiring event whose
 * address has an earlier-seq releasing event not yet replayed); force: pass anyway. */
int replay_atomic_note(replay_state *st, const ms_replay_event *e);
int replay_atomic_prepare(replay_state *st);
int replay_atomic(replay_state *st, const ms_replay_event *e, int force);

/* Spin-waits, recognized at replay time: when ev[pos] is an ordered atomic load that is
 * followed, after at most MS_ATOMIC_SPIN_BODY_MAX + 1 plain accesses (its own read and the
 * loop's) and REPLAY_SPIN_WORK_MAX WORK events (the loop's blocks in plugin code: one event per
 * distinct block, several for a loop whose inlined calls branch, at -O0), by another ordered
 * load of the same address, it is one iteration of a spin whose
 * last load alone is replayed (that one waits for the awaited release). Returns the number of events to skip (0: not a spin
 * iteration; REPLAY_SPIN_UNDECIDED: the chunk ends before it can be told, the caller carries
 * the events from pos on over to the next chunk). Loads only. */
#define REPLAY_SPIN_UNDECIDED SIZE_MAX
size_t replay_atomic_spin(const ms_replay_event *ev, size_t pos, size_t n);

/* The thread has ended (EXIT or end of stream): it gives up the locks it still holds (handing
 * them to their waiters). Returns 0 or -1 (out of memory). */
int replay_thread_finish(replay_thread *t, int complete);

/* The thread with the given index, or NULL. */
replay_thread *replay_thread_find(replay_state *st, uint64_t index);

#endif
