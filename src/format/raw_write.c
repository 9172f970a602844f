/* The raw-file writer (see raw.h for the layout). It runs inside the profiled program, also
 * from signal handlers: no malloc, only write/pwrite/pread on the caller's fd. Sections are
 * written with a placeholder length that section_end patches; the trailer's CRC-32 is
 * computed by re-reading the file. Errors are sticky (w->failed) and reported by finish. */
#include "raw.h"
#include <errno.h>
#include <unistd.h>
#include <zlib.h>
#ifdef MS_CRC32 /* the runtime's build: zlib's crc32 bound privately (src/rt/syslib.c) */
unsigned long MS_CRC32(unsigned long crc, const unsigned char *buf, unsigned len);
#else
#define MS_CRC32 crc32
#endif

/* Write the buffered bytes to the file. */
static void flush_buf(ms_raw_writer *w)
{
    size_t done = 0;
    while (done < w->used && !w->failed) {
        ssize_t n = write(w->fd, w->buf + done, w->used - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            w->failed = 1;
        else
            done += (size_t)n;
    }
    w->used = 0;
}

static void put_bytes(ms_raw_writer *w, const void *p, size_t n)
{
    const unsigned char *b = p;
    while (n) {
        if (w->used == sizeof w->buf) flush_buf(w);
        size_t room = sizeof w->buf - w->used, k = n < room ? n : room;
        for (size_t i = 0; i < k; i++) w->buf[w->used + i] = b[i];
        w->used += k;
        w->offset += k;
        b += k;
        n -= k;
    }
}

/* Little-endian bytes of v in out[0..n). */
static void le_bytes(unsigned char *out, uint64_t v, int n)
{
    for (int i = 0; i < n; i++) out[i] = (unsigned char)(v >> (8 * i));
}

static void put_le(ms_raw_writer *w, uint64_t v, int n)
{
    unsigned char b[8];
    le_bytes(b, v, n);
    put_bytes(w, b, (size_t)n);
}

int ms_raw_writer_begin(ms_raw_writer *w, int fd, uint32_t flags)
{
    w->fd = fd;
    w->section_start = 0;
    w->in_section = 0;
    w->failed = 0;
    w->used = 0;
    w->offset = 0;
    put_bytes(w, MS_RAW_MAGIC, 8); /* 7 characters and the NUL */
    ms_raw_put_u32(w, MS_RAW_VERSION);
    ms_raw_put_u32(w, flags);
    return 0;
}

void ms_raw_put_u8(ms_raw_writer *w, uint8_t v) { put_le(w, v, 1); }
void ms_raw_put_u16(ms_raw_writer *w, uint16_t v) { put_le(w, v, 2); }
void ms_raw_put_u32(ms_raw_writer *w, uint32_t v) { put_le(w, v, 4); }
void ms_raw_put_u64(ms_raw_writer *w, uint64_t v) { put_le(w, v, 8); }

void ms_raw_put_str(ms_raw_writer *w, const char *s)
{
    size_t n = 0;
    while (s && s[n] && n < 65535) n++;
    ms_raw_put_u16(w, (uint16_t)n);
    put_bytes(w, s, n);
}

void ms_raw_put_counters(ms_raw_writer *w, const ms_counters *c, int nlevels)
{
#define MS_COUNTER(member, exp, csv, event, desc) ms_raw_put_u64(w, c->member);
#include "../sim/counters.def"
    for (int l = 0; l < nlevels && l < MS_MAX_LEVELS; l++) {
        const ms_level_counters *lc = &c->level[l];
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) ms_raw_put_u64(w, lc->member);
#define MS_LEVEL_CAUSES \
    for (int k = 0; k < MS_NCAUSES; k++) ms_raw_put_u64(w, lc->cause[k]);
#include "../sim/counters.def"
    }
}

void ms_raw_section_begin(ms_raw_writer *w, uint32_t tag)
{
    if (w->in_section) ms_raw_section_end(w);
    w->section_start = w->offset;
    w->in_section = 1;
    ms_raw_put_u32(w, tag);
    ms_raw_put_u32(w, 0);
    ms_raw_put_u64(w, 0); /* payload length, patched by section_end */
}

void ms_raw_section_end(ms_raw_writer *w)
{
    if (!w->in_section) return;
    w->in_section = 0;
    uint64_t len = w->offset - w->section_start - 16;
    uint64_t at = w->section_start + 8;
    uint64_t flushed = w->offset - w->used;
    unsigned char b[8];
    le_bytes(b, len, 8);
    if (at >= flushed) { /* still in the buffer */
        for (int i = 0; i < 8; i++) w->buf[at - flushed + (uint64_t)i] = b[i];
        return;
    }
    flush_buf(w);
    if (!w->failed && pwrite(w->fd, b, 8, (off_t)at) != 8) w->failed = 1;
}

int ms_raw_writer_finish(ms_raw_writer *w)
{
    ms_raw_section_end(w);
    flush_buf(w);
    uLong crc = MS_CRC32(0L, Z_NULL, 0);
    for (uint64_t pos = 0; pos < w->offset && !w->failed;) {
        ssize_t n = pread(w->fd, w->buf, sizeof w->buf, (off_t)pos);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            w->failed = 1;
            break;
        }
        uint64_t take = (uint64_t)n < w->offset - pos ? (uint64_t)n : w->offset - pos;
        crc = MS_CRC32(crc, w->buf, (uInt)take);
        pos += take;
    }
    ms_raw_put_u32(w, MS_RAW_END);
    ms_raw_put_u32(w, 0);
    ms_raw_put_u64(w, 4);
    ms_raw_put_u32(w, (uint32_t)crc);
    flush_buf(w);
    return w->failed ? -1 : 0;
}
