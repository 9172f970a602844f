/* The recorded event streams of `memspy run --record DIR`: DIR/thread-N.zst, one per thread
 * of the profiled program (N = the runtime's thread index, 0 = the first thread to record).
 * Each file is zstd-compressed (one or more frames); the decompressed bytes are:
 *
 *   header : "MSPYREC\0" (8 bytes), u32 version (MS_STREAM_VERSION), u32 thread index
 *   chunks : u32 nevents, u32 payload_len, u64 seq, u32 crc32 (zlib, of the payload),
 *            payload[payload_len]                                          (repeated)
 *
 * A chunk is one flushed event buffer; seq numbers the flushes of the whole process (the
 * order in which the runtime fed them to its simulator). An event in a payload is three
 * LEB128 varints: ctx (a context id of DIR/profile.raw's MS_RAW_CONTEXTS; 0 = an access the
 * runtime could not attribute), zigzag(address - previous address of the thread; the first
 * is relative to 0), and size << 1 | write. Integers little-endian. See docs/formats.md. */
#ifndef MEMSPY_FORMAT_STREAM_H
#define MEMSPY_FORMAT_STREAM_H
#include <stdint.h>

#define MS_STREAM_MAGIC "MSPYREC"     /* 7 chars + NUL = 8 bytes */
#define MS_STREAM_VERSION 1u
#define MS_STREAM_HEADER_SIZE 16u
#define MS_STREAM_CHUNK_HEADER_SIZE 20u
#define MS_STREAM_EVENT_MAX 20u       /* longest encoded event: 5 + 10 + 5 bytes */

/* Append v as an unsigned LEB128 varint at p; returns the end. */
static inline unsigned char *ms_stream_put_varint(unsigned char *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* Zigzag mapping of a signed delta to an unsigned number (small magnitudes stay small). */
static inline uint64_t ms_stream_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t ms_stream_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Little-endian fixed-width integers. */
static inline void ms_stream_put_u32(unsigned char *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline void ms_stream_put_u64(unsigned char *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t ms_stream_get_u32(const unsigned char *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = v << 8 | p[i];
    return v;
}
static inline uint64_t ms_stream_get_u64(const unsigned char *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

#endif
