/* Replaying recorded per-thread event streams (DIR/thread-N.zst, src/format/stream.h) in one
 * of ccSIM's deterministic interleavings. The result depends only on the streams, never on how
 * the OS scheduled the threads when they were recorded.
 *
 * Threads map to processors one to one (thread index i -> processor i mod nprocs; more threads
 * than processors time-share a processor in thread order). Between synchronisation events:
 *   interleaved: round robin over the runnable threads in thread-index order, one access each
 *                per turn (sync events at a thread's head are handled when it is its turn and
 *                do not use up the turn);
 *   piped:       the lowest-indexed runnable thread runs until it blocks or ends, then the next;
 *   timed:       the thread with the earliest simulated clock goes next (below; the default
 *                order of more than one thread, ms_interleave_resolve).
 * The synchronisation semantics (locks with FIFO hand-off, barriers, create/join, condition
 * variables, semaphores, OpenMP fork/begin) are simulated by the replay itself (stream.h lists
 * them). When every unfinished thread is blocked (an order the recording did not show, e.g. a
 * lock-order inversion or a cond wait that no recorded signal falls in), the blocked thread
 * whose blocking event has the lowest recorded seq is let through; such breaks are counted.
 * A stream that ends without EXIT ends its thread (the process exited). */
#ifndef MEMSPY_REPLAY_REPLAY_H
#define MEMSPY_REPLAY_REPLAY_H
#include <stddef.h>
#include <stdint.h>

/* One decoded event of a stream. kind 0: an access (addr, size, write, ctx); kind MS_SYNC_*:
 * a sync event (obj in addr, arg in size, seq). */
typedef struct {
    uint64_t addr;  /* access address / sync obj */
    uint64_t size;  /* access size / sync arg */
    uint64_t seq;   /* sync events: the recorded process-wide sequence number */
    uint32_t ctx;   /* access context id (0 = unattributed) / sync site (stream.h; 0 none) */
    uint16_t kind;  /* 0 = access, else MS_SYNC_* */
    uint16_t write; /* access: 1 = write */
} ms_replay_event;

/* MS_INTERLEAVE_DEFAULT: no order was chosen; the replay takes ms_interleave_resolve's. */
typedef enum {
    MS_INTERLEAVE_INTERLEAVED = 0,
    MS_INTERLEAVE_PIPED = 1,
    MS_INTERLEAVE_TIMED = 2,
    MS_INTERLEAVE_DEFAULT = 3
} ms_interleave;

/* The timed order (docs/design-threads.md, "Timed replay"): every thread has a clock in
 * simulated cycles. An access advances it by the stall the sink reports (access_cycles), a
 * WORK event by the compute cycles the sink reports (work_cycles; NULL: one cycle per block
 * execution); a recording without any WORK event charges MS_TIMED_REF_CYCLES of compute per
 * access instead (the result is then approximate); every synchronisation event passed costs
 * MS_TIMED_SYNC_CYCLES. The runnable, unblocked thread with the earliest clock (then the lowest
 * index) handles its next event; a wait ends at the clock of the thread whose event ended it
 * (the lock's release, the barrier's last arrival, the child's exit, the signal, the post),
 * so locks are granted in order of simulated request time and barriers release at the last
 * arrival. Threads model one processor each (with fewer processors than threads, threads that
 * share one keep their own clocks). */
#define MS_TIMED_REF_CYCLES 2u
#define MS_TIMED_SYNC_CYCLES 20u

/* The mode's name ("interleaved", "piped" or "timed"; "default"), as options, recordings and
 * results spell it. */
const char *ms_interleave_name(ms_interleave mode);
/* The mode named name (interleaved, piped or timed): 0, or -1 if it names none. */
int ms_interleave_parse(const char *name, ms_interleave *mode);
/* The order a replay of nthreads streams takes for mode: MS_INTERLEAVE_DEFAULT is timed for
 * more than one thread (the waiting-time analysis, locks and barriers in simulated time) and
 * interleaved for one (the same statistics as timed, without its single-partition simulation);
 * any other mode is returned as it is. */
ms_interleave ms_interleave_resolve(ms_interleave mode, size_t nthreads);

/* One instance of waiting in the timed order: the thread on cpu blocked at its serial-th
 * synchronisation event (kind, obj) from clock `from` to `to`; the event that ended the wait
 * was the late thread's late_serial-th arrival (late_cpu; -1 when a deadlock break ended it).
 * ctx: the code location of the wait, the site of the event it waited at (stream.h, version 5:
 * the synchronising call), else the context of the waiter's last access before it (0 none). */
typedef struct ms_replay_wait {
    unsigned kind;
    uint64_t obj;
    unsigned cpu;
    uint64_t serial;
    int late_cpu;
    uint64_t late_serial;
    uint64_t from, to;
    uint32_t ctx;
} ms_replay_wait;

/* Where replayed events go. The CLI connects it to a simulator (ms_sim_access with the
 * processor, MS_ACC_WRITE / MS_ACC_LOCKED flags, and ms_sim_next_region at boundaries);
 * tests connect it to a recorder. */
typedef struct {
    /* one access: ctx 0 = unattributed; size may exceed a line (a range). */
    void (*access)(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked, uint32_t ctx);
    /* a region boundary was passed (barrier completed, fork, create, join). */
    void (*region)(void *ud);
    void *ud;
    /* optional (NULL: ignored): the thread on cpu executed basic block `block` (an id of the
     * raw file's MS_RAW_BLOCKS) count times since its previous work (a WORK event). */
    void (*work)(void *ud, unsigned cpu, uint32_t block, uint64_t count);
    /* timed order only, all optional. access_cycles: replaces `access` (same arguments) and
     * returns the access's stall in cycles beyond an L1 hit (NULL: `access`, no stall).
     * work_cycles: the compute cycles of block executed count times (after `work`).
     * arrive: the thread on cpu reached its serial-th synchronisation event (1, 2, ...; kind
     * MS_SYNC_*, MS_SYNC_EXIT also for a stream that just ends) at clock; the work and
     * accesses delivered for cpu since its previous arrival are its segment before it.
     * wait: a wait that lasted (to > from) ended (see ms_replay_wait). */
    uint64_t (*access_cycles)(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                              uint32_t ctx);
    uint64_t (*work_cycles)(void *ud, uint32_t block, uint64_t count);
    void (*arrive)(void *ud, unsigned cpu, uint64_t serial, unsigned kind, uint64_t obj, uint64_t clock);
    void (*wait)(void *ud, const ms_replay_wait *w);
    /* optional (NULL: `access` for each): n >= 1 consecutive accesses (events of kind 0) of
     * the thread on cpu, in order, as `access` would be called for each; not in the timed
     * order. ev is valid during the call only. */
    void (*accesses)(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n);
    /* timed order, optional (NULL: access_cycles or access for each): the thread on cpu's
     * next n >= 1 events, of which ev[0] is an access: its accesses from ev[0] on are replayed
     * in order as access_cycles would be, each advancing *clock by its stall plus `compute`,
     * up to the first event that is not an access (kind != 0) or until *clock reaches `limit`
     * (the first is always replayed: the thread stays the earliest until then). Returns how
     * many were replayed, their stalls' sum added to *stall. */
    size_t (*accesses_cycles)(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n,
                              uint64_t compute, uint64_t *clock, uint64_t limit, uint64_t *stall);
    /* interleaved order, optional (NULL: `access` for each): nturns >= 1 turns of k >= 2
     * threads, each turn one access of each thread in order: turn j replays ev[i][j] (an
     * access, kind 0) on processor cpu[i] with lock flag locked[i], for i = 0 .. k-1, as
     * `access` would be called for each. ev[i] is valid during the call only. */
    void (*turns)(void *ud, size_t k, const unsigned *cpu, const unsigned *locked, const ms_replay_event *const *ev,
                  size_t nturns);
} ms_replay_sink;

/* Per thread of the recording. */
typedef struct {
    uint32_t index; /* thread index of the stream (thread-N.zst) */
    uint32_t cpu;   /* processor it was replayed on */
    int32_t parent; /* index of the creating thread, -1 if unknown (main thread,
                               * pool threads seen first at an access) */
    uint64_t accesses, syncs;
    uint64_t wait_turns; /* scheduling turns it spent blocked (barrier, lock, join, cond,
                               * semaphore, fork): Carnival-style waiting, in replay steps */
    int complete;        /* 1: the stream ended cleanly (EXIT or end of a good stream) */
    /* timed order: the thread's cycles by kind (their sum is its final clock) */
    uint64_t compute, stall, waiting, sync;
} ms_replay_thread;

typedef struct {
    ms_replay_thread *threads;
    size_t nthreads;                   /* by thread index order */
    uint64_t accesses, syncs, dropped; /* dropped: unattributed (ctx 0) accesses */
    uint64_t deadlocks_broken;
    int timed_approximate; /* timed order without WORK events: compute per access assumed */
    char **problems;
    size_t nproblems; /* "thread 2: corrupt chunk at byte 1234 of
                                                   * thread-2.zst (decompressed offset 5678)" */
} ms_replay_result;

typedef struct ms_replay ms_replay;

/* Open the recording in dir: find thread-N.zst files and read their headers. Returns 0, or -1
 * with err naming the problem (no such directory, no streams, not a memspy stream, a newer
 * stream version). */
int ms_replay_open(ms_replay **out, const char *dir, uint32_t max_ctx, char *err, size_t errlen);

/* Number of threads (streams) in the recording: the default number of processors. */
size_t ms_replay_nthreads(const ms_replay *r);

/* Decode the first nstreams streams (thread index order) ahead while the replay runs, each on
 * threads of its own: one decompressing, nparsers (1..8) checking and parsing its chunks in
 * parallel (stream_reader.h). The same results, the decoding off the replay's thread. 0 (the
 * default): every stream is decoded on the thread that calls ms_replay_run. */
void ms_replay_set_decode_ahead(ms_replay *r, unsigned nstreams, unsigned nparsers);

/* The pre-scan of the streams (for CREATE, ATOMIC and WORK events) may keep up to `bytes` of
 * their decompressed chunks in memory, all streams together (the last chunks of each stream,
 * an equal share each), so that the replay does not decompress those a second time. The same
 * results; 0 (the default) keeps none. (Where streams are decoded ahead, the pre-scan also
 * runs on threads of its own, one stream each.) */
void ms_replay_set_keep(ms_replay *r, size_t bytes);

/* Whether the pre-scan takes a stream's findings from its sync index (src/format/stream.h)
 * where it has a usable one, instead of scanning it (on: the default). The same results;
 * off: every stream is scanned (for tests and measurements). */
void ms_replay_set_use_index(ms_replay *r, int on);

/* Replay everything into sink with nprocs processors (>= 1). Returns 0 when every stream was
 * complete, 1 when some were truncated or corrupt (their good prefix was replayed; res->problems
 * says which and where), -1 on a hard error (out of memory, unreadable file) with err set.
 * res is filled in every case and freed with ms_replay_result_free. */
int ms_replay_run(ms_replay *r, ms_interleave mode, unsigned nprocs, const ms_replay_sink *sink, ms_replay_result *res,
                  char *err, size_t errlen);

void ms_replay_result_free(ms_replay_result *res);
void ms_replay_close(ms_replay *r);

#endif
