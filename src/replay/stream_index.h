/* Reading a stream's sync index (src/format/stream.h: the zstd skippable frame the runtime
 * appends to each stream it ends cleanly), so that the replay takes the events its pre-scan
 * looks for from the index instead of decompressing the stream an extra time. Internal to
 * src/replay. */
#ifndef MEMSPY_REPLAY_STREAM_INDEX_H
#define MEMSPY_REPLAY_STREAM_INDEX_H
#include <stddef.h>
#include <stdint.h>

#include "replay.h" /* ms_replay_event */

/* What a usable index holds: its CREATE and releasing ATOMIC events in stream order (addr =
 * obj, size = arg, seq, ctx = site), whether the stream holds WORK events, its chunks. */
typedef struct {
    ms_replay_event *ev;
    size_t n;
    int has_work;
    uint64_t chunks;
} ms_stream_index;

/* Read the index of path, the stream of thread `index` (contexts 1..max_ctx valid). Returns 1
 * with *out filled (out->ev is the caller's to free) when the file ends in an index of a known
 * version that checks out against the file's bytes before it; 0 when it has none usable
 * (absent, newer, damaged, the stream differs from what was indexed, the file cannot be read:
 * the caller scans the stream itself); -1 when out of memory (err says so). */
int ms_stream_index_read(const char *path, uint32_t index, uint32_t max_ctx, ms_stream_index *out, char *err,
                         size_t errlen);

#endif
