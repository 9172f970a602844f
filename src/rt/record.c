/* Recording (MEMSPY_RECORD_DIR): every flushed event buffer is also appended, as one chunk,
 * to DIR/thread-N.zst through zstd's streaming API, so that `memspy resim` (and, for a
 * multithreaded run, `memspy run` itself) can replay the accesses and synchronisation events.
 * Format: src/format/stream.h and docs/formats.md.
 *
 * A stream's state belongs to the thread's data block (reused by later threads) and is only
 * touched with that block's flush flag held: events are encoded as the flush maps them to
 * contexts (under the simulator lock in one-processor mode, without a global lock in threads
 * mode: events.c), compression and writing per thread, outside any global lock. Nothing here
 * touches the program's malloc: zstd's contexts get their memory from ms_map. zstd and crc32
 * are called through syslib.c's private bindings, never the program's symbols.
 *
 * Each stream also collects its sync index (stream.h: the CREATE and releasing ATOMIC events,
 * a CRC of the compressed bytes written), appended as a zstd skippable frame when the stream
 * is ended, so that the replay need not scan the stream before replaying it. */
#include "rt.h"
#include "../format/stream.h"
#include "syslib.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_BYTES (MS_STREAM_CHUNK_HEADER_SIZE + MS_EVENTS_PER_THREAD * MS_STREAM_EVENT_MAX)
#define OUT_BYTES ((size_t)1 << 17)

struct ms_rec_stream {
    int fd; /* -1 while no file is open */
    uint32_t thread_index;
    uint32_t nevents; /* events of the chunk being built */
    uint64_t prev_addr;
    ZSTD_CCtx *cctx;
    unsigned char *chunk, *pos; /* the chunk being built (header first) */
    unsigned char *out;         /* compressed bytes on their way to the file */
    ms_stream_ctx_table *ctxs;  /* each context's last access in the chunk (stream.h, version 6) */
    /* the sync index (stream.h), reset with the file: the entries' bytes in an ms_map'd
     * buffer of ix_cap bytes (MS_STREAM_INDEX_HEAD reserved in front, for the seal) */
    unsigned char *ix;
    size_t ix_len, ix_cap;
    uint64_t ix_entries, ix_last_chunk, chunks, file_bytes;
    uint32_t file_crc, flags;
    int ix_failed; /* out of memory: no index for this stream (the replay scans it) */
};

static char record_dir[4096];
static volatile int recording; /* 0 off, 1 on, -1 failed (stops for good) */
static uint64_t chunk_seq;     /* atomic: flushes of every thread are numbered */

/* zstd's memory: mmap'd blocks with their length in a 16-byte header. */
static void *zstd_alloc(void *opaque, size_t size)
{
    (void)opaque;
    uint64_t *p = ms_map(size + 16);
    if (!p) return NULL;
    p[0] = size + 16;
    return p + 2;
}

static void zstd_free(void *opaque, void *addr)
{
    (void)opaque;
    if (!addr) return;
    uint64_t *p = (uint64_t *)addr - 2;
    ms_unmap(p, p[0]);
}

/* One line on stderr, then no more recording in this process. */
static void record_failed(const char *what, uint32_t thread_index, int err)
{
    char line[4096 + 256], *p = line;
    const char *head = "memspy: recording stopped (";
    const char *name = err ? strerrorname_np(err) : NULL;
    ms_memcpy(p, head, ms_strlen(head)), p += ms_strlen(head);
    ms_memcpy(p, what, ms_strlen(what)), p += ms_strlen(what);
    ms_memcpy(p, ", thread ", 9), p += 9;
    p = ms_utoa(p, thread_index);
    if (name) *p++ = ' ', ms_memcpy(p, name, ms_strlen(name)), p += ms_strlen(name);
    ms_memcpy(p, "): the recording is incomplete\n", 31), p += 31;
    ssize_t rc = write(2, line, (size_t)(p - line));
    (void)rc;
    recording = -1;
}

int ms_rec_init(const char *dir, char *err, size_t errlen)
{
    size_t n = ms_strlen(dir);
    if (n == 0 || n >= sizeof record_dir - 32) {
        snprintf(err, errlen, "MEMSPY_RECORD_DIR is too long");
        return -1;
    }
    if (ms_syslib_init(1, err, errlen) < 0) return -1;
    ms_memcpy(record_dir, dir, n);
    record_dir[n] = 0;
    recording = 1;
    return 0;
}

int ms_rec_active(void) { return recording == 1; }
const char *ms_rec_dir(void) { return record_dir; }

void ms_rec_thread_start(ms_thread_data *d, uint32_t thread_index)
{
    if (d->rec) d->rec->thread_index = thread_index;
    d->rec_thread_index = thread_index;
    d->rec_ended = 0;
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Compress len bytes (or end the frame with mode ZSTD_e_end) and write what comes out. */
static int compress_out(struct ms_rec_stream *s, const void *data, size_t len, ZSTD_EndDirective mode)
{
    ZSTD_inBuffer in = { data, len, 0 };
    size_t left;
    do {
        ZSTD_outBuffer out = { s->out, OUT_BYTES, 0 };
        left = ms_sys.compress_stream2(s->cctx, &out, &in, mode);
        if (ms_sys.is_error(left)) {
            record_failed(ms_sys.error_name(left), s->thread_index, 0);
            return -1;
        }
        if (write_all(s->fd, s->out, out.pos) < 0) {
            record_failed("cannot write the stream", s->thread_index, errno);
            return -1;
        }
        s->file_crc = (uint32_t)ms_sys.crc32(s->file_crc, s->out, (unsigned)out.pos);
        s->file_bytes += out.pos;
    } while (mode == ZSTD_e_end ? left != 0 : in.pos < in.size);
    return 0;
}

/* "<dir>/thread-<n>.zst" into out. */
static void stream_path(char *out, uint32_t n)
{
    size_t len = ms_strlen(record_dir);
    ms_memcpy(out, record_dir, len);
    char *p = out + len;
    ms_memcpy(p, "/thread-", 8);
    p = ms_utoa(p + 8, n);
    ms_memcpy(p, ".zst", 5);
}

/* Start a new frame with the stream header (fd open and empty). */
static int stream_header(struct ms_rec_stream *s)
{
    ms_sys.cctx_reset(s->cctx, ZSTD_reset_session_only);
    s->prev_addr = 0;
    s->ix_len = s->ix_entries = s->ix_last_chunk = s->chunks = s->file_bytes = 0;
    s->file_crc = s->flags = 0;
    s->ix_failed = 0;
    unsigned char header[MS_STREAM_HEADER_SIZE];
    ms_memcpy(header, MS_STREAM_MAGIC, 8);
    ms_stream_put_u32(header + 8, MS_STREAM_VERSION);
    ms_stream_put_u32(header + 12, s->thread_index);
    return compress_out(s, header, sizeof header, ZSTD_e_continue);
}

/* Open the thread's file and start its frame. */
static int stream_open(struct ms_rec_stream *s)
{
    char path[sizeof record_dir + 32];
    stream_path(path, s->thread_index);
    /* O_EXCL: a child process of the program does not clobber its parent's streams. */
    s->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (s->fd < 0) {
        record_failed(path, s->thread_index, errno);
        return -1;
    }
    return stream_header(s);
}

void ms_rec_thread_restart(ms_thread_data *d)
{
    struct ms_rec_stream *s = d->rec;
    if (!s || s->fd < 0 || recording != 1) return;
    if (ftruncate(s->fd, 0) != 0 || lseek(s->fd, 0, SEEK_SET) != 0) {
        record_failed("cannot restart the stream", s->thread_index, errno);
        return;
    }
    stream_header(s);
}

/* The stream of data block d, made on first use. NULL if recording is off or failed. */
static struct ms_rec_stream *stream_of(ms_thread_data *d)
{
    if (d->rec) return d->rec;
    struct ms_rec_stream *s = ms_arena_alloc(sizeof *s);
    ZSTD_customMem mem = { zstd_alloc, zstd_free, NULL };
    if (!s || !(s->chunk = ms_map(CHUNK_BYTES)) || !(s->out = ms_map(OUT_BYTES)) ||
        !(s->ctxs = ms_map(sizeof *s->ctxs)) || !(s->cctx = ms_sys.create_cctx_advanced(mem)) ||
        ms_sys.is_error(ms_sys.cctx_set_parameter(s->cctx, ZSTD_c_compressionLevel, 1))) {
        record_failed("out of memory", d->rec_thread_index, ENOMEM);
        return NULL;
    }
    s->fd = -1;
    s->thread_index = d->rec_thread_index;
    d->rec = s;
    return s;
}

ms_rec_stream *ms_rec_chunk_begin(ms_thread_data *d)
{
    /* An ended stream (the exit flush ended it while its thread runs on) takes no more
     * chunks: reopening its file would fail (O_EXCL) and stop every other thread's stream. */
    if (recording != 1 || d->rec_ended || getpid() != ms_runtime_pid()) return NULL;
    struct ms_rec_stream *s = stream_of(d);
    if (!s || (s->fd < 0 && stream_open(s) < 0)) return NULL;
    s->pos = s->chunk + MS_STREAM_CHUNK_HEADER_SIZE;
    s->nevents = 0;
    s->prev_addr = 0; /* version 6: each chunk's deltas start from 0 and an empty table */
    ms_stream_ctx_reset(s->ctxs);
    return s;
}

void ms_rec_event(ms_rec_stream *s, uint32_t ctx, uint64_t addr, uint32_t size_flags)
{
    unsigned char *p = ms_stream_put_varint(s->pos, (uint64_t)ctx << 1);
    p = ms_stream_put_varint(p, ms_stream_zigzag((int64_t)(addr - ms_stream_ctx_base(s->ctxs, ctx, s->prev_addr))));
    ms_stream_ctx_set(s->ctxs, ctx, addr);
    uint64_t size = size_flags & MS_EV_SIZE_MAX;
    s->pos = ms_stream_put_varint(p, size << 1 | ((size_flags & MS_EV_WRITE) != 0));
    s->prev_addr = addr;
    s->nevents++;
}

/* Room for one more index entry (growing the buffer: a new mapping, the old one copied).
 * Returns 0, or -1 when out of memory (the stream then goes without an index). */
static int index_room(struct ms_rec_stream *s)
{
    size_t need = MS_STREAM_INDEX_HEAD + s->ix_len + MS_STREAM_INDEX_ENTRY_MAX + MS_STREAM_INDEX_TRAILER;
    if (need <= s->ix_cap) return 0;
    size_t cap = s->ix_cap ? 2 * s->ix_cap : (size_t)1 << 16;
    unsigned char *ix = ms_map(cap);
    if (!ix) return -1;
    if (s->ix) {
        ms_memcpy(ix, s->ix, MS_STREAM_INDEX_HEAD + s->ix_len);
        ms_unmap(s->ix, s->ix_cap);
    }
    s->ix = ix;
    s->ix_cap = cap;
    return 0;
}

/* Note a sync event of the chunk being built in the stream's index. */
static void index_note(struct ms_rec_stream *s, uint32_t kind, uint64_t obj, uint64_t arg, uint64_t seq, uint32_t site)
{
    if (kind == MS_SYNC_WORK) s->flags |= MS_STREAM_INDEX_WORK;
    if (s->ix_failed || !ms_stream_index_wants(kind, arg)) return;
    if (index_room(s) < 0) {
        s->ix_failed = 1;
        return;
    }
    unsigned site_v = ms_stream_has_site(MS_STREAM_VERSION, kind) ? site : 0;
    unsigned char *p = s->ix + MS_STREAM_INDEX_HEAD + s->ix_len;
    unsigned char *e = ms_stream_index_put_entry(p, kind, obj, arg, seq, site_v, s->chunks - s->ix_last_chunk);
    s->ix_len += (size_t)(e - p);
    s->ix_last_chunk = s->chunks;
    s->ix_entries++;
}

/* Append the stream's index frame (the stream's last frame has ended). */
static void index_write(struct ms_rec_stream *s)
{
    if (s->ix_failed || index_room(s) < 0) return;
    uint32_t nctx = ms_contexts_count();
    ms_stream_index_info in = { .thread_index = s->thread_index,
                                .stream_version = MS_STREAM_VERSION,
                                .flags = s->flags,
                                .stream_crc = s->file_crc,
                                .max_ctx = nctx ? nctx - 1 : 0,
                                .stream_bytes = s->file_bytes,
                                .chunks = s->chunks,
                                .entries = s->ix_entries };
    size_t n = ms_stream_index_seal(s->ix, s->ix_len, &in, ms_sys.crc32);
    if (write_all(s->fd, s->ix, n) < 0) record_failed("cannot write the stream", s->thread_index, errno);
}

void ms_rec_sync(ms_rec_stream *s, uint32_t kind, uint64_t obj, uint64_t arg, uint64_t seq, uint32_t site)
{
    index_note(s, kind, obj, arg, seq, site);
    unsigned char *p = ms_stream_put_varint(s->pos, (uint64_t)kind << 1 | 1);
    p = ms_stream_put_varint(p, obj);
    p = ms_stream_put_varint(p, arg);
    p = ms_stream_put_varint(p, seq);
    if (ms_stream_has_site(MS_STREAM_VERSION, kind)) p = ms_stream_put_varint(p, site);
    s->pos = p;
    s->nevents++;
}

void ms_rec_chunk_end(ms_rec_stream *s)
{
    if (recording != 1 || !s->nevents) return;
    unsigned char *payload = s->chunk + MS_STREAM_CHUNK_HEADER_SIZE;
    uint32_t len = (uint32_t)(s->pos - payload);
    ms_stream_put_u32(s->chunk, s->nevents);
    ms_stream_put_u32(s->chunk + 4, len);
    ms_stream_put_u64(s->chunk + 8, __atomic_fetch_add(&chunk_seq, 1, __ATOMIC_RELAXED));
    ms_stream_put_u32(s->chunk + 16, (uint32_t)ms_sys.crc32(0, payload, len));
    compress_out(s, s->chunk, MS_STREAM_CHUNK_HEADER_SIZE + len, ZSTD_e_continue);
    s->chunks++;
}

void ms_rec_thread_end(ms_thread_data *d)
{
    struct ms_rec_stream *s = d->rec;
    /* The main thread's stream exists even if it recorded nothing (a counting run whose loops
     * never filled the buffer: the replay of no stream at all is refused) */
    if (!d->rec_ended && d->rec_thread_index == 0 && recording == 1 && getpid() == ms_runtime_pid() &&
        (!s || s->fd < 0) && (s = stream_of(d)) != NULL)
        stream_open(s);
    d->rec_ended = 1;
    if (!s || s->fd < 0) return;
    if (recording == 1 && compress_out(s, NULL, 0, ZSTD_e_end) == 0 && recording == 1) index_write(s);
    close(s->fd);
    s->fd = -1;
}
