/* Decoding a recorded stream: zstd streaming decompression into a buffer of pending bytes,
 * from which the header and complete chunks are taken as soon as they are there. A chunk is
 * checked (size bounds, CRC-32) before any of its events is simulated, so a corrupt stream is
 * replayed up to its last good chunk. */
#include "stream_replay.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "../format/stream.h"

#define MAX_CHUNK_EVENTS (1u << 20)

typedef struct {
    uint32_t thread_index, max_ctx;
    ms_sim *sim;
    uint32_t line;               /* L1 line size: larger accesses are ranges, as in the runtime */
    unsigned char *pend;         /* decompressed bytes not consumed yet */
    size_t npend, cap;
    uint64_t consumed;           /* decompressed bytes consumed before pend[0] */
    int header_seen;
    uint64_t prev_addr;          /* the thread's last address: events are deltas from it */
    ms_replay_stats *st;
    char *err;
    size_t errlen;
} replay;

static int read_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && *p < end; shift += 7) {
        unsigned char b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return 0;
    }
    return -1;
}

/* Decode the chunk's events; all are checked before the first is simulated. */
static int simulate_chunk(replay *r, const unsigned char *payload, uint32_t len, uint32_t nevents)
{
    const unsigned char *p = payload, *end = payload + len;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t addr = r->prev_addr;
        p = payload;
        for (uint32_t i = 0; i < nevents; i++) {
            uint64_t ctx, delta, size_w;
            if (read_varint(&p, end, &ctx) < 0 || read_varint(&p, end, &delta) < 0 ||
                read_varint(&p, end, &size_w) < 0 || ctx > r->max_ctx || (size_w >> 1) == 0 ||
                (size_w >> 1) > UINT32_MAX)
                return -1;
            addr += (uint64_t)ms_stream_unzigzag(delta);
            if (pass == 0) continue;
            uint32_t size = (uint32_t)(size_w >> 1);
            unsigned flags = (size_w & 1) ? MS_ACC_WRITE : 0;
            if (!ctx)
                r->st->dropped++;
            else if (size <= r->line)
                r->st->dropped += ms_sim_access(r->sim, 0, addr, size, flags, (uint32_t)ctx) < 0;
            else
                ms_sim_access_range(r->sim, 0, addr, size, flags, (uint32_t)ctx);
        }
        if (p != end) return -1;
        if (pass == 1) r->prev_addr = addr;
    }
    r->st->events += nevents;
    r->st->chunks++;
    return 0;
}

static int bad(replay *r, const char *what)
{
    snprintf(r->err, r->errlen, "thread %u: %s at byte %llu of the decompressed stream", r->thread_index, what,
             (unsigned long long)r->consumed);
    return -1;
}

/* Take the header and every complete chunk from the pending bytes. */
static int consume(replay *r)
{
    size_t off = 0;
    int rc = 0;
    if (!r->header_seen && r->npend >= MS_STREAM_HEADER_SIZE) {
        if (memcmp(r->pend, MS_STREAM_MAGIC, 8) != 0) return bad(r, "not a memspy stream (bad magic)");
        if (ms_stream_get_u32(r->pend + 8) != MS_STREAM_VERSION) return bad(r, "unsupported stream version");
        if (ms_stream_get_u32(r->pend + 12) != r->thread_index) return bad(r, "stream of another thread");
        r->header_seen = 1;
        off = MS_STREAM_HEADER_SIZE;
        r->consumed += off;
    }
    while (r->header_seen && r->npend - off >= MS_STREAM_CHUNK_HEADER_SIZE) {
        const unsigned char *h = r->pend + off;
        uint32_t nevents = ms_stream_get_u32(h), len = ms_stream_get_u32(h + 4);
        if (nevents == 0 || nevents > MAX_CHUNK_EVENTS || len < 3ull * nevents ||
            len > (uint64_t)MS_STREAM_EVENT_MAX * nevents) {
            rc = bad(r, "corrupt chunk header");
            break;
        }
        if (r->npend - off - MS_STREAM_CHUNK_HEADER_SIZE < len) break;
        const unsigned char *payload = h + MS_STREAM_CHUNK_HEADER_SIZE;
        if ((uint32_t)crc32(0, payload, len) != ms_stream_get_u32(h + 16)) {
            rc = bad(r, "chunk checksum mismatch");
            break;
        }
        if (simulate_chunk(r, payload, len, nevents) < 0) {
            rc = bad(r, "undecodable events in chunk");
            break;
        }
        off += MS_STREAM_CHUNK_HEADER_SIZE + len;
        r->consumed += MS_STREAM_CHUNK_HEADER_SIZE + len;
    }
    memmove(r->pend, r->pend + off, r->npend - off);
    r->npend -= off;
    return rc;
}

/* Make room for at least `more` pending bytes. */
static int reserve(replay *r, size_t more)
{
    if (r->cap - r->npend >= more) return 0;
    size_t cap = r->cap ? r->cap : 1 << 18;
    while (cap - r->npend < more) cap *= 2;
    unsigned char *p = realloc(r->pend, cap);
    if (!p) return -1;
    r->pend = p;
    r->cap = cap;
    return 0;
}

/* Decompress the file, consuming as it goes. Returns 0, 1 (bad stream), -1 (I/O). */
static int decode_file(replay *r, FILE *f, ZSTD_DStream *ds, const char *path)
{
    unsigned char in_buf[1 << 16];
    size_t out_size = ZSTD_DStreamOutSize(), last = 0;
    uint64_t file_off = 0;
    for (size_t n; (n = fread(in_buf, 1, sizeof in_buf, f)) > 0; file_off += n) {
        ZSTD_inBuffer in = {in_buf, n, 0};
        while (in.pos < in.size) {
            if (reserve(r, out_size) < 0) {
                snprintf(r->err, r->errlen, "out of memory");
                return -1;
            }
            ZSTD_outBuffer out = {r->pend + r->npend, out_size, 0};
            last = ZSTD_decompressStream(ds, &out, &in);
            if (ZSTD_isError(last)) {
                snprintf(r->err, r->errlen, "thread %u: corrupt stream (%s) at byte %llu of %s", r->thread_index,
                         ZSTD_getErrorName(last), (unsigned long long)(file_off + in.pos), path);
                return 1;
            }
            r->npend += out.pos;
            if (consume(r) < 0) return 1;
        }
    }
    if (ferror(f)) {
        snprintf(r->err, r->errlen, "cannot read %s: %s", path, strerror(errno));
        return -1;
    }
    if (last != 0 || r->npend || !r->header_seen) {
        snprintf(r->err, r->errlen,
                 "thread %u: stream truncated at byte %llu of %s (replayed up to byte %llu of the "
                 "decompressed stream)", r->thread_index, (unsigned long long)file_off, path,
                 (unsigned long long)r->consumed);
        return 1;
    }
    return 0;
}

int ms_stream_replay(const char *path, uint32_t thread_index, uint32_t max_ctx, ms_sim *sim,
                     ms_replay_stats *st, char *err, size_t errlen)
{
    replay r = {.thread_index = thread_index, .max_ctx = max_ctx, .sim = sim,
                .line = ms_sim_config(sim)->level[0].line, .st = st, .err = err, .errlen = errlen};
    memset(st, 0, sizeof *st);
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    ZSTD_DStream *ds = ZSTD_createDStream();
    int rc = ds ? decode_file(&r, f, ds, path) : -1;
    if (!ds) snprintf(err, errlen, "out of memory");
    ZSTD_freeDStream(ds);
    free(r.pend);
    fclose(f);
    return rc;
}
