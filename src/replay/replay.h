/* Replaying recorded per-thread event streams (DIR/thread-N.zst, src/format/stream.h) in one
 * of ccSIM's deterministic interleavings. The result depends only on the streams, never on how
 * the OS scheduled the threads when they were recorded.
 *
 * Threads map to processors one to one (thread index i -> processor i mod nprocs; more threads
 * than processors time-share a processor in thread order). Between synchronisation events:
 *   interleaved: round robin over the runnable threads in thread-index order, one access each
 *                per turn (sync events at a thread's head are handled when it is its turn and
 *                do not use up the turn);
 *   piped:       the lowest-indexed runnable thread runs until it blocks or ends, then the next.
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

typedef enum { MS_INTERLEAVE_INTERLEAVED = 0, MS_INTERLEAVE_PIPED = 1 } ms_interleave;

/* The mode's name ("interleaved" or "piped"), as options, recordings and results spell it. */
const char *ms_interleave_name(ms_interleave mode);
/* The mode named name: 0, or -1 if it names none. */
int ms_interleave_parse(const char *name, ms_interleave *mode);

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
} ms_replay_thread;

typedef struct {
    ms_replay_thread *threads;
    size_t nthreads;                   /* by thread index order */
    uint64_t accesses, syncs, dropped; /* dropped: unattributed (ctx 0) accesses */
    uint64_t deadlocks_broken;
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

/* Replay everything into sink with nprocs processors (>= 1). Returns 0 when every stream was
 * complete, 1 when some were truncated or corrupt (their good prefix was replayed; res->problems
 * says which and where), -1 on a hard error (out of memory, unreadable file) with err set.
 * res is filled in every case and freed with ms_replay_result_free. */
int ms_replay_run(ms_replay *r, ms_interleave mode, unsigned nprocs, const ms_replay_sink *sink, ms_replay_result *res,
                  char *err, size_t errlen);

void ms_replay_result_free(ms_replay_result *res);
void ms_replay_close(ms_replay *r);

#endif
