/* Reading one recorded stream (DIR/thread-N.zst, src/format/stream.h) chunk by chunk: zstd
 * streaming decompression into a buffer that holds at most one chunk plus one zstd output
 * block; each complete chunk is size-checked, CRC-checked and decoded into an array of events
 * before any of them is handed out. Memory per stream: one chunk (bytes and decoded events),
 * the zstd input buffer and the decompression context. Internal to src/replay. */
#ifndef MEMSPY_REPLAY_STREAM_READER_H
#define MEMSPY_REPLAY_STREAM_READER_H
#include <stddef.h>
#include <stdint.h>

#include "replay.h" /* ms_replay_event */

typedef struct ms_stream_reader ms_stream_reader;

/* What ms_stream_reader_next returned. */
enum {
    MS_SR_FAIL = -1, /* hard error (I/O, out of memory): err says what */
    MS_SR_END = 0,   /* the stream ended cleanly */
    MS_SR_CHUNK = 1, /* a good chunk: *events, *nevents */
    MS_SR_BAD = 2,   /* truncated or corrupt here: err is the problem text (thread, offsets) */
};

/* Open path (the stream of thread `index`, contexts 1..max_ctx valid) and read its header.
 * Returns MS_SR_CHUNK (1) when the header is good, MS_SR_BAD (2) when the stream ends or is
 * corrupt before its header is complete (err: the problem), MS_SR_FAIL (-1) when the file
 * cannot be read, is not a memspy stream, belongs to another thread or has a version this
 * reader does not know (err says which). *out is set in the first two cases. */
int ms_stream_reader_open(ms_stream_reader **out, const char *path, uint32_t index, uint32_t max_ctx, char *err,
                          size_t errlen);

/* The stream's format version (1 to MS_STREAM_VERSION). */
uint32_t ms_stream_reader_version(const ms_stream_reader *s);

/* From now on hand out each chunk's sync events only (*nevents counts them, possibly 0);
 * accesses are still checked, so good and bad chunks are the same as in a full read. For
 * scans that look for sync events (the replay's CREATE pre-scan): it saves storing accesses. */
void ms_stream_reader_syncs_only(ms_stream_reader *s);

/* Number of good chunks handed out so far. */
uint64_t ms_stream_reader_good_chunks(const ms_stream_reader *s);

/* The first nchunks chunks of this file were found good (CRC included) by an earlier reader
 * (the replay's pre-scan): skip their CRC, keep every other check. */
void ms_stream_reader_trust(ms_stream_reader *s, uint64_t nchunks);

/* The bytes of a stream's last good chunks, kept by a scan for a later reader of the stream. */
typedef struct ms_stream_kept ms_stream_kept;

/* From now on keep the payloads of the last good chunks handed out, at most `budget` bytes of
 * them (the oldest dropped first), for ms_stream_reader_take_kept. For the replay's pre-scan:
 * the replay's own read then takes those chunks from memory instead of decompressing them a
 * second time. */
void ms_stream_reader_keep(ms_stream_reader *s, size_t budget);

/* After the stream ended cleanly (MS_SR_END): the kept chunks (the caller's; *bytes: their
 * payload bytes), else NULL (nothing kept, or the stream was damaged or not read to its end). */
ms_stream_kept *ms_stream_reader_take_kept(ms_stream_reader *s, size_t *bytes);

/* k (from another reader of this file, which read it to its clean end; taken over) holds the
 * stream's last chunks: decompress only the chunks before them, take those from k, then end.
 * Results are the same as without. Before ms_stream_reader_ahead and the first chunk. */
void ms_stream_reader_use_kept(ms_stream_reader *s, ms_stream_kept *k);

void ms_stream_kept_free(ms_stream_kept *k);

/* Decode the next chunk. On MS_SR_CHUNK, *events points to *nevents events valid until the next
 * call. After MS_SR_END or MS_SR_BAD the reader stays at that point (further calls repeat it). */
int ms_stream_reader_next(ms_stream_reader *s, const ms_replay_event **events, size_t *nevents, char *err,
                          size_t errlen);

/* From now on decode ahead on threads of the reader's own: one decompresses and copies each
 * chunk's bytes, nparsers (1..8) check and decode chunks in parallel, up to 2 + 2 x nparsers (at least 8)
 * chunks ahead of the caller (each ~128 KiB of events for the runtime's chunks); calls return the same results in the same order. Returns 0, or -1 when the
 * threads cannot be started (or the reader has ended, hands out sync events only, or already
 * decodes ahead): the reader then goes on in the caller's thread. Not with
 * ms_stream_reader_trust after it. */
int ms_stream_reader_ahead(ms_stream_reader *s, unsigned nparsers);

void ms_stream_reader_close(ms_stream_reader *s);

#endif
