/* Decoding a recorded stream: zstd streaming decompression into a buffer of pending bytes, from
 * which the header and then one complete chunk at a time are taken. A chunk is checked (size
 * bounds, CRC-32, every varint) and decoded into an event array before any of its events is
 * used, so a corrupt stream is replayed up to its last good chunk. */
#include "stream_reader.h"
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "../format/stream.h"
#include "../util/util.h"

#define MAX_CHUNK_EVENTS (1u << 20)
#define MIN_PENDING_ROOM ((size_t)1 << 16) /* decompress at least this much at a time */

struct ms_stream_reader {
    FILE *f;
    char *path;
    uint32_t index, max_ctx, version;
    int state; /* MS_SR_CHUNK while readable, else the final MS_SR_END/BAD */
    ZSTD_DStream *ds;
    unsigned char *in; /* compressed input buffer */
    ZSTD_inBuffer inb;
    uint64_t in_file_off; /* file offset of in[0] */
    int eof;
    size_t frame_left;   /* ZSTD_decompressStream's last hint: 0 = at a frame end */
    unsigned char *pend; /* decompressed bytes; pend[start..npend) not consumed yet */
    size_t start, npend, cap;
    uint64_t consumed; /* decompressed offset of pend[start] */
    ms_replay_event *ev;
    size_t ev_cap;
    uint64_t prev_addr;        /* the thread's last address: accesses are deltas from it */
    ms_stream_ctx_table *ctxs; /* version 6: each context's last access in the chunk */
    int syncs_only;            /* hand out sync events only (ms_stream_reader_syncs_only) */
    uint64_t good_chunks;      /* chunks handed out so far */
    uint64_t trusted_chunks;   /* the first ones, whose CRC an earlier read checked */
    char problem[512];         /* the MS_SR_BAD text, repeated by later calls */
    struct ahead *ahead;       /* ms_stream_reader_ahead: the decoding thread and its chunks */
    ms_stream_kept *keep;      /* a scan's: the last good chunks' bytes (ms_stream_reader_keep) */
    ms_stream_kept *kept;      /* a replay's: those chunks, read instead of decompressed */
    unsigned char *kept_cur;   /* the kept chunk handed out last (the reader's until the next) */
};

/* The bytes of the last good chunks of a stream that a scan decompressed (a suffix of the
 * stream: v[head..count), in order), so that a later reader of the same stream takes them
 * from memory instead of decompressing them again. */
typedef struct {
    unsigned char *bytes; /* the payload */
    uint32_t len, n, crc;
    uint64_t off; /* decompressed offset of the chunk's header */
} kept_chunk;

struct ms_stream_kept {
    kept_chunk *v;
    size_t head, count, cap;
    size_t bytes, budget; /* payload bytes held, the most held */
    uint64_t end;         /* decompressed offset after the last kept chunk: the stream's end */
};

/* The decompressed offset at which the kept chunks not yet read start (the end after the last). */
static uint64_t kept_next(const ms_stream_kept *k) { return k->head < k->count ? k->v[k->head].off : k->end; }

/* Decoding ahead (ms_stream_reader_ahead): a reader thread decompresses the stream and
 * copies each chunk's bytes into the next free slot of a ring; parser threads take the
 * slots in any order and check (CRC) and decode them, with addresses relative to the chunk's
 * start (before version 6 the address deltas chain across chunks); the consumer takes the
 * slots in stream order and adds each chunk's base address (0 for version 6 streams, whose
 * chunks start from address 0: nothing to add). The slot at head is the consumer's from the call
 * that handed it out to the next call; a final result (end, bad, failure) stays at head and
 * is repeated, so the results are the same as the reader's on the caller's thread.
 *
 * The hand-over is batched so that the threads sleep and wake (futex calls) per batch of
 * chunks, not per chunk: each role waits on a condition variable of its own and is woken
 * only when it waits and what it waits for is there, after the waker gave up the lock (so the
 * woken thread does not sleep again on the lock); a full ring wakes its reader only once half
 * of it is free again, so the reader then decompresses half a ring in one go; a waiting parser
 * is woken for two chunks at a time, or at once when the consumer waits, the reader is about
 * to sleep or the stream has ended. */
#define AHEAD_MAX_PARSERS 8
#define AHEAD_SLOTS (2 + 2 * AHEAD_MAX_PARSERS) /* the ring; depth_for(parsers) of it used */

/* The slots of the ring in use with n parser threads: 2 + 2n, at least 8 (batches of 4). */
static unsigned depth_for(unsigned n) { return 2 + 2 * n < 8 ? 8 : 2 + 2 * n; }
enum { SLOT_FREE, SLOT_RAW, SLOT_PARSING, SLOT_DONE };
typedef struct {
    int state, rc;
    unsigned char *raw; /* the payload */
    size_t raw_cap;
    uint32_t len, n, crc;
    int check_crc;
    uint64_t fpos, consumed; /* where the chunk was, for a problem's text */
    ms_replay_event *ev;
    size_t cap, nstored;
    uint64_t rel_last; /* the last access address relative to the chunk's base */
    char err[512];
} ahead_slot;

struct ahead {
    pthread_t reader, parser[AHEAD_MAX_PARSERS];
    unsigned nparsers;
    pthread_mutex_t mu;
    pthread_cond_t free_cv, raw_cv, done_cv; /* the reader's, the parsers', the consumer's */
    int reader_waits, consumer_waits;
    unsigned parsers_wait; /* parser threads waiting on raw_cv */
    unsigned nraw;         /* slots whose bytes are in, not yet taken by a parser */
    ahead_slot slot[AHEAD_SLOTS];
    unsigned head, count; /* the reader's slots: head .. head + count - 1 (ring) */
    unsigned depth;       /* the most slots in use (depth_for) */
    int held, stop;       /* held: the consumer holds slot[head] (only the consumer uses it) */
    uint64_t handed;      /* good chunks handed out */
    uint64_t base;        /* the address the next chunk's deltas start from */
};

/* The file offset zstd has read up to: as close to a bad spot as the compressed file tells. */
static uint64_t file_pos(const ms_stream_reader *s) { return s->in_file_off + s->inb.pos; }

/* A problem's text: what, where (compressed file position, decompressed offset). */
static void problem_text(const ms_stream_reader *s, const char *what, uint64_t fpos, uint64_t consumed, char *out,
                         size_t len)
{
    snprintf(out, len, "thread %u: %s at byte %llu of %s (decompressed offset %llu)", s->index, what,
             (unsigned long long)fpos, s->path, (unsigned long long)consumed);
}

static int bad(ms_stream_reader *s, const char *what, char *err, size_t errlen)
{
    problem_text(s, what, file_pos(s), s->consumed, s->problem, sizeof s->problem);
    snprintf(err, errlen, "%s", s->problem);
    s->state = MS_SR_BAD;
    return MS_SR_BAD;
}

/* Make pend hold at least `need` unconsumed bytes. Returns 1, 0 when the stream (file) ended
 * first, MS_SR_FAIL on an I/O or memory error, MS_SR_BAD when zstd finds the data corrupt. */
static int fill(ms_stream_reader *s, size_t need, char *err, size_t errlen)
{
    while (s->npend - s->start < need) {
        /* Move the unconsumed bytes to the front only when the room behind them runs short
         * (not before every decompression: that copied most of the stream once more). */
        if (s->start && (s->cap - s->npend < MIN_PENDING_ROOM || s->cap - s->start < need)) {
            memmove(s->pend, s->pend + s->start, s->npend - s->start);
            s->npend -= s->start;
            s->start = 0;
        }
        if (s->cap - s->npend < MIN_PENDING_ROOM || s->cap - s->start < need) {
            size_t cap = s->cap ? s->cap : 2 * MIN_PENDING_ROOM;
            while (cap < need || cap - s->npend < MIN_PENDING_ROOM) cap *= 2;
            unsigned char *p = realloc(s->pend, cap);
            if (!p) return ms_errorf(err, errlen, "out of memory");
            s->pend = p;
            s->cap = cap;
        }
        if (s->inb.pos == s->inb.size && !s->eof) {
            s->in_file_off += s->inb.size;
            size_t n = fread(s->in, 1, ZSTD_DStreamInSize(), s->f);
            if (ferror(s->f)) return ms_errorf(err, errlen, "cannot read %s: %s", s->path, strerror(errno));
            s->inb = (ZSTD_inBuffer){ s->in, n, 0 };
            s->eof = n == 0;
        }
        size_t in_before = s->inb.pos, room = s->cap - s->npend;
        if (s->kept) { /* decompress no further than the kept chunks' start */
            uint64_t upto = kept_next(s->kept), have = s->consumed + (s->npend - s->start);
            if (have >= upto) return 0; /* cannot happen: the kept chunks start at a chunk's start */
            if (upto - have < room) room = (size_t)(upto - have);
        }
        ZSTD_outBuffer out = { s->pend + s->npend, room, 0 };
        size_t hint = ZSTD_decompressStream(s->ds, &out, &s->inb);
        if (ZSTD_isError(hint)) {
            char what[160];
            snprintf(what, sizeof what, "corrupt compressed data (%s)", ZSTD_getErrorName(hint));
            return bad(s, what, err, errlen);
        }
        s->npend += out.pos;
        if (s->inb.pos != in_before || out.pos)
            s->frame_left = hint;
        else if (s->eof)
            return 0; /* no input left and nothing more came out */
    }
    return 1;
}

/* The end of the data: clean at a frame end with nothing pending, else a truncation. */
static int ended(ms_stream_reader *s, char *err, size_t errlen)
{
    if (s->frame_left == 0 && s->npend == s->start) {
        s->state = MS_SR_END;
        return MS_SR_END;
    }
    return bad(s, "stream truncated", err, errlen);
}

/* Little-endian 8 bytes at p. */
static inline uint64_t load_le64(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

#define CONT_BITS 0x8080808080808080ull /* each byte's continuation bit */

/* The 7-bit groups of the varint bytes in x (continuation bits cleared), packed into one
 * value: pairs, then fours, then eights of groups side by side. */
static inline uint64_t varint_pack(uint64_t x)
{
    x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
    x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
    return ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
}

/* read_varint where at least MAX_VARINT bytes are left: the same result (and the same
 * rejection of an 11th byte), without the bounds test per byte: a varint of up to eight bytes
 * is decoded from one 8-byte load without a loop (its end is the first byte whose
 * continuation bit is clear), a ninth and tenth byte one by one. */
#define MAX_VARINT 10
static inline __attribute__((always_inline)) int read_varint_unchecked(const unsigned char **p, uint64_t *v)
{
    const unsigned char *q = *p;
    uint64_t w = load_le64(q);
    if (__builtin_expect(!(w & 0x80), 1)) { /* one byte: most heads and sizes */
        *v = w & 0x7f;
        *p = q + 1;
        return 0;
    }
    if (__builtin_expect(!(w & 0x8000), 1)) { /* two bytes: a context id above 63 */
        *v = (w & 0x7f) | ((w >> 1) & 0x3f80);
        *p = q + 2;
        return 0;
    }
    uint64_t ends = ~w & CONT_BITS;
    if (__builtin_expect(ends != 0, 1)) {
        /* ends ^ (ends - 1): every bit up to the first end's, i.e. the varint's bytes */
        *v = varint_pack(w & (ends ^ (ends - 1)) & ~CONT_BITS);
        *p = q + (__builtin_ctzll(ends) >> 3) + 1;
        return 0;
    }
    uint64_t x = varint_pack(w & ~CONT_BITS);
    x |= (uint64_t)(q[8] & 0x7f) << 56;
    if (!(q[8] & 0x80)) {
        *v = x;
        *p = q + 9;
        return 0;
    }
    x |= (uint64_t)(q[9] & 0x7f) << 63;
    if (!(q[9] & 0x80)) {
        *v = x;
        *p = q + 10;
        return 0;
    }
    return -1;
}

/* read_varint_unchecked's checks without the value (an address delta the scan for sync
 * events does not need). */
static inline __attribute__((always_inline)) int skip_varint_unchecked(const unsigned char **p)
{
    const unsigned char *q = *p;
    uint64_t ends = ~load_le64(q) & CONT_BITS;
    if (__builtin_expect(ends != 0, 1)) {
        *p = q + (__builtin_ctzll(ends) >> 3) + 1;
        return 0;
    }
    if (!(q[8] & 0x80)) {
        *p = q + 9;
        return 0;
    }
    if (!(q[9] & 0x80)) {
        *p = q + 10;
        return 0;
    }
    return -1;
}

/* The events of a version 2 chunk while at least five varints' worth of bytes are left (the
 * hot loop of decode_chunk), up to nevents, stopping near the end: *done of them decoded,
 * each stored at *evp (advanced) unless store is 0 (then sync events only: accesses are
 * checked and their addresses not followed). perctx: a version 6 chunk, whose address deltas
 * are from each context's last access in ctxs (stream.h). Returns 0, or -1 when an event does
 * not decode. */
static inline __attribute__((always_inline)) int events_v2(const unsigned char **pp, const unsigned char *end,
                                                           uint32_t nevents, uint64_t max_ctx, uint32_t version,
                                                           uint64_t *addrp, ms_replay_event **evp, uint32_t *done,
                                                           ms_stream_ctx_table *ctxs, const int store, const int perctx)
{
    /* called with end - p >= 5 * MAX_VARINT, so limit lies within the payload */
    const unsigned char *p = *pp, *limit = end - 5 * MAX_VARINT;
    ms_replay_event *ev = *evp;
    uint64_t addr = *addrp;
    uint32_t i = 0;
    for (; i < nevents && p <= limit; i++) {
        uint64_t head, a = 0, b, w = load_le64(p);
        /* an access whose three varints are one byte each, or whose head is two bytes and the
         * rest one byte each (a context id above 63): from one load, one test */
        if (store && (w & 0x808081) == 0) {
            head = w & 0x7f;
            a = (w >> 8) & 0x7f;
            b = (w >> 16) & 0x7f;
            p += 3;
            goto access;
        }
        if (store && (w & 0x80808081) == 0x80) {
            head = (w & 0x7f) | ((w >> 1) & 0x3f80);
            a = (w >> 16) & 0x7f;
            b = (w >> 24) & 0x7f;
            p += 4;
            goto access;
        }
        if (read_varint_unchecked(&p, &head) < 0) return -1;
        if (__builtin_expect(head & 1, 0)) { /* a sync event */
            uint64_t kind = head >> 1, seq, site = 0;
            if (kind == 0 || kind > MS_SYNC_KIND_MAX || read_varint_unchecked(&p, &a) < 0 ||
                read_varint_unchecked(&p, &b) < 0 || read_varint_unchecked(&p, &seq) < 0 ||
                (ms_stream_has_site(version, kind) && (read_varint_unchecked(&p, &site) < 0 || site > max_ctx)))
                return -1;
            *ev++ =
                (ms_replay_event){ .addr = a, .size = b, .seq = seq, .ctx = (uint32_t)site, .kind = (uint16_t)kind };
            continue;
        }
        if ((store ? read_varint_unchecked(&p, &a) : skip_varint_unchecked(&p)) < 0 ||
            read_varint_unchecked(&p, &b) < 0)
            return -1;
    access:
        /* a context above max_ctx, or a size of 0 or above UINT32_MAX (one test: 0 wraps) */
        if (((head >> 1) > max_ctx) | ((b >> 1) - 1 >= UINT32_MAX)) return -1;
        if (store) {
            uint32_t ctx = (uint32_t)(head >> 1);
            addr = (perctx ? ms_stream_ctx_base(ctxs, ctx, addr) : addr) + (uint64_t)ms_stream_unzigzag(a);
            if (perctx) ms_stream_ctx_set(ctxs, ctx, addr);
            *ev++ = (ms_replay_event){
                .addr = addr, .size = b >> 1, .ctx = (uint32_t)(head >> 1), .write = (uint16_t)(b & 1)
            };
        }
    }
    *pp = p;
    *addrp = addr;
    *evp = ev;
    *done = i;
    return 0;
}

/* Decode a chunk's payload into out (its sync events only when s->syncs_only; every event is
 * checked either way), access addresses starting from *prev (left at the last one); ctxs: the
 * caller's table for version 6 deltas (stream.h; emptied here). Reads only what is fixed once
 * the reader is open (parser threads call it). Returns the number of events stored, or -1 when
 * an event does not decode. */
static int64_t decode_chunk(const ms_stream_reader *s, const unsigned char *p, const unsigned char *end,
                            uint32_t nevents, uint64_t *prev, ms_replay_event *out, ms_stream_ctx_table *ctxs)
{
    uint64_t addr = s->version >= 6 ? 0 : *prev; /* version 6: each chunk starts from 0 */
    ms_replay_event *ev = out;
    uint32_t i = 0;
    int perctx = s->version >= 6 && !s->syncs_only;
    if (perctx) ms_stream_ctx_reset(ctxs);
    /* far from the end: the unchecked loop; the rest (the last 5 x MAX_VARINT bytes, version 1)
     * event by event */
    if (s->version >= 2 && end - p >= 5 * MAX_VARINT &&
        (s->syncs_only ? events_v2(&p, end, nevents, s->max_ctx, s->version, &addr, &ev, &i, ctxs, 0, 0)
         : perctx      ? events_v2(&p, end, nevents, s->max_ctx, s->version, &addr, &ev, &i, ctxs, 1, 1)
                       : events_v2(&p, end, nevents, s->max_ctx, s->version, &addr, &ev, &i, ctxs, 1, 0)) < 0)
        return -1;
    for (; i < nevents; i++) {
        uint64_t head, a, b;
        if (ms_stream_get_varint(&p, end, &head) < 0) return -1;
        if (s->version == 1 || !(head & 1)) {
            uint64_t ctx = s->version == 1 ? head : head >> 1;
            if (ms_stream_get_varint(&p, end, &a) < 0 || ms_stream_get_varint(&p, end, &b) < 0 || ctx > s->max_ctx ||
                (b >> 1) == 0 || (b >> 1) > UINT32_MAX)
                return -1;
            uint64_t from = perctx ? ms_stream_ctx_base(ctxs, (uint32_t)ctx, addr) : addr;
            addr = from + (uint64_t)ms_stream_unzigzag(a);
            if (perctx) ms_stream_ctx_set(ctxs, (uint32_t)ctx, addr);
            if (!s->syncs_only)
                *ev++ =
                    (ms_replay_event){ .addr = addr, .size = b >> 1, .ctx = (uint32_t)ctx, .write = (uint16_t)(b & 1) };
        } else {
            uint64_t kind = head >> 1, seq, site = 0;
            if (kind == 0 || kind > MS_SYNC_KIND_MAX || ms_stream_get_varint(&p, end, &a) < 0 ||
                ms_stream_get_varint(&p, end, &b) < 0 || ms_stream_get_varint(&p, end, &seq) < 0 ||
                (ms_stream_has_site(s->version, kind) &&
                 (ms_stream_get_varint(&p, end, &site) < 0 || site > s->max_ctx)))
                return -1;
            *ev++ =
                (ms_replay_event){ .addr = a, .size = b, .seq = seq, .ctx = (uint32_t)site, .kind = (uint16_t)kind };
        }
    }
    if (p != end) return -1;
    *prev = s->version >= 6 ? 0 : addr; /* version 6: the chunks' addresses need no base */
    return ev - out;
}

/* Take the next chunk's bytes (header checked, the CRC not yet): MS_SR_CHUNK with the
 * payload (valid until chunk_done), or the final result. */
static int take_chunk(ms_stream_reader *s, const unsigned char **payload, uint32_t *len, uint32_t *n, uint32_t *crc,
                      char *err, size_t errlen)
{
    if (s->state != MS_SR_CHUNK) {
        if (s->state == MS_SR_BAD) snprintf(err, errlen, "%s", s->problem);
        return s->state;
    }
    free(s->kept_cur);
    s->kept_cur = NULL;
    if (s->kept && s->consumed == kept_next(s->kept)) { /* at the kept chunks */
        ms_stream_kept *k = s->kept;
        if (k->head == k->count) { /* past the last: the scan found the stream's clean end */
            s->state = MS_SR_END;
            return MS_SR_END;
        }
        kept_chunk *c = &k->v[k->head++];
        *payload = s->kept_cur = c->bytes;
        c->bytes = NULL;
        *len = c->len;
        *n = c->n;
        *crc = c->crc;
        return MS_SR_CHUNK;
    }
    int rc = fill(s, MS_STREAM_CHUNK_HEADER_SIZE, err, errlen);
    if (rc != 1) return rc == 0 ? ended(s, err, errlen) : rc;
    const unsigned char *h = s->pend + s->start;
    *n = ms_stream_get_u32(h);
    *len = ms_stream_get_u32(h + 4);
    if (*n == 0 || *n > MAX_CHUNK_EVENTS || *len < 3ull * *n || *len > (uint64_t)MS_STREAM_EVENT_MAX * *n)
        return bad(s, "corrupt chunk header", err, errlen);
    rc = fill(s, MS_STREAM_CHUNK_HEADER_SIZE + (size_t)*len, err, errlen);
    if (rc != 1) return rc == 0 ? bad(s, "stream truncated", err, errlen) : rc;
    h = s->pend + s->start;
    *payload = h + MS_STREAM_CHUNK_HEADER_SIZE;
    *crc = ms_stream_get_u32(h + 16);
    return MS_SR_CHUNK;
}

/* Move past the chunk take_chunk returned. */
static void chunk_done(ms_stream_reader *s, uint32_t len)
{
    s->start += MS_STREAM_CHUNK_HEADER_SIZE + (size_t)len;
    s->consumed += MS_STREAM_CHUNK_HEADER_SIZE + (uint64_t)len;
    s->good_chunks++;
}

/* Make *ev hold at least n events. 0 or -1 (out of memory). */
static int reserve_events(ms_replay_event **ev, size_t *cap, size_t n)
{
    if (*cap >= n) return 0;
    ms_replay_event *v = realloc(*ev, n * sizeof *v);
    if (!v) return -1;
    *ev = v;
    *cap = n;
    return 0;
}

void ms_stream_kept_free(ms_stream_kept *k)
{
    if (!k) return;
    for (size_t i = k->head; i < k->count; i++) free(k->v[i].bytes);
    free(k->v);
    free(k);
}

/* Add a good chunk's payload (header at decompressed offset off) to the kept chunks, then drop
 * the oldest while they hold more than the budget. Returns 0 or -1 (out of memory). */
static int keep_chunk(ms_stream_kept *k, const unsigned char *payload, uint32_t len, uint32_t n, uint32_t crc,
                      uint64_t off)
{
    if (k->count == k->cap) {
        if (k->head && k->head >= k->cap / 2) { /* dropped ones make room (at most every cap / 2 chunks) */
            memmove(k->v, k->v + k->head, (k->count - k->head) * sizeof *k->v);
            k->count -= k->head;
            k->head = 0;
        } else {
            size_t cap = k->cap ? 2 * k->cap : 64;
            kept_chunk *v = realloc(k->v, cap * sizeof *v);
            if (!v) return -1;
            k->v = v;
            k->cap = cap;
        }
    }
    unsigned char *bytes = malloc(len ? len : 1);
    if (!bytes) return -1;
    memcpy(bytes, payload, len);
    k->v[k->count++] = (kept_chunk){ bytes, len, n, crc, off };
    k->bytes += len;
    k->end = off + MS_STREAM_CHUNK_HEADER_SIZE + len;
    for (; k->bytes > k->budget; k->head++) {
        free(k->v[k->head].bytes);
        k->bytes -= k->v[k->head].len;
    }
    return 0;
}

/* ms_stream_reader_next on the caller's thread. */
static int next_chunk(ms_stream_reader *s, const ms_replay_event **events, size_t *nevents, char *err, size_t errlen)
{
    *events = NULL;
    *nevents = 0;
    const unsigned char *payload;
    uint32_t len, n, crc;
    int rc = take_chunk(s, &payload, &len, &n, &crc, err, errlen);
    if (rc != MS_SR_CHUNK) return rc;
    if (s->good_chunks >= s->trusted_chunks && (uint32_t)crc32(0, payload, len) != crc)
        return bad(s, "chunk checksum mismatch", err, errlen);
    if (reserve_events(&s->ev, &s->ev_cap, n) < 0) return ms_errorf(err, errlen, "out of memory");
    int64_t stored = decode_chunk(s, payload, payload + len, n, &s->prev_addr, s->ev, s->ctxs);
    if (stored < 0) return bad(s, "undecodable events in chunk", err, errlen);
    if (s->keep && keep_chunk(s->keep, payload, len, n, crc, s->consumed) < 0) { /* keeping is optional */
        ms_stream_kept_free(s->keep);
        s->keep = NULL;
    }
    chunk_done(s, len);
    *events = s->ev;
    *nevents = (size_t)stored;
    return MS_SR_CHUNK;
}

/* The reader thread: each chunk's bytes into the next free slot, in order, until the end. */
static void *ahead_reader(void *arg)
{
    ms_stream_reader *s = arg;
    struct ahead *a = s->ahead;
    int wake_parser = 0, wake_consumer = 0;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        if (!a->stop && a->count == a->depth) {                              /* full: sleep until half of it is free */
            if (a->nraw && a->parsers_wait) pthread_cond_signal(&a->raw_cv); /* what is in first */
            a->reader_waits = 1;
            while (!a->stop && a->count > a->depth / 2) pthread_cond_wait(&a->free_cv, &a->mu);
            a->reader_waits = 0;
        }
        if (a->stop) break;
        ahead_slot *sl = &a->slot[(a->head + a->count) % AHEAD_SLOTS];
        pthread_mutex_unlock(&a->mu);
        if (wake_parser) pthread_cond_signal(&a->raw_cv);
        const unsigned char *payload;
        uint32_t len = 0, n = 0, crc = 0;
        int rc = take_chunk(s, &payload, &len, &n, &crc, sl->err, sizeof sl->err);
        if (rc == MS_SR_CHUNK && payload != s->kept_cur && sl->raw_cap < len) {
            unsigned char *raw = realloc(sl->raw, len);
            if (raw) {
                sl->raw = raw;
                sl->raw_cap = len;
            } else {
                rc = ms_errorf(sl->err, sizeof sl->err, "out of memory");
            }
        }
        if (rc == MS_SR_CHUNK && payload == s->kept_cur) { /* a kept chunk: its bytes change hands */
            free(sl->raw);
            sl->raw = s->kept_cur;
            sl->raw_cap = len;
            s->kept_cur = NULL;
        } else if (rc == MS_SR_CHUNK) {
            memcpy(sl->raw, payload, len);
        }
        if (rc == MS_SR_CHUNK) {
            sl->len = len;
            sl->n = n;
            sl->crc = crc;
            sl->check_crc = s->good_chunks >= s->trusted_chunks;
            sl->fpos = file_pos(s);
            sl->consumed = s->consumed;
            chunk_done(s, len);
        }
        sl->rc = rc;
        pthread_mutex_lock(&a->mu);
        sl->state = rc == MS_SR_CHUNK ? SLOT_RAW : SLOT_DONE;
        a->count++;
        a->nraw += rc == MS_SR_CHUNK;
        wake_parser = a->parsers_wait && (a->nraw >= 2 || a->consumer_waits);
        if (rc != MS_SR_CHUNK) {
            wake_consumer = a->consumer_waits && sl == &a->slot[a->head];
            break;
        }
    }
    wake_parser = a->nraw && a->parsers_wait; /* the end: what is left */
    pthread_mutex_unlock(&a->mu);
    if (wake_parser) pthread_cond_broadcast(&a->raw_cv);
    if (wake_consumer) pthread_cond_signal(&a->done_cv);
    return NULL;
}

/* Check and decode a slot's chunk (a parser thread, the slot its own meanwhile; ctxs its
 * table for version 6 deltas). */
static void parse_slot(const ms_stream_reader *s, ahead_slot *sl, ms_stream_ctx_table *ctxs)
{
    const char *what = "chunk checksum mismatch";
    if (!sl->check_crc || (uint32_t)crc32(0, sl->raw, sl->len) == sl->crc) {
        if (reserve_events(&sl->ev, &sl->cap, sl->n) < 0) {
            sl->rc = ms_errorf(sl->err, sizeof sl->err, "out of memory");
            return;
        }
        uint64_t rel = 0;
        int64_t stored = decode_chunk(s, sl->raw, sl->raw + sl->len, sl->n, &rel, sl->ev, ctxs);
        if (stored >= 0) {
            sl->nstored = (size_t)stored;
            sl->rel_last = rel;
            return;
        }
        what = "undecodable events in chunk";
    }
    problem_text(s, what, sl->fpos, sl->consumed, sl->err, sizeof sl->err);
    sl->rc = MS_SR_BAD;
}

/* A parser thread: any slot whose bytes are in, until stop. */
static void *ahead_parser(void *arg)
{
    ms_stream_reader *s = arg;
    struct ahead *a = s->ahead;
    int wake_consumer = 0;                   /* the slot just parsed is the one the consumer waits for */
    ms_stream_ctx_table ctxs = { .gen = 0 }; /* 16 KiB of this thread's stack */
    pthread_mutex_lock(&a->mu);
    while (!a->stop) {
        ahead_slot *sl = NULL;
        for (unsigned i = 0; i < a->count && !sl; i++)
            if (a->slot[(a->head + i) % AHEAD_SLOTS].state == SLOT_RAW) sl = &a->slot[(a->head + i) % AHEAD_SLOTS];
        if (!sl) {
            if (wake_consumer) pthread_cond_signal(&a->done_cv);
            wake_consumer = 0;
            a->parsers_wait++;
            pthread_cond_wait(&a->raw_cv, &a->mu);
            a->parsers_wait--;
            continue;
        }
        sl->state = SLOT_PARSING;
        a->nraw--;
        pthread_mutex_unlock(&a->mu);
        if (wake_consumer) pthread_cond_signal(&a->done_cv);
        parse_slot(s, sl, &ctxs);
        pthread_mutex_lock(&a->mu);
        sl->state = SLOT_DONE;
        wake_consumer = a->consumer_waits && sl == &a->slot[a->head];
    }
    pthread_mutex_unlock(&a->mu);
    return NULL;
}

/* Free the ring's synchronisation and the ring. */
static void ahead_free(struct ahead *a)
{
    pthread_cond_destroy(&a->free_cv);
    pthread_cond_destroy(&a->raw_cv);
    pthread_cond_destroy(&a->done_cv);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* Stop and join the threads, free the ring. */
static void ahead_end(ms_stream_reader *s)
{
    struct ahead *a = s->ahead;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->free_cv);
    pthread_cond_broadcast(&a->raw_cv);
    pthread_mutex_unlock(&a->mu);
    pthread_join(a->reader, NULL);
    for (unsigned i = 0; i < a->nparsers; i++) pthread_join(a->parser[i], NULL);
    for (unsigned i = 0; i < AHEAD_SLOTS; i++) {
        free(a->slot[i].raw);
        free(a->slot[i].ev);
    }
    ahead_free(a);
    s->ahead = NULL;
}

int ms_stream_reader_ahead(ms_stream_reader *s, unsigned nparsers)
{
    if (s->ahead || s->state != MS_SR_CHUNK || s->syncs_only) return -1;
    struct ahead *a = calloc(1, sizeof *a);
    if (!a) return -1;
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->free_cv, NULL);
    pthread_cond_init(&a->raw_cv, NULL);
    pthread_cond_init(&a->done_cv, NULL);
    a->base = s->prev_addr;
    a->depth = depth_for(1);
    s->ahead = a;
    if (pthread_create(&a->parser[0], NULL, ahead_parser, s) != 0) {
        ahead_free(a);
        s->ahead = NULL;
        return -1;
    }
    a->nparsers = 1;
    if (pthread_create(&a->reader, NULL, ahead_reader, s) != 0) {
        pthread_mutex_lock(&a->mu); /* stop the parser; the reader goes on in the caller's thread */
        a->stop = 1;
        pthread_cond_broadcast(&a->raw_cv);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->parser[0], NULL);
        ahead_free(a);
        s->ahead = NULL;
        return -1;
    }
    if (nparsers > AHEAD_MAX_PARSERS) nparsers = AHEAD_MAX_PARSERS;
    pthread_mutex_lock(&a->mu);
    while (a->nparsers < nparsers && pthread_create(&a->parser[a->nparsers], NULL, ahead_parser, s) == 0) a->nparsers++;
    a->depth = depth_for(a->nparsers);
    pthread_cond_broadcast(&a->free_cv);
    pthread_mutex_unlock(&a->mu);
    return 0;
}

/* ms_stream_reader_next from the ring, in stream order. */
static int next_ahead(struct ahead *a, const ms_replay_event **events, size_t *nevents, char *err, size_t errlen)
{
    int wake_reader = 0;
    pthread_mutex_lock(&a->mu);
    if (a->held) { /* the chunk handed out last time is done with */
        a->held = 0;
        a->slot[a->head].state = SLOT_FREE;
        a->head = (a->head + 1) % AHEAD_SLOTS;
        a->count--;
        wake_reader = a->reader_waits && a->count <= a->depth / 2;
    }
    while (!a->count || a->slot[a->head].state != SLOT_DONE) {
        if (wake_reader) pthread_cond_signal(&a->free_cv);
        wake_reader = 0;
        if (a->nraw && a->parsers_wait) pthread_cond_signal(&a->raw_cv); /* chunks not yet handed over */
        a->consumer_waits = 1;
        pthread_cond_wait(&a->done_cv, &a->mu);
        a->consumer_waits = 0;
    }
    ahead_slot *sl = &a->slot[a->head];
    pthread_mutex_unlock(&a->mu);
    if (wake_reader) pthread_cond_signal(&a->free_cv);
    *events = NULL;
    *nevents = 0;
    if (sl->rc != MS_SR_CHUNK) {
        if (sl->rc != MS_SR_END) snprintf(err, errlen, "%s", sl->err);
        return sl->rc;
    }
    uint64_t base = a->base;
    if (base)
        for (size_t i = 0; i < sl->nstored; i++)
            if (sl->ev[i].kind == 0) sl->ev[i].addr += base;
    a->base = base + sl->rel_last;
    a->held = 1;
    a->handed++;
    *events = sl->ev;
    *nevents = sl->nstored;
    return MS_SR_CHUNK;
}

int ms_stream_reader_next(ms_stream_reader *s, const ms_replay_event **events, size_t *nevents, char *err,
                          size_t errlen)
{
    if (s->ahead) return next_ahead(s->ahead, events, nevents, err, errlen);
    return next_chunk(s, events, nevents, err, errlen);
}

/* Check the header (the first 16 decompressed bytes). */
static int read_header(ms_stream_reader *s, char *err, size_t errlen)
{
    int rc = fill(s, MS_STREAM_HEADER_SIZE, err, errlen);
    if (rc != 1) return rc == 0 ? bad(s, "stream truncated", err, errlen) : rc;
    const unsigned char *h = s->pend + s->start;
    if (memcmp(h, MS_STREAM_MAGIC, 8) != 0)
        return ms_errorf(err, errlen, "%s: not a memspy stream (bad magic)", s->path);
    s->version = ms_stream_get_u32(h + 8);
    if (s->version > MS_STREAM_VERSION)
        return ms_errorf(err, errlen, "%s: stream version %u is newer than this memspy reads (%u); use a newer memspy",
                         s->path, s->version, MS_STREAM_VERSION);
    if (s->version == 0) return ms_errorf(err, errlen, "%s: unknown stream version 0", s->path);
    if (ms_stream_get_u32(h + 12) != s->index)
        return ms_errorf(err, errlen, "%s: holds the stream of thread %u, not %u", s->path, ms_stream_get_u32(h + 12),
                         s->index);
    s->start += MS_STREAM_HEADER_SIZE;
    s->consumed = MS_STREAM_HEADER_SIZE;
    return MS_SR_CHUNK;
}

int ms_stream_reader_open(ms_stream_reader **out, const char *path, uint32_t index, uint32_t max_ctx, char *err,
                          size_t errlen)
{
    *out = NULL;
    ms_stream_reader *s = calloc(1, sizeof *s);
    if (!s) return ms_errorf(err, errlen, "out of memory");
    s->index = index;
    s->max_ctx = max_ctx;
    s->state = MS_SR_CHUNK;
    s->path = strdup(path);
    s->in = malloc(ZSTD_DStreamInSize());
    s->ds = ZSTD_createDStream();
    s->ctxs = calloc(1, sizeof *s->ctxs);
    if (!s->path || !s->in || !s->ds || !s->ctxs) {
        ms_stream_reader_close(s);
        return ms_errorf(err, errlen, "out of memory");
    }
    s->inb = (ZSTD_inBuffer){ s->in, 0, 0 };
    if (!(s->f = fopen(path, "rb"))) {
        ms_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        ms_stream_reader_close(s);
        return MS_SR_FAIL;
    }
    int rc = read_header(s, err, errlen);
    if (rc == MS_SR_FAIL) {
        ms_stream_reader_close(s);
        return MS_SR_FAIL;
    }
    *out = s;
    return rc;
}

uint32_t ms_stream_reader_version(const ms_stream_reader *s) { return s->version; }

void ms_stream_reader_syncs_only(ms_stream_reader *s) { s->syncs_only = 1; }

uint64_t ms_stream_reader_good_chunks(const ms_stream_reader *s)
{
    return s->ahead ? s->ahead->handed : s->good_chunks;
}

void ms_stream_reader_trust(ms_stream_reader *s, uint64_t nchunks) { s->trusted_chunks = nchunks; }

void ms_stream_reader_keep(ms_stream_reader *s, size_t budget)
{
    ms_stream_kept_free(s->keep);
    if ((s->keep = calloc(1, sizeof *s->keep))) s->keep->budget = budget;
}

ms_stream_kept *ms_stream_reader_take_kept(ms_stream_reader *s, size_t *bytes)
{
    ms_stream_kept *k = s->keep;
    s->keep = NULL;
    *bytes = 0;
    if (k && (s->state != MS_SR_END || k->head == k->count)) { /* only a clean end is known to come after */
        ms_stream_kept_free(k);
        k = NULL;
    }
    if (k) *bytes = k->bytes;
    return k;
}

void ms_stream_reader_use_kept(ms_stream_reader *s, ms_stream_kept *k)
{
    ms_stream_kept_free(s->kept);
    s->kept = k;
}

void ms_stream_reader_close(ms_stream_reader *s)
{
    if (!s) return;
    if (s->ahead) ahead_end(s);
    ms_stream_kept_free(s->keep);
    ms_stream_kept_free(s->kept);
    free(s->kept_cur);
    if (s->f) fclose(s->f);
    ZSTD_freeDStream(s->ds);
    free(s->in);
    free(s->pend);
    free(s->ev);
    free(s->ctxs);
    free(s->path);
    free(s);
}
