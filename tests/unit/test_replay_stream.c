/* The replay's stream reading: damaged streams (truncated file, bad chunk CRC) replay their
 * good prefix and report thread and offsets; version 1 streams are read; newer versions and
 * non-streams are refused; long streams cross the reader's buffer boundaries intact; a stream's
 * sync index (stream.h) stands in for the pre-scan only when it checks out. Every
 * case three times: decoded on the replay's thread, decoded ahead with one parser thread per
 * stream, and with three. */
#include "check.h"
#include "replay_testutil.h"

static char *stream_file(const char *dir, uint32_t index)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/thread-%u.zst", dir, index);
    return path;
}

/* Thread 0 in two zstd frames: chunks (r1 r2) (r3) | frame 2: (r4 r5). Returns the frame split.
 * The same bytes on every call (sequence numbers restart), so a length measured on one build
 * cuts another at the same place. */
static size_t build_two_frames(test_stream *s)
{
    ts_next_seq = ts_chunk_seq = 1;
    ts_init(s, 0, MS_STREAM_VERSION);
    ts_script(s, "r1 r2 | r3 |");
    s->frame_split = s->len;
    ts_script(s, "r4 r5");
    return s->frame_split;
}

static void test_truncated(void)
{
    char dir[256], want[1024];
    recording_sink rec;
    ms_replay_result res;
    ts_make_dir(dir, sizeof dir);
    test_stream s;
    build_two_frames(&s);
    size_t zlen = ts_write(&s, stream_file(dir, 0), 0);
    size_t split = build_two_frames(&s);
    ts_write(&s, stream_file(dir, 0), zlen - 3); /* cut inside the second frame */
    ts_write_script(dir, 1, "r10");
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, &rec, &res), 1);
    CHECK_STR(rec.text, "0:1 1:10 0:2 0:3");
    CHECK_EQ(res.nproblems, 1);
    snprintf(want, sizeof want, "thread 0: stream truncated at byte %zu of %s/thread-0.zst (decompressed offset %zu)",
             zlen - 3, dir, split);
    CHECK_STR(res.nproblems ? res.problems[0] : NULL, want);
    CHECK_EQ(res.threads[0].complete, 0);
    CHECK_EQ(res.threads[1].complete, 1);
    CHECK_EQ(res.threads[0].accesses, 3);
    ms_replay_result_free(&res);

    /* a complete zstd frame whose decompressed bytes stop inside a chunk */
    ts_init(&s, 0, MS_STREAM_VERSION);
    ts_script(&s, "r1 |");
    size_t good = s.len;
    ts_script(&s, "r2 r3");
    ts_chunk(&s);
    s.len -= 2;
    zlen = ts_write(&s, stream_file(dir, 0), 0);
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_PIPED, 0, &rec, &res), 1);
    CHECK_STR(rec.text, "0:1 1:10");
    snprintf(want, sizeof want, "thread 0: stream truncated at byte %zu of %s/thread-0.zst (decompressed offset %zu)",
             zlen, dir, good);
    CHECK_STR(res.nproblems ? res.problems[0] : NULL, want);
    ms_replay_result_free(&res);
    ts_remove_dir(dir);
}

static void test_corrupt_crc(void)
{
    char dir[256], want[1024];
    recording_sink rec;
    ms_replay_result res;
    ts_make_dir(dir, sizeof dir);
    ts_write_script(dir, 0, "r1 r2 r3");
    test_stream s;
    ts_init(&s, 1, MS_STREAM_VERSION);
    ts_script(&s, "r10 | r11 |");
    size_t bad_chunk = s.last_chunk;
    ts_corrupt_last_crc(&s);
    ts_script(&s, "r12");
    size_t zlen = ts_write(&s, stream_file(dir, 1), 0);
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, &rec, &res), 1);
    CHECK_STR(rec.text, "0:1 1:10 0:2 0:3");
    snprintf(want, sizeof want,
             "thread 1: chunk checksum mismatch at byte %zu of %s/thread-1.zst (decompressed offset %zu)", zlen, dir,
             bad_chunk);
    CHECK_STR(res.nproblems ? res.problems[0] : NULL, want);
    CHECK_EQ(res.threads[1].complete, 0);
    CHECK_EQ(res.threads[0].complete, 1);
    ms_replay_result_free(&res);
    ts_remove_dir(dir);
}

static void test_versions(void)
{
    char dir[256], err[1024];
    recording_sink rec;
    ms_replay_result res;
    ms_replay *r = NULL;
    test_stream s;
    ts_make_dir(dir, sizeof dir);
    ts_init(&s, 0, 1); /* version 1: head = ctx, accesses only */
    ts_script(&s, "r1 c3:w2 | r3");
    ts_write(&s, stream_file(dir, 0), 0);
    ts_write_script(dir, 1, "r10 r11");
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, &rec, &res), 0);
    CHECK_STR(rec.text, "0:1 1:10 0:2w 1:11 0:3");
    ms_replay_result_free(&res);

    /* version 4: sync events without a site, read beside a version 5 stream whose barrier has
     * one; a site above the last context makes the stream corrupt there */
    ts_remove_dir(dir);
    ts_make_dir(dir, sizeof dir);
    ts_init(&s, 0, 4);
    ts_script(&s, "r1 bar1/2 r2");
    ts_write(&s, stream_file(dir, 0), 0);
    ts_write_script(dir, 1, "r10 bar1/2^7 r11");
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, &rec, &res), 0);
    CHECK_STR(rec.text, "0:1 1:10 | 1:11 0:2");
    ms_replay_result_free(&res);
    ts_write_script(dir, 1, "r10 | bar1/2^101 r11");
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, &rec, &res), 1);
    CHECK_EQ(res.nproblems, 1);
    CHECK_CONTAINS(res.nproblems ? res.problems[0] : "", "thread 1: undecodable events in chunk at byte");
    ms_replay_result_free(&res);
    ts_remove_dir(dir);
    ts_make_dir(dir, sizeof dir);

    ts_init(&s, 2, MS_STREAM_VERSION + 1);
    ts_script(&s, "r1");
    ts_write(&s, stream_file(dir, 2), 0);
    CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), -1);
    CHECK(r == NULL);
    char newer[128];
    snprintf(newer, sizeof newer, "thread-2.zst: stream version %u is newer than this memspy reads (%u)",
             MS_STREAM_VERSION + 1, MS_STREAM_VERSION);
    CHECK_CONTAINS(err, newer);

    ts_init(&s, 2, MS_STREAM_VERSION);
    memcpy(s.data, "NOTMSPY", 8);
    ts_write(&s, stream_file(dir, 2), 0);
    CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), -1);
    CHECK_CONTAINS(err, "thread-2.zst: not a memspy stream");
    ts_remove_dir(dir);

    ts_make_dir(dir, sizeof dir);
    CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), -1);
    CHECK_CONTAINS(err, "holds no recorded streams");
    ts_remove_dir(dir);
    CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), -1);
    CHECK_CONTAINS(err, "cannot open the recording");
}

typedef struct {
    uint64_t n, sum, regions;
} counting_sink;

static void count_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                         uint32_t ctx)
{
    (void)write, (void)locked, (void)ctx;
    counting_sink *c = ud;
    c->n++;
    c->sum += addr * (cpu + 1) + size;
}

static void count_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n)
{
    for (size_t i = 0; i < n; i++) count_access(ud, cpu, ev[i].addr, ev[i].size, ev[i].write, locked, ev[i].ctx);
}

static void count_region(void *ud) { ((counting_sink *)ud)->regions++; }

/* 2 x 300000 accesses in chunks of 4096 events with varied deltas: several reader buffers. */
static void test_long_streams(void)
{
    char dir[256], err[512];
    ts_make_dir(dir, sizeof dir);
    uint64_t want_sum = 0;
    for (uint32_t t = 0; t < 2; t++) {
        test_stream s;
        ts_init(&s, t, MS_STREAM_VERSION);
        uint64_t x = 12345 + t;
        for (uint32_t i = 0; i < 300000; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            uint64_t addr = (x >> 20) & 0xffffffffffull;
            uint32_t size = 1u + (uint32_t)(x >> 60);
            ts_access(&s, 1, addr, size, (int)(x & 1));
            want_sum += addr * (t + 1) + size;
            if (i % 4096 == 4095) ts_chunk(&s);
            if (i % 100000 == 99999) ts_sync(&s, MS_SYNC_BARRIER, 1, 2, i + t);
        }
        ts_write(&s, stream_file(dir, t), 0);
    }
    ms_replay *r;
    CHECK_EQ_INT(ms_replay_open(&r, dir, 1, err, sizeof err), 0);
    ms_replay_set_decode_ahead(r, ts_decode_ahead, ts_parsers);
    ms_replay_set_keep(r, ts_keep);
    for (int mode = 0; mode < 4; mode++) { /* interleaved, piped; then both with runs of accesses */
        counting_sink c = { 0 };
        ms_replay_sink sink = { .access = count_access, .region = count_region, .ud = &c };
        if (mode >= 2) sink.accesses = count_accesses;
        ms_replay_result res;
        CHECK_EQ_INT(ms_replay_run(r, (ms_interleave)(mode % 2), 2, &sink, &res, err, sizeof err), 0);
        CHECK_EQ(c.n, 600000);
        CHECK_EQ(c.sum, want_sum);
        CHECK_EQ(c.regions, 3);
        CHECK_EQ(res.syncs, 6);
        ms_replay_result_free(&res);
    }
    ms_replay_close(r);
    ts_remove_dir(dir);
}

/* Append a sync index to the stream file at path (thread `index`): the n entries ev (kind, addr
 * = obj, size = arg, seq, ctx = site) all in chunk 0, chunks chunks, max ctx max_ctx, the
 * index version given; flip: then change one byte of the stream before it (the index no
 * longer matches). */
static void append_index(const char *path, uint32_t index, const ms_replay_event *ev, size_t n, uint64_t chunks,
                         uint32_t max_ctx, uint32_t version, int flip)
{
    FILE *f = fopen(path, "rb");
    unsigned char *file = malloc(1 << 16), *fr = malloc(MS_STREAM_INDEX_HEAD + 4096);
    size_t len = f && file && fr ? fread(file, 1, 1 << 16, f) : 0;
    if (!f || !len || fclose(f) != 0) abort();
    unsigned char *p = fr + MS_STREAM_INDEX_HEAD;
    for (size_t i = 0; i < n; i++)
        p = ms_stream_index_put_entry(p, ev[i].kind, ev[i].addr, ev[i].size, ev[i].seq, ev[i].ctx, 0);
    size_t elen = (size_t)(p - fr - MS_STREAM_INDEX_HEAD);
    ms_stream_index_info in = { .thread_index = index,
                                .stream_version = MS_STREAM_VERSION,
                                .stream_crc = (uint32_t)crc32(0, file, (uInt)len),
                                .max_ctx = max_ctx,
                                .stream_bytes = len,
                                .chunks = chunks,
                                .entries = n };
    size_t total = ms_stream_index_seal(fr, elen, &in, crc32);
    if (version != MS_STREAM_INDEX_VERSION) { /* a newer index, its own CRC right */
        ms_stream_put_u32(fr + 16, version);
        ms_stream_put_u32(fr + total - 12, (uint32_t)crc32(0, fr + 8, (uInt)(total - 20)));
    }
    if (flip) file[len / 2] ^= 1;
    f = fopen(path, "wb");
    if (!f || fwrite(file, 1, len, f) != len || fwrite(fr, 1, total, f) != total || fclose(f) != 0) abort();
    free(file);
    free(fr);
}

/* Thread 0 creates thread 1 and releases 64 (seq 3), which thread 1 acquires; each case
 * rewrites both streams with one kind of index on thread 0's. */
static void index_case(const char *dir, int index_kind, recording_sink *rec, ms_replay_result *res, int rc)
{
    ts_next_seq = ts_chunk_seq = 1;
    ts_write_script(dir, 0, "r1 r2 create1@1 r3 r4 r5 ast64@3 r6");
    ts_write_script(dir, 1, "r10 ald64@4 r11 r12");
    const ms_replay_event truth[] = {
        { .addr = 1, .seq = 1, .kind = MS_SYNC_CREATE },
        { .addr = 64, .size = __ATOMIC_RELEASE | MS_ATOMIC_WRITE, .seq = 3, .kind = MS_SYNC_ATOMIC }
    };
    switch (index_kind) {
    case 1: append_index(stream_file(dir, 0), 0, truth, 2, 1, 1, MS_STREAM_INDEX_VERSION, 0); break;
    case 2: append_index(stream_file(dir, 0), 0, truth + 1, 1, 1, 1, MS_STREAM_INDEX_VERSION, 0); break; /* a lie */
    case 3: append_index(stream_file(dir, 0), 0, truth + 1, 1, 1, 1, MS_STREAM_INDEX_VERSION + 1, 0); break;
    case 4: append_index(stream_file(dir, 0), 0, truth + 1, 1, 1, 101, MS_STREAM_INDEX_VERSION, 0); break;
    case 5: append_index(stream_file(dir, 0), 0, truth + 1, 1, 1, 1, MS_STREAM_INDEX_VERSION, 1); break;
    case 6: append_index(stream_file(dir, 0), 1, truth + 1, 1, 1, 1, MS_STREAM_INDEX_VERSION, 0); break;
    }
    CHECK_EQ_INT(ts_replay(dir, MS_INTERLEAVE_INTERLEAVED, 0, rec, res), rc);
}

static void test_index(void)
{
    char dir[256];
    recording_sink rec;
    ms_replay_result res;
    ts_make_dir(dir, sizeof dir);
    const char *scanned = "0:1 0:2 | 0:3 1:10 0:4 0:5 0:6 1:11 1:12";
    /* no index, a true one: the same replay (thread 1 starts at the CREATE, waits for 64) */
    for (int kind = 0; kind <= 1; kind++) {
        index_case(dir, kind, &rec, &res, 0);
        CHECK_STR(rec.text, scanned);
        CHECK_EQ(res.nproblems, 0);
        ms_replay_result_free(&res);
    }
    /* an index without the CREATE that checks out is believed: thread 1 starts at once */
    index_case(dir, 2, &rec, &res, 0);
    CHECK_STR(rec.text, "0:1 1:10 0:2 | 0:3 0:4 0:5 0:6 1:11 1:12");
    ms_replay_result_free(&res);
    /* the same lie in a newer index version, naming contexts the recording lacks, over a stream
     * changed since, or for another thread: not used, the stream is scanned */
    for (int kind = 3; kind <= 6; kind++) {
        index_case(dir, kind, &rec, &res, kind == 5 ? 1 : 0);
        if (kind != 5) CHECK_STR(rec.text, scanned);
        ms_replay_result_free(&res);
    }
    ts_remove_dir(dir);
}

int main(void)
{
    static const unsigned ahead[][2] = { { 0, 1 }, { 64, 1 }, { 64, 3 } }; /* streams, parsers */
    /* the pre-scan keeps no chunk; all of thread 0's (about 1.8 MB in test_long_streams) and
     * the last of thread 1's; everything */
    static const size_t keep[] = { 0, 2500000, (size_t)1 << 30 };
    for (size_t i = 0; i < sizeof ahead / sizeof ahead[0]; i++)
        for (size_t j = 0; j < sizeof keep / sizeof keep[0]; j++) {
            ts_decode_ahead = ahead[i][0];
            ts_parsers = ahead[i][1];
            ts_keep = keep[j];
            test_truncated();
            test_corrupt_crc();
            test_versions();
            test_long_streams();
            test_index();
        }
    return check_result();
}
