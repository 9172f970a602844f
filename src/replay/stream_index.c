/* Reading a stream's sync index (stream_index.h). The index is trusted only when its own CRC,
 * the CRC of every byte of the file before it and its thread index agree, so a stream read
 * through its index replays exactly as one scanned. */
#include "stream_index.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "../format/stream.h"
#include "../util/util.h"

/* The most bytes read at a time for the stream's CRC. */
#define CRC_BLOCK ((size_t)1 << 16)

/* zlib's crc32 of the first `bytes` bytes of f. Returns 0, or -1 (read error or short file). */
static int file_crc(FILE *f, uint64_t bytes, uint32_t *crc)
{
    unsigned char *buf = malloc(CRC_BLOCK);
    if (!buf) return -1;
    uLong c = crc32(0, NULL, 0);
    int rc = fseek(f, 0, SEEK_SET);
    while (rc == 0 && bytes) {
        size_t want = bytes < CRC_BLOCK ? (size_t)bytes : CRC_BLOCK;
        if (fread(buf, 1, want, f) != want)
            rc = -1;
        else {
            c = crc32(c, buf, (uInt)want);
            bytes -= want;
        }
    }
    free(buf);
    *crc = (uint32_t)c;
    return rc;
}

/* Decode the entries (content after the fixed fields) into out. Returns 1, 0 (malformed) or -1. */
static int decode_entries(const unsigned char *p, const unsigned char *end, uint64_t nentries, ms_stream_index *out)
{
    if (nentries > (uint64_t)(end - p) / 6) return 0; /* each entry is at least 6 bytes */
    out->ev = malloc((nentries ? nentries : 1) * sizeof *out->ev);
    if (!out->ev) return -1;
    uint64_t chunk = 0;
    for (uint64_t i = 0; i < nentries; i++) {
        uint64_t kind, obj, arg, seq, site, delta;
        if (ms_stream_get_varint(&p, end, &kind) < 0 || ms_stream_get_varint(&p, end, &obj) < 0 ||
            ms_stream_get_varint(&p, end, &arg) < 0 || ms_stream_get_varint(&p, end, &seq) < 0 ||
            ms_stream_get_varint(&p, end, &site) < 0 || ms_stream_get_varint(&p, end, &delta) < 0 ||
            !ms_stream_index_wants(kind, arg) || site > UINT32_MAX || (chunk += delta) >= out->chunks)
            break;
        out->ev[out->n++] =
            (ms_replay_event){ .addr = obj, .size = arg, .seq = seq, .ctx = (uint32_t)site, .kind = (uint16_t)kind };
    }
    if (out->n == nentries && p == end) return 1;
    free(out->ev);
    out->ev = NULL;
    out->n = 0;
    return 0;
}

/* ms_stream_index_read on the open file f of `size` bytes. */
static int read_index(FILE *f, uint64_t size, uint32_t index, uint32_t max_ctx, ms_stream_index *out)
{
    unsigned char tail[8];
    if (size < MS_STREAM_INDEX_HEAD + MS_STREAM_INDEX_TRAILER || fseek(f, (long)(size - 8), SEEK_SET) != 0 ||
        fread(tail, 1, 8, f) != 8 || memcmp(tail + 4, MS_STREAM_INDEX_TAIL, 4) != 0)
        return 0;
    uint64_t frame = ms_stream_get_u32(tail);
    if (frame < MS_STREAM_INDEX_HEAD + MS_STREAM_INDEX_TRAILER || frame > size) return 0;
    unsigned char *fb = malloc(frame);
    if (!fb) return -1;
    int rc = 0;
    const unsigned char *c = fb + 8, *t = fb + frame - MS_STREAM_INDEX_TRAILER;
    if (fseek(f, (long)(size - frame), SEEK_SET) != 0 || fread(fb, 1, frame, f) != frame ||
        ms_stream_get_u32(fb) != MS_STREAM_INDEX_FRAME || ms_stream_get_u32(fb + 4) != frame - 8 ||
        memcmp(c, MS_STREAM_INDEX_MAGIC, 8) != 0 || ms_stream_get_u32(c + 8) != MS_STREAM_INDEX_VERSION ||
        (uint32_t)crc32(0, c, (uInt)(t - c)) != ms_stream_get_u32(t))
        goto out;
    uint32_t sver = ms_stream_get_u32(c + 16), crc;
    uint64_t bytes = ms_stream_get_u64(c + 24);
    if (ms_stream_get_u32(c + 12) != index || sver < 2 || sver > MS_STREAM_VERSION || bytes != size - frame ||
        ms_stream_get_u32(c + 36) > max_ctx)
        goto out;
    if (file_crc(f, bytes, &crc) < 0 || crc != ms_stream_get_u32(c + 32)) goto out;
    out->has_work = (ms_stream_get_u32(c + 20) & MS_STREAM_INDEX_WORK) != 0;
    out->chunks = ms_stream_get_u64(c + 40);
    rc = decode_entries(fb + MS_STREAM_INDEX_HEAD, t, ms_stream_get_u64(c + 48), out);
out:
    free(fb);
    return rc;
}

int ms_stream_index_read(const char *path, uint32_t index, uint32_t max_ctx, ms_stream_index *out, char *err,
                         size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return 0; /* the scan says why */
    int rc = fseek(f, 0, SEEK_END);
    long size = rc == 0 ? ftell(f) : -1;
    rc = size < 0 ? 0 : read_index(f, (uint64_t)size, index, max_ctx, out);
    fclose(f);
    if (rc < 0) return ms_errorf(err, errlen, "out of memory");
    return rc;
}
