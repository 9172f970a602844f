/* The runtime's raw writer read back by the reader: every section round-trips exactly, a
 * section longer than the writer's buffer is patched correctly, and a corrupted byte is
 * caught by the CRC trailer. */
#include "format/raw.h"
#include "check.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NBINS 1000 /* > 8 KiB of BINS payload: the length is patched with pwrite */

static void write_sample(int fd)
{
    ms_raw_writer w;
    CHECK(ms_raw_writer_begin(&w, fd, MS_RAW_F_INCOMPLETE) == 0);
    ms_raw_section_begin(&w, MS_RAW_INFO);
    ms_raw_put_u32(&w, 4242);
    ms_raw_put_u32(&w, MS_EXIT_SIGNAL);
    ms_raw_put_u32(&w, 11);
    ms_raw_put_u64(&w, 100);
    ms_raw_put_u64(&w, 250);
    ms_raw_put_u32(&w, 3);
    ms_raw_put_str(&w, "L1=32K:8:64:4:lru;mem=200");
    ms_raw_put_str(&w, "/bin/prog");
    ms_raw_section_end(&w);
    ms_raw_section_begin(&w, MS_RAW_BINS);
    ms_raw_put_u32(&w, NBINS);
    for (uint32_t i = 0; i < NBINS; i++) {
        ms_raw_put_u32(&w, i);
        ms_raw_put_u8(&w, MS_BIN_HEAP);
        ms_raw_put_u64(&w, 0x1000 + i);
        ms_raw_put_u16(&w, 2);
        ms_raw_put_u64(&w, 0xa0);
        ms_raw_put_u64(&w, 0xb0 + i);
        ms_raw_put_u64(&w, 1);
        ms_raw_put_u64(&w, 8000);
        ms_raw_put_u64(&w, 8008);
    }
    ms_raw_section_end(&w);
    /* the first block of bin 999 (a mapping of 170 pages) and of an unknown bin (ignored) */
    ms_raw_section_begin(&w, MS_RAW_HEAP_LAYOUT);
    ms_raw_put_u32(&w, 2);
    for (uint32_t i = 0; i < 2; i++) {
        ms_raw_put_u32(&w, i ? 5000 : NBINS - 1);
        ms_raw_put_u64(&w, 3);
        ms_raw_put_u64(&w, 0x7ffff7084010ull);
        ms_raw_put_u64(&w, 696200);
        ms_raw_put_u64(&w, 696320 | 2);
        ms_raw_put_u64(&w, 1);
    }
    ms_raw_section_end(&w);
    ms_raw_section_begin(&w, MS_RAW_CONTEXTS);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, 7);
    ms_raw_put_u64(&w, 0x4321);
    ms_raw_section_end(&w);
    ms_counters c = { 0 };
    c.reads = 1000;
    c.writes = 999;
    c.level[0].read_misses = 125;
    c.level[0].cause[MS_CAUSE_COLD] = 125;
    ms_raw_section_begin(&w, MS_RAW_COUNTERS);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_counters(&w, &c, 1);
    ms_raw_section_end(&w);
    ms_raw_section_begin(&w, MS_RAW_NOTES);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_str(&w, "a note");
    ms_raw_section_end(&w);
    /* two blocks, the second in loop 0; one loop headed by block 1 (rt/blocks.c's layout) */
    ms_raw_section_begin(&w, MS_RAW_BLOCKS);
    ms_raw_put_u32(&w, 2);
    for (uint32_t i = 0; i < 2; i++) {
        ms_raw_put_u64(&w, 0x5000 + 16 * i);
        ms_raw_put_u32(&w, i ? 0 : UINT32_MAX);
        ms_raw_put_u32(&w, 3 * i);
        ms_raw_put_u32(&w, 7 + i);
        ms_raw_put_u32(&w, 40 + i);
        ms_raw_put_u32(&w, 48 + i);
        ms_raw_put_u64(&w, i ? 123456789012ull : 1);
    }
    ms_raw_section_end(&w);
    ms_raw_section_begin(&w, MS_RAW_LOOPS);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, UINT32_MAX);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u64(&w, 0x5010);
    ms_raw_section_end(&w);
    /* two call edges of block 1: to 0x7000 (3 times) and through a pointer to 0x7fff0000 */
    ms_raw_section_begin(&w, MS_RAW_CALLS);
    ms_raw_put_u32(&w, 2);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u64(&w, 0x7000);
    ms_raw_put_u64(&w, 3);
    ms_raw_put_u32(&w, 1);
    ms_raw_put_u64(&w, 0x7fff0000);
    ms_raw_put_u64(&w, 5000000000ull);
    ms_raw_section_end(&w);
    /* a later section must leave the earlier ones alone */
    ms_raw_section_begin(&w, MS_RAW_STREAMS);
    ms_raw_put_str(&w, "/tmp/rec");
    ms_raw_section_end(&w);
    CHECK(ms_raw_writer_finish(&w) == 0);
}

int main(void)
{
    char path[] = "/tmp/test_raw_roundtrip.XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    write_sample(fd);
    close(fd);

    ms_raw raw;
    char err[256] = "";
    CHECK(ms_raw_read(path, &raw, err, sizeof err) == 0);
    if (err[0]) fprintf(stderr, "reader: %s\n", err);
    CHECK(raw.flags == MS_RAW_F_INCOMPLETE && !raw.truncated);
    CHECK(raw.pid == 4242 && raw.exit_kind == MS_EXIT_SIGNAL && raw.exit_value == 11 && raw.nthreads == 3);
    CHECK(raw.start_ns == 100 && raw.end_ns == 250);
    CHECK(raw.exe && strcmp(raw.exe, "/bin/prog") == 0);
    CHECK(raw.nbins == NBINS);
    if (raw.nbins == NBINS) {
        const ms_raw_bin *b = &raw.bins[NBINS - 1];
        CHECK(b->id == NBINS - 1 && b->kind == MS_BIN_HEAP && b->pc == 0x1000 + NBINS - 1);
        CHECK(b->depth == 2 && b->path[0] == 0xa0 && b->path[1] == 0xb0 + NBINS - 1);
        CHECK(b->objects == 1 && b->bytes == 8000 && b->peak_bytes == 8008);
        CHECK(b->first_seq == 3 && b->first_addr == 0x7ffff7084010ull && b->first_request == 696200);
        CHECK(b->first_chunk == (696320 | 2) && b->mapped == 1);
        CHECK(raw.bins[0].first_seq == 0); /* no layout recorded */
    }
    CHECK(raw.ncontexts == 1 && raw.contexts[0].bin == 7 && raw.contexts[0].pc == 0x4321);
    CHECK(raw.ncounters == 1 && raw.counters[0].c.reads == 1000 && raw.counters[0].c.writes == 999);
    CHECK(raw.ncounters == 1 && raw.counters[0].c.level[0].cause[MS_CAUSE_COLD] == 125);
    CHECK(raw.nnotes == 1 && strcmp(raw.notes[0], "a note") == 0);
    CHECK(raw.nblocks == 2 && raw.nloops == 1);
    if (raw.nblocks == 2 && raw.nloops == 1) {
        CHECK(raw.blocks[0].pc == 0x5000 && raw.blocks[0].loop == UINT32_MAX && raw.blocks[0].count == 1);
        CHECK(raw.blocks[1].pc == 0x5010 && raw.blocks[1].loop == 0 && raw.blocks[1].memops == 3);
        CHECK(raw.blocks[1].stmts == 8 && raw.blocks[1].count == 123456789012ull);
        CHECK(raw.blocks[1].first_line == 41 && raw.blocks[1].last_line == 49);
        CHECK(raw.loops[0].parent == UINT32_MAX && raw.loops[0].depth == 1 && raw.loops[0].header == 1);
        CHECK(raw.loops[0].pc == 0x5010);
    }
    CHECK(raw.ncalls == 2);
    if (raw.ncalls == 2) {
        CHECK(raw.calls[0].caller_block == 1 && raw.calls[0].callee_pc == 0x7000 && raw.calls[0].count == 3);
        CHECK(raw.calls[1].caller_block == 1 && raw.calls[1].callee_pc == 0x7fff0000);
        CHECK(raw.calls[1].count == 5000000000ull);
    }
    CHECK(raw.streams_dir && strcmp(raw.streams_dir, "/tmp/rec") == 0);
    ms_raw_free(&raw);

    /* flip one payload byte: the checksum must catch it */
    fd = open(path, O_RDWR);
    unsigned char byte;
    CHECK(pread(fd, &byte, 1, 40) == 1);
    byte ^= 0xff;
    CHECK(pwrite(fd, &byte, 1, 40) == 1);
    close(fd);
    memset(&raw, 0, sizeof raw);
    int rc = ms_raw_read(path, &raw, err, sizeof err);
    CHECK(rc != 0 || raw.truncated);
    if (rc == 0) ms_raw_free(&raw);
    unlink(path);
    return check_result();
}
