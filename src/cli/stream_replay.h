/* Replaying a recorded event stream (DIR/thread-N.zst, src/format/stream.h) into a simulator. */
#ifndef MEMSPY_CLI_STREAM_REPLAY_H
#define MEMSPY_CLI_STREAM_REPLAY_H
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"

typedef struct {
    uint64_t events, chunks;
    uint64_t dropped;      /* events without a context or that the simulator could not count */
} ms_replay_stats;

/* Simulate every event of the stream at path (thread thread_index, contexts 1..max_ctx) on
 * processor 0 of sim, in order. Returns 0 when the whole stream was replayed; 1 when it is
 * truncated or corrupt (the events before the bad spot were simulated; err names the thread,
 * the byte offset in the file and in the decompressed stream); -1 when it cannot be read at
 * all (err says why). */
int ms_stream_replay(const char *path, uint32_t thread_index, uint32_t max_ctx, ms_sim *sim,
                     ms_replay_stats *st, char *err, size_t errlen);

#endif
