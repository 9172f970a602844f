/* The stream reader's decoding against a plain reference decoder written from the format's
 * definition (src/format/stream.h: LEB128 varints read byte by byte with a bounds test each):
 * random version 6 streams (and version 5 ones, whose address deltas are all from the
 * thread's previous access) whose varints take every length from 1 to 10 bytes (address
 * deltas of every magnitude, both signs, from a context's last access in the chunk or from the
 * thread's, contexts sharing a slot of the delta table, contexts and sizes up to their limits,
 * sync events with 64-bit operands and their sites), then the same streams with one byte of a chunk changed or an
 * 11-byte varint, a context above the limit or a size of 0 or above UINT32_MAX planted (the
 * chunk's CRC recomputed, so only the decoder can reject it), anywhere in the chunk: near its
 * end (the checked loop) or far from it (the loop without bounds tests). The reader must hand
 * out exactly the reference's events and stop at the same chunk, read on the caller's thread,
 * ahead with one parser and with three, and as the pre-scan reads (sync events only); and
 * read again after a pre-scan that kept the last chunks' bytes within a random budget (the
 * replay's read of a stream: the chunks before the kept ones decompressed, the kept ones taken
 * from memory), on the caller's thread and ahead. */
#include "check.h"
#include "replay/stream_reader.h"
#include "replay_testutil.h"

#define MAX_CTX 5000u
#define CHUNKS 12

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value whose varint takes 1..10 bytes, evenly. */
static uint64_t any_len_value(void)
{
    unsigned bits = 1 + (unsigned)(next_rand() % 64);
    uint64_t v = next_rand();
    return bits == 64 ? v : v & ((1ull << bits) - 1);
}

static int ref_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return -1;
        unsigned char b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* The reference decoding of one chunk's payload (version 2 and later): its events appended to
 * out, or -1 when one does not decode (out then unchanged in length). Version 6: a context's
 * access is a delta from the context's last access in the chunk if no other context took its
 * slot (ctx % MS_STREAM_CTX_SLOTS) since, else from the thread's previous access in the chunk
 * (0 for the chunk's first). */
static int ref_chunk(const unsigned char *p, const unsigned char *end, uint32_t n, uint64_t *prev, ms_replay_event *out,
                     size_t *nout, int syncs_only, uint32_t version)
{
    static uint64_t slot_addr[MS_STREAM_CTX_SLOTS];
    static int64_t slot_ctx[MS_STREAM_CTX_SLOTS];
    for (unsigned i = 0; i < MS_STREAM_CTX_SLOTS; i++) slot_ctx[i] = -1; /* a new chunk: none */
    uint64_t addr = version >= 6 ? 0 : *prev;                            /* version 6: from 0 at each chunk's start */
    size_t k = *nout;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t head, a, b, seq, site = 0;
        if (ref_varint(&p, end, &head) < 0 || ref_varint(&p, end, &a) < 0 || ref_varint(&p, end, &b) < 0) return -1;
        if (head & 1) {
            if ((head >> 1) == 0 || (head >> 1) > MS_SYNC_KIND_MAX || ref_varint(&p, end, &seq) < 0) return -1;
            if (ms_stream_has_site(version, head >> 1) && (ref_varint(&p, end, &site) < 0 || site > MAX_CTX)) return -1;
            out[k++] = (ms_replay_event){
                .addr = a, .size = b, .seq = seq, .ctx = (uint32_t)site, .kind = (uint16_t)(head >> 1)
            };
            continue;
        }
        if ((head >> 1) > MAX_CTX || (b >> 1) == 0 || (b >> 1) > UINT32_MAX) return -1;
        unsigned slot = (unsigned)((head >> 1) % MS_STREAM_CTX_SLOTS);
        if (version >= 6 && slot_ctx[slot] == (int64_t)(head >> 1)) addr = slot_addr[slot];
        addr += (uint64_t)ms_stream_unzigzag(a);
        slot_ctx[slot] = (int64_t)(head >> 1);
        slot_addr[slot] = addr;
        if (!syncs_only)
            out[k++] = (ms_replay_event){
                .addr = addr, .size = b >> 1, .ctx = (uint32_t)(head >> 1), .write = (uint16_t)(b & 1)
            };
    }
    if (p != end) return -1;
    *prev = addr;
    *nout = k;
    return 0;
}

/* A bad varint group planted at p (room for 11 bytes): 0 an 11-byte varint, 1 a context above
 * MAX_CTX, 2 a size of 0, 3 a size above UINT32_MAX (the last two after a 1-byte head and a
 * 1-byte delta). Returns the bytes written. */
static size_t plant(unsigned char *p, unsigned what)
{
    switch (what) {
    case 0:
        memset(p, 0x80, 10);
        p[10] = 1;
        return 11;
    case 1: return (size_t)(ms_stream_put_varint(p, (uint64_t)(MAX_CTX + 1) << 1) - p);
    case 2: p[0] = 2, p[1] = 0, p[2] = 0; return 3;
    default: p[0] = 2, p[1] = 0; return 2 + (size_t)(ms_stream_put_varint(p + 2, (1ull << 32) << 1) - (p + 2));
    }
}

/* One random stream into path; its decompressed bytes are kept in *s for the reference
 * (s->data, not freed). damage: 0 none, 1 a random byte changed, 2 a bad varint planted. */
static void build(test_stream *s, const char *path, int damage, uint32_t version)
{
    ts_init(s, 0, version);
    unsigned bad_chunk = damage ? (unsigned)(next_rand() % CHUNKS) : CHUNKS;
    for (unsigned c = 0; c < CHUNKS; c++) {
        unsigned n = 1 + (unsigned)(next_rand() % 300);
        for (unsigned i = 0; i < n; i++) {
            if (next_rand() % 8 == 0) {
                uint64_t site = next_rand() % (MAX_CTX + 1);
                ts_sync_at(s, 1 + (unsigned)(next_rand() % MS_SYNC_KIND_MAX), any_len_value(), any_len_value(),
                           any_len_value(), site);
                continue;
            }
            uint64_t r = next_rand();
            uint64_t addr = r % 4 ? s->prev_addr + (uint64_t)(int64_t)(int32_t)(next_rand() >> 40) : any_len_value();
            uint32_t size = r % 16 == 0 ? (uint32_t)next_rand() | 1u : 1u + (uint32_t)(r >> 59);
            uint32_t ctx = (uint32_t)(next_rand() % (r % 3 ? 100 : MAX_CTX + 1));
            if (r % 5 < 2) /* a delta of one byte from the delta's base (the reader's one-load cases) */
                addr = (s->version >= 6 ? ms_stream_ctx_base(&s->ctxs, ctx, s->prev_addr) : s->prev_addr) +
                       (uint64_t)(int64_t)((int)(next_rand() % 128) - 64);
            ts_access(s, ctx, addr, size, (int)(r >> 63));
        }
        if (c == bad_chunk) {
            size_t at = s->chunk_start + MS_STREAM_CHUNK_HEADER_SIZE, len = s->len - at;
            size_t off = next_rand() % len;
            if (damage == 1) {
                s->data[at + off] ^= (unsigned char)(1 + next_rand() % 255);
            } else { /* overwrite from off on, at most to the end, as the chunk's last bytes */
                unsigned char bad[16];
                size_t k = plant(bad, (unsigned)(next_rand() % 4));
                if (off + k > len) off = len >= k ? len - k : 0;
                size_t room = len - off < k ? len - off : k;
                memcpy(s->data + at + off, bad, room);
            }
        }
        ts_chunk(s);
    }
    unsigned char *keep = malloc(s->len);
    if (!keep) abort();
    memcpy(keep, s->data, s->len);
    size_t len = s->len;
    ts_write(s, path, 0);
    s->data = keep;
    s->len = len;
}

/* The reference's events of the whole stream in *s: returns the count, *good_chunks before
 * the first bad one. */
static size_t ref_stream(const test_stream *s, ms_replay_event *out, unsigned *good_chunks, int syncs_only)
{
    const unsigned char *p = s->data + MS_STREAM_HEADER_SIZE, *end = s->data + s->len;
    uint64_t prev = 0;
    size_t n = 0;
    *good_chunks = 0;
    while (p < end) {
        uint32_t nev = ms_stream_get_u32(p), len = ms_stream_get_u32(p + 4);
        if (nev == 0 || len < 3ull * nev || len > (uint64_t)MS_STREAM_EVENT_MAX * nev) break;
        const unsigned char *pay = p + MS_STREAM_CHUNK_HEADER_SIZE;
        if (ref_chunk(pay, pay + len, nev, &prev, out, &n, syncs_only, s->version) < 0) break;
        ++*good_chunks;
        p = pay + len;
    }
    return n;
}

static int same_event(const ms_replay_event *a, const ms_replay_event *b)
{
    return a->addr == b->addr && a->size == b->size && a->seq == b->seq && a->ctx == b->ctx && a->kind == b->kind &&
           a->write == b->write;
}

static unsigned kept_some, kept_all; /* rounds whose pre-scan kept part, all of the chunks */

/* The reader that read path to its end, sync events only, keeping at most `keep` bytes of its
 * last chunks: what it kept (NULL after damage). */
static ms_stream_kept *prescan(const char *path, size_t keep, unsigned good)
{
    ms_stream_reader *rd;
    char err[512];
    const ms_replay_event *ev;
    size_t n, bytes;
    CHECK_EQ_INT(ms_stream_reader_open(&rd, path, 0, MAX_CTX, err, sizeof err), MS_SR_CHUNK);
    ms_stream_reader_syncs_only(rd);
    ms_stream_reader_keep(rd, keep);
    while (ms_stream_reader_next(rd, &ev, &n, err, sizeof err) == MS_SR_CHUNK) continue;
    ms_stream_kept *k = ms_stream_reader_take_kept(rd, &bytes);
    ms_stream_reader_close(rd);
    CHECK_EQ_INT(bytes <= keep, 1);
    if (good < CHUNKS) CHECK_EQ_INT(k == NULL, 1);
    return k;
}

/* Read path with the reader (mode 0: on this thread, 1 and 3: ahead with that many parsers,
 * 4: sync events only, 5 and 6: after a pre-scan that kept at most `keep` bytes, on this
 * thread and ahead with one parser) and compare with the reference. */
static void check_read(const char *path, const test_stream *s, int mode, size_t keep, ms_replay_event *want)
{
    unsigned good;
    size_t nwant = ref_stream(s, want, &good, mode == 4), got = 0;
    ms_stream_kept *k = mode >= 5 ? prescan(path, keep, good) : NULL;
    ms_stream_reader *rd;
    char err[512];
    CHECK_EQ_INT(ms_stream_reader_open(&rd, path, 0, MAX_CTX, err, sizeof err), MS_SR_CHUNK);
    if (mode == 4) ms_stream_reader_syncs_only(rd);
    if (k) {
        size_t payload = s->len - MS_STREAM_HEADER_SIZE - CHUNKS * MS_STREAM_CHUNK_HEADER_SIZE;
        kept_all += keep >= payload;
        kept_some += keep < payload;
        ms_stream_reader_trust(rd, good);
        ms_stream_reader_use_kept(rd, k);
    }
    if (mode == 1 || mode == 3 || mode == 6) CHECK_EQ_INT(ms_stream_reader_ahead(rd, mode == 3 ? 3 : 1), 0);
    const ms_replay_event *ev;
    size_t n;
    int rc;
    unsigned chunks = 0;
    int mismatch = 0;
    while ((rc = ms_stream_reader_next(rd, &ev, &n, err, sizeof err)) == MS_SR_CHUNK) {
        chunks++;
        for (size_t i = 0; i < n; i++, got++)
            if (got >= nwant || !same_event(&ev[i], &want[got])) mismatch = 1;
    }
    CHECK_EQ_INT(mismatch, 0);
    CHECK_EQ(got, nwant);
    CHECK_EQ(chunks, good);
    CHECK_EQ_INT(rc, good == CHUNKS ? MS_SR_END : MS_SR_BAD);
    ms_stream_reader_close(rd);
}

int main(void)
{
    char dir[256], path[512];
    ts_make_dir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/thread-0.zst", dir);
    ms_replay_event *want = malloc(CHUNKS * 300 * sizeof *want);
    if (!want) abort();
    unsigned bad = 0;
    for (int round = 0; round < 150; round++) {
        test_stream s;
        int damage = round % 3;
        build(&s, path, damage, round % 4 == 3 ? 5 : MS_STREAM_VERSION);
        size_t keep = round % 5 == 4 ? SIZE_MAX : (size_t)(next_rand() % s.len);
        for (int mode = 0; mode <= 6; mode++)
            if (mode != 2) check_read(path, &s, mode, keep, want);
        unsigned good;
        ref_stream(&s, want, &good, 0);
        bad += good < CHUNKS;
        free(s.data);
    }
    /* the damage was rejected often enough for the comparison to mean something */
    CHECK_EQ_INT(bad >= 60, 1);
    /* undamaged streams read after a pre-scan that kept part of their chunks, and all of them
     * (both modes count) */
    CHECK_EQ_INT(kept_some >= 20, 1);
    CHECK_EQ_INT(kept_all >= 10, 1);
    free(want);
    ts_remove_dir(dir);
    return check_result();
}
