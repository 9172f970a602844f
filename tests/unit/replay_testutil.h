/* Test helpers for the replay library: write synthetic recorded streams (src/format/stream.h,
 * version 1 to 6, zstd-compressed) from a short script, and a sink that records what the
 * replay delivers as text. Header-only, test code only.
 *
 * Script tokens (space separated), one thread's events in order:
 *   rA / wA        read / write of 4 bytes at address A (decimal), context 1
 *   cC:rA          the same with context C (0 = unattributed)
 *   acqL acqsL relL          acquire (exclusive / shared) and release lock L
 *   barI/N         barrier I with N participants
 *   createT joinT exit
 *   cwaitC/M csigC cbcC      cond wait (cond C, mutex M), signal, broadcast
 *   postS waitS              semaphore post / wait
 *   forkI/N beginI/N         OpenMP fork / begin of region instance I, team N
 *   workB/N        WORK: block B executed N times (seq 0)
 *   aldA astA armwA          ATOMIC on address A: load-acquire, store-release, acq_rel
 *                            read-modify-write; arldA a relaxed load (MS_ATOMIC_* arg)
 *   |              end the current chunk here
 * A sync token may end in @SEQ (its recorded seq); otherwise seq is taken from a counter
 * shared by all streams of the test, in the order the tokens are written. It may then end in
 * ^S: its site (the context of the synchronising call; 0 otherwise). */
#ifndef MEMSPY_TEST_REPLAY_TESTUTIL_H
#define MEMSPY_TEST_REPLAY_TESTUTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "format/stream.h"
#include "replay/replay.h"

/* A stream being built: the decompressed bytes, then compressed and written by ts_write. */
typedef struct {
    unsigned char *data;
    size_t len, cap;
    size_t chunk_start; /* offset of the open chunk's header, or SIZE_MAX */
    size_t last_chunk;  /* offset of the last ended chunk's header */
    size_t frame_split; /* > 0: a second zstd frame starts at this offset */
    uint32_t nevents, version;
    uint64_t prev_addr;
    ms_stream_ctx_table ctxs; /* version 6: each context's last access in the chunk */
} test_stream;

static uint64_t ts_next_seq = 1;
static uint64_t ts_chunk_seq = 1;

static inline void ts_reserve(test_stream *s, size_t more)
{
    if (s->len + more <= s->cap) return;
    while (s->len + more > s->cap) s->cap = s->cap ? 2 * s->cap : 4096;
    s->data = realloc(s->data, s->cap);
    if (!s->data) abort();
}

/* Start the stream of thread `index` with the given format version (writes the header). */
static inline void ts_init(test_stream *s, uint32_t index, uint32_t version)
{
    memset(s, 0, sizeof *s);
    s->version = version;
    s->chunk_start = SIZE_MAX;
    ts_reserve(s, MS_STREAM_HEADER_SIZE);
    memcpy(s->data, MS_STREAM_MAGIC, 8);
    ms_stream_put_u32(s->data + 8, version);
    ms_stream_put_u32(s->data + 12, index);
    s->len = MS_STREAM_HEADER_SIZE;
}

/* End the open chunk (if any): fill in its header and CRC. */
static inline void ts_chunk(test_stream *s)
{
    if (s->chunk_start == SIZE_MAX) return;
    unsigned char *h = s->data + s->chunk_start;
    uint32_t len = (uint32_t)(s->len - s->chunk_start - MS_STREAM_CHUNK_HEADER_SIZE);
    ms_stream_put_u32(h, s->nevents);
    ms_stream_put_u32(h + 4, len);
    ms_stream_put_u64(h + 8, ts_chunk_seq++);
    ms_stream_put_u32(h + 16, (uint32_t)crc32(0, h + MS_STREAM_CHUNK_HEADER_SIZE, len));
    s->last_chunk = s->chunk_start;
    s->chunk_start = SIZE_MAX;
    s->nevents = 0;
}

/* Room for one more event in the open chunk (opening one if needed). */
static unsigned char *ts_event_start(test_stream *s)
{
    if (s->chunk_start == SIZE_MAX) {
        ts_reserve(s, MS_STREAM_CHUNK_HEADER_SIZE);
        s->chunk_start = s->len;
        s->len += MS_STREAM_CHUNK_HEADER_SIZE;
        ms_stream_ctx_reset(&s->ctxs);
        if (s->version >= 6) s->prev_addr = 0; /* each chunk starts from 0 */
    }
    ts_reserve(s, MS_STREAM_EVENT_MAX);
    s->nevents++;
    return s->data + s->len;
}

static inline void ts_access(test_stream *s, uint32_t ctx, uint64_t addr, uint32_t size, int write)
{
    unsigned char *p = ts_event_start(s), *p0 = p;
    p = ms_stream_put_varint(p, s->version == 1 ? ctx : (uint64_t)ctx << 1);
    uint64_t from = s->version >= 6 ? ms_stream_ctx_base(&s->ctxs, ctx, s->prev_addr) : s->prev_addr;
    p = ms_stream_put_varint(p, ms_stream_zigzag((int64_t)(addr - from)));
    p = ms_stream_put_varint(p, (uint64_t)size << 1 | (write ? 1u : 0u));
    ms_stream_ctx_set(&s->ctxs, ctx, addr);
    s->prev_addr = addr;
    s->len += (size_t)(p - p0);
}

/* A sync event; site: written where the version and kind carry one (ms_stream_has_site). */
static inline void ts_sync_at(test_stream *s, unsigned kind, uint64_t obj, uint64_t arg, uint64_t seq, uint64_t site)
{
    unsigned char *p = ts_event_start(s), *p0 = p;
    p = ms_stream_put_varint(p, (uint64_t)kind << 1 | 1);
    p = ms_stream_put_varint(p, obj);
    p = ms_stream_put_varint(p, arg);
    p = ms_stream_put_varint(p, seq);
    if (ms_stream_has_site(s->version, kind)) p = ms_stream_put_varint(p, site);
    s->len += (size_t)(p - p0);
}

static inline void ts_sync(test_stream *s, unsigned kind, uint64_t obj, uint64_t arg, uint64_t seq)
{
    ts_sync_at(s, kind, obj, arg, seq, 0);
}

/* Append the script's events (see the top of this file). */
static inline void ts_script(test_stream *s, const char *script)
{
    static const struct {
        const char *name;
        unsigned kind;
        uint64_t fixed_arg;
    } syncs[] = {
        { "acqs", MS_SYNC_ACQUIRE, 1 },
        { "acq", MS_SYNC_ACQUIRE, 0 },
        { "rel", MS_SYNC_RELEASE, 0 },
        { "bar", MS_SYNC_BARRIER, 0 },
        { "create", MS_SYNC_CREATE, 0 },
        { "join", MS_SYNC_JOIN, 0 },
        { "exit", MS_SYNC_EXIT, 0 },
        { "cwait", MS_SYNC_COND_WAIT, 0 },
        { "csig", MS_SYNC_COND_SIGNAL, 0 },
        { "cbc", MS_SYNC_COND_SIGNAL, 1 },
        { "post", MS_SYNC_SEM_POST, 0 },
        { "wait", MS_SYNC_SEM_WAIT, 0 },
        { "fork", MS_SYNC_FORK, 0 },
        { "begin", MS_SYNC_BEGIN, 0 },
        { "work", MS_SYNC_WORK, 0 },
        { "ald", MS_SYNC_ATOMIC, __ATOMIC_ACQUIRE | MS_ATOMIC_READ },
        { "ast", MS_SYNC_ATOMIC, __ATOMIC_RELEASE | MS_ATOMIC_WRITE },
        { "armw", MS_SYNC_ATOMIC, __ATOMIC_ACQ_REL | MS_ATOMIC_READ | MS_ATOMIC_WRITE },
        { "arld", MS_SYNC_ATOMIC, __ATOMIC_RELAXED | MS_ATOMIC_READ },
    };
    char tok[64];
    for (const char *p = script; *p;) {
        while (*p == ' ') p++;
        size_t n = strcspn(p, " ");
        if (!n) break;
        if (n >= sizeof tok) abort();
        memcpy(tok, p, n);
        tok[n] = 0;
        p += n;
        if (strcmp(tok, "|") == 0) {
            ts_chunk(s);
            continue;
        }
        char *t = tok;
        uint32_t ctx = 1;
        if (t[0] == 'c' && t[1] >= '0' && t[1] <= '9') {
            ctx = (uint32_t)strtoul(t + 1, &t, 10);
            t++; /* ':' */
        }
        if ((t[0] == 'r' || t[0] == 'w') && t[1] >= '0' && t[1] <= '9') {
            ts_access(s, ctx, strtoull(t + 1, NULL, 10), 4, t[0] == 'w');
            continue;
        }
        size_t k = 0;
        while (k < sizeof syncs / sizeof *syncs && strncmp(t, syncs[k].name, strlen(syncs[k].name)) != 0) k++;
        if (k == sizeof syncs / sizeof *syncs) {
            fprintf(stderr, "bad script token %s\n", tok);
            abort();
        }
        char *q = t + strlen(syncs[k].name);
        uint64_t obj = strtoull(q, &q, 10), arg = syncs[k].fixed_arg, seq;
        if (*q == '/') arg = strtoull(q + 1, &q, 10);
        seq = *q == '@' ? strtoull(q + 1, &q, 10) : syncs[k].kind == MS_SYNC_WORK ? 0 : ts_next_seq++;
        ts_sync_at(s, syncs[k].kind, obj, arg, seq, *q == '^' ? strtoull(q + 1, NULL, 10) : 0);
    }
}

/* Damage the CRC of the last ended chunk. */
static inline void ts_corrupt_last_crc(test_stream *s) { s->data[s->last_chunk + 16] ^= 0x5a; }

/* Compress the stream and write it to path (two frames if frame_split is set); keep only the
 * first `keep` compressed bytes if keep > 0 (a truncated file). Frees the stream. Returns the
 * compressed size. */
static inline size_t ts_write(test_stream *s, const char *path, size_t keep)
{
    ts_chunk(s);
    size_t split = s->frame_split ? s->frame_split : s->len;
    size_t bound = ZSTD_compressBound(split) + ZSTD_compressBound(s->len - split);
    unsigned char *z = malloc(bound);
    if (!z) abort();
    size_t zlen = ZSTD_compress(z, bound, s->data, split, 1);
    if (ZSTD_isError(zlen)) abort();
    if (split < s->len) {
        size_t z2 = ZSTD_compress(z + zlen, bound - zlen, s->data + split, s->len - split, 1);
        if (ZSTD_isError(z2)) abort();
        zlen += z2;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(z, 1, keep && keep < zlen ? keep : zlen, f) != (keep && keep < zlen ? keep : zlen) ||
        fclose(f) != 0)
        abort();
    free(z);
    free(s->data);
    s->data = NULL;
    return zlen;
}

/* Write dir/thread-N.zst (version 2) from a script. */
static inline void ts_write_script(const char *dir, uint32_t index, const char *script)
{
    char path[512];
    test_stream s;
    snprintf(path, sizeof path, "%s/thread-%u.zst", dir, index);
    ts_init(&s, index, MS_STREAM_VERSION);
    ts_script(&s, script);
    ts_write(&s, path, 0);
}

/* A fresh empty directory for one test's recording (under TMPDIR or /tmp). */
static inline void ts_make_dir(char *dir, size_t len)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, len, "%s/memspy-replay-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) abort();
}

/* Remove the recording directory and its streams. */
static inline void ts_remove_dir(const char *dir)
{
    char path[600];
    for (unsigned i = 0; i < 64; i++) {
        snprintf(path, sizeof path, "%s/thread-%u.zst", dir, i);
        unlink(path);
    }
    rmdir(dir);
}

/* A sink that writes what it receives as text: "CPU:ADDR" per access ('*' after the address
 * when locked, 'w' when a write), "|" per region boundary, space separated. */
typedef struct {
    char text[1 << 14];
    size_t len;
    unsigned regions;
} recording_sink;

static inline void rec_append(recording_sink *r, const char *s)
{
    size_t n = strlen(s);
    if (r->len + n + 2 >= sizeof r->text) return;
    if (r->len) r->text[r->len++] = ' ';
    memcpy(r->text + r->len, s, n + 1);
    r->len += n;
}

static inline void rec_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                              uint32_t ctx)
{
    (void)size, (void)ctx;
    char tok[64];
    snprintf(tok, sizeof tok, "%u:%llu%s%s", cpu, (unsigned long long)addr, locked ? "*" : "", write ? "w" : "");
    rec_append(ud, tok);
}

static inline void rec_region(void *ud)
{
    ((recording_sink *)ud)->regions++;
    rec_append(ud, "|");
}

static inline void rec_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) rec_access(ud, cpu, ev[i].addr, ev[i].size, ev[i].write, locked, ev[i].ctx);
}

/* The interleaved turns handed over at once (ms_replay_sink.turns), "+" before each batch's
 * first access when rec_mark_turns is set. */
static int rec_mark_turns;
static inline void rec_turns(void *ud, size_t k, const unsigned *cpu, const unsigned *locked,
                             const ms_replay_event *const *ev, size_t nturns)
{
    if (rec_mark_turns) rec_append(ud, "+");
    for (size_t j = 0; j < nturns; j++)
        for (size_t i = 0; i < k; i++)
            rec_access(ud, cpu[i], ev[i][j].addr, ev[i][j].size, ev[i][j].write, locked[i], ev[i][j].ctx);
}

/* Whether ts_replay's sink takes runs of accesses and interleaved turns at once (rec_accesses,
 * rec_turns) rather than one access per call: the same sequence either way. */
static int ts_batched;

/* Streams ts_replay decodes ahead (ms_replay_set_decode_ahead) and their parser threads. */
static unsigned ts_decode_ahead, ts_parsers = 1;
/* The bytes of decompressed chunks ts_replay's pre-scan may keep (ms_replay_set_keep). */
static size_t ts_keep = (size_t)1 << 30;

/* Replay the recording in dir into rec (contexts up to 100; nprocs 0 = one per thread).
 * Returns ms_replay_run's result, or -2 if the recording does not open (err printed). */
static inline int ts_replay(const char *dir, ms_interleave mode, unsigned nprocs, recording_sink *rec,
                            ms_replay_result *res)
{
    char err[1024];
    ms_replay *r;
    memset(rec, 0, sizeof *rec);
    memset(res, 0, sizeof *res);
    if (ms_replay_open(&r, dir, 100, err, sizeof err) < 0) {
        fprintf(stderr, "ms_replay_open: %s\n", err);
        return -2;
    }
    ms_replay_set_decode_ahead(r, ts_decode_ahead, ts_parsers);
    ms_replay_set_keep(r, ts_keep);
    ms_replay_sink sink = { .access = rec_access, .region = rec_region, .ud = rec };
    if (ts_batched) {
        sink.accesses = rec_accesses;
        sink.turns = rec_turns;
    }
    int rc = ms_replay_run(r, mode, nprocs ? nprocs : (unsigned)ms_replay_nthreads(r), &sink, res, err, sizeof err);
    if (rc < 0) fprintf(stderr, "ms_replay_run: %s\n", err);
    ms_replay_close(r);
    return rc;
}

#endif
