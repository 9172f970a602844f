/* Tests of the raw profile reader: files are built byte by byte (independently of the
 * runtime's writer) and read back: round trip, truncation at every offset, checksum, foreign
 * files, newer versions and unknown sections. */
#include "format/raw.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

/* A growable byte buffer with little-endian writers. */
typedef struct {
    unsigned char b[1 << 14];
    size_t n;
    size_t section;
} buf;

static void put(buf *f, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++) f->b[f->n++] = (unsigned char)(v >> (8 * i));
}
static void put_str(buf *f, const char *s)
{
    put(f, strlen(s), 2);
    memcpy(f->b + f->n, s, strlen(s));
    f->n += strlen(s);
}
static void header(buf *f, uint32_t version, uint32_t flags)
{
    memcpy(f->b, "MSPYRAW", 8);
    f->n = 8;
    put(f, version, 4);
    put(f, flags, 4);
}
static void section_begin(buf *f, uint32_t tag)
{
    put(f, tag, 4);
    put(f, 0, 4);
    f->section = f->n;
    put(f, 0, 8); /* length, patched by section_end */
}
static void section_end(buf *f)
{
    uint64_t len = f->n - f->section - 8;
    for (int i = 0; i < 8; i++) f->b[f->section + i] = (unsigned char)(len >> (8 * i));
}
static void trailer(buf *f)
{
    uint32_t crc = (uint32_t)crc32(0L, f->b, (uInt)f->n);
    put(f, MS_RAW_END, 4);
    put(f, 0, 4);
    put(f, 4, 8);
    put(f, crc, 4);
}

/* The sample profile: every section once, plus an unknown section 99 in the middle. */
static void build_sample(buf *f)
{
    header(f, MS_RAW_VERSION, MS_RAW_F_INCOMPLETE);
    section_begin(f, MS_RAW_INFO);
    put(f, 4242, 4);
    put(f, MS_EXIT_SIGNAL, 4);
    put(f, 11, 4);
    put(f, 1000, 8);
    put(f, 5000, 8);
    put(f, 3, 4);
    put_str(f, "L1=32K:8:64:4:lru;mem=200");
    put_str(f, "/bin/prog");
    section_end(f);
    section_begin(f, MS_RAW_MODULES);
    put(f, 1, 4);
    put(f, 0x400000, 8);
    put(f, 0x401000, 8);
    put(f, 0x402000, 8);
    put_str(f, "/bin/prog");
    section_end(f);
    section_begin(f, 99); /* unknown: must be skipped */
    put(f, 0xdeadbeef, 4);
    put_str(f, "future stuff");
    section_end(f);
    section_begin(f, MS_RAW_BINS);
    put(f, 7, 4);
    put(f, 7, 4);
    put(f, MS_BIN_HEAP, 1);
    put(f, 0x401234, 8);
    put(f, 2, 2);
    put(f, 0x401100, 8);
    put(f, 0x401200, 8);
    put(f, 3, 8);
    put(f, 300, 8);
    put(f, 200, 8);
    put(f, 8, 4);
    put(f, MS_BIN_GLOBAL, 1);
    put(f, 0x404000, 8);
    put(f, 64, 8);
    put(f, 0, 4);
    put_str(f, "grid");
    put(f, 9, 4);
    put(f, MS_BIN_STACK, 1);
    put(f, 0x401050, 8);
    put(f, 10, 4);
    put(f, MS_BIN_OTHER, 1);
    /* version 2 kinds */
    put(f, 11, 4);
    put(f, MS_BIN_MMAP, 1);
    put(f, 0x401400, 8);
    put(f, 1, 2);
    put(f, 0x401100, 8);
    put(f, 2, 8);
    put(f, 8192, 8);
    put(f, 4096, 8);
    put_str(f, "/data/table-000005.ldb");
    put(f, 12, 4);
    put(f, MS_BIN_TLS, 1);
    put(f, 16, 8);
    put(f, 256, 8);
    put(f, 0, 4);
    put_str(f, "scratch");
    put(f, 13, 4);
    put(f, MS_BIN_MAPPING, 1);
    put_str(f, "[heap]");
    section_end(f);
    section_begin(f, MS_RAW_CONTEXTS);
    put(f, 2, 4);
    put(f, 0, 4);
    put(f, 7, 4);
    put(f, 0x401300, 8);
    put(f, 1, 4);
    put(f, 8, 4);
    put(f, 0x401310, 8);
    section_end(f);
    section_begin(f, MS_RAW_COUNTERS);
    put(f, 2, 4);
    put(f, 1, 4);
    put(f, 1, 4);
    for (uint64_t v = 1; v <= 4 + 7 * 2; v++) put(f, v * 10, 8);
    section_end(f);
    section_begin(f, MS_RAW_EVICTIONS);
    put(f, 1, 4);
    put(f, 0, 4);
    put(f, 1, 4);
    put(f, 1, 4);
    put(f, 77, 8);
    section_end(f);
    section_begin(f, MS_RAW_NOTES);
    put(f, 1, 4);
    put_str(f, "dropped 5 events");
    section_end(f);
    section_begin(f, MS_RAW_DESTS);
    put(f, 2, 4);
    put(f, 0x401500, 8);
    put(f, 0x401510, 8);
    put_str(f, "1\tc\tp.c\tmalloc\t-\t1\t14\t9\tv\tu\tdouble *\tA");
    put(f, 0x401600, 8);
    put(f, 0, 8);
    put_str(f, "1\tc\tp.c\tcalloc\t-\t1\t15\t17\tv\tdu\tdouble *\tB");
    section_end(f);
    section_begin(f, MS_RAW_DESTS); /* an empty one changes nothing */
    put(f, 0, 4);
    section_end(f);
    trailer(f);
}

static const char *write_tmp(const buf *f, size_t n)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/test_raw_read.%d", (int)getpid());
    FILE *o = fopen(path, "wb");
    fwrite(f->b, 1, n, o);
    fclose(o);
    return path;
}

static int read_prefix(const buf *f, size_t n, ms_raw *raw, char *err, size_t errlen)
{
    return ms_raw_read(write_tmp(f, n), raw, err, errlen);
}

static void test_round_trip(void)
{
    static buf f;
    build_sample(&f);
    ms_raw raw;
    char err[256] = "";
    CHECK(read_prefix(&f, f.n, &raw, err, sizeof err) == 0);
    CHECK(!raw.truncated);
    CHECK(raw.version == MS_RAW_VERSION && raw.flags == MS_RAW_F_INCOMPLETE);
    CHECK(raw.pid == 4242 && raw.exit_kind == MS_EXIT_SIGNAL && raw.exit_value == 11);
    CHECK(raw.start_ns == 1000 && raw.end_ns == 5000 && raw.nthreads == 3);
    CHECK(strcmp(raw.config_text, "L1=32K:8:64:4:lru;mem=200") == 0);
    CHECK(strcmp(raw.exe, "/bin/prog") == 0);
    CHECK(raw.nmodules == 1 && raw.modules[0].base == 0x400000 && raw.modules[0].hi == 0x402000);
    CHECK(strcmp(raw.modules[0].path, "/bin/prog") == 0);
    CHECK(raw.nbins == 7);
    CHECK(raw.bins[0].id == 7 && raw.bins[0].kind == MS_BIN_HEAP && raw.bins[0].pc == 0x401234);
    CHECK(raw.bins[0].depth == 2 && raw.bins[0].path[0] == 0x401100 && raw.bins[0].path[1] == 0x401200);
    CHECK(raw.bins[0].objects == 3 && raw.bins[0].bytes == 300 && raw.bins[0].peak_bytes == 200);
    CHECK(raw.bins[1].kind == MS_BIN_GLOBAL && raw.bins[1].addr == 0x404000 && raw.bins[1].size == 64);
    CHECK(strcmp(raw.bins[1].name, "grid") == 0);
    CHECK(raw.bins[2].kind == MS_BIN_STACK && raw.bins[2].pc == 0x401050);
    CHECK(raw.bins[3].kind == MS_BIN_OTHER && raw.bins[3].id == 10);
    CHECK(raw.nbins == 7 && raw.bins[4].kind == MS_BIN_MMAP && raw.bins[4].pc == 0x401400);
    CHECK(raw.bins[4].depth == 1 && raw.bins[4].path[0] == 0x401100 && raw.bins[4].objects == 2);
    CHECK(raw.bins[4].bytes == 8192 && raw.bins[4].peak_bytes == 4096);
    CHECK(strcmp(raw.bins[4].name, "/data/table-000005.ldb") == 0);
    CHECK(raw.bins[5].kind == MS_BIN_TLS && raw.bins[5].addr == 16 && raw.bins[5].size == 256);
    CHECK(raw.bins[5].module == 0 && strcmp(raw.bins[5].name, "scratch") == 0);
    CHECK(raw.bins[6].kind == MS_BIN_MAPPING && strcmp(raw.bins[6].name, "[heap]") == 0);
    CHECK(raw.ncontexts == 2 && raw.contexts[1].ctx == 1 && raw.contexts[1].bin == 8 && raw.contexts[1].pc == 0x401310);
    CHECK(raw.nlevels == 2 && raw.ncounters == 1 && raw.counters[0].ctx == 1);
    const ms_counters *c = &raw.counters[0].c;
    CHECK(c->reads == 10 && c->writes == 20 && c->stall_read == 30 && c->stall_write == 40);
    CHECK(c->level[0].read_misses == 50 && c->level[0].cause[MS_CAUSE_INVAL] == 100);
    CHECK(c->level[0].writebacks == 110 && c->level[1].read_misses == 120);
    CHECK(c->level[1].writebacks == 180 && c->level[2].read_misses == 0);
    CHECK(raw.nevictions == 1 && raw.evictions[0].victim_ctx == 0 && raw.evictions[0].evictor_ctx == 1);
    CHECK(raw.evictions[0].level == 1 && raw.evictions[0].count == 77);
    CHECK(raw.nnotes == 1 && strcmp(raw.notes[0], "dropped 5 events") == 0);
    CHECK(raw.ndests == 2 && raw.dest_pcs[0] == 0x401500 && raw.dest_pcs[1] == 0x401510);
    CHECK(raw.ndests == 2 && raw.dest_pcs[2] == 0x401600 && raw.dest_pcs[3] == 0);
    CHECK(raw.ndests == 2 && strcmp(raw.dests[1], "1\tc\tp.c\tcalloc\t-\t1\t15\t17\tv\tdu\tdouble *\tB") == 0);
    ms_raw_free(&raw);
}

/* Cut the file at every offset: below the header it is foreign, after it a truncated profile
 * whose complete sections are all present. */
static void test_truncation_everywhere(void)
{
    static buf f;
    build_sample(&f);
    size_t trailer_at = f.n - 20;
    int truncated_ok = 0;
    for (size_t n = 0; n < f.n; n++) {
        ms_raw raw;
        char err[256] = "";
        int rc = read_prefix(&f, n, &raw, err, sizeof err);
        if (n < 16) {
            CHECK(rc == -1 && strcmp(err, "not a memspy raw profile") == 0);
            continue;
        }
        CHECK(rc == 0 && raw.truncated);
        if (rc == 0 && n >= trailer_at) { /* only the trailer is missing */
            CHECK(raw.nbins == 7 && raw.ncounters == 1 && raw.nnotes == 1);
            truncated_ok++;
        }
        if (rc == 0) ms_raw_free(&raw);
    }
    CHECK(truncated_ok == 20);
    /* Cut right after the BINS section: info, modules, bins kept; the rest absent. */
    static buf g;
    build_sample(&g);
    size_t cut = 0;
    for (size_t at = 16; at + 16 <= g.n;) { /* walk section headers */
        uint32_t tag = (uint32_t)(g.b[at] | g.b[at + 1] << 8 | g.b[at + 2] << 16 | (uint32_t)g.b[at + 3] << 24);
        uint64_t len = 0;
        for (int i = 7; i >= 0; i--) len = len << 8 | g.b[at + 8 + i];
        at += 16 + len;
        if (tag == MS_RAW_BINS) {
            cut = at;
            break;
        }
    }
    ms_raw raw;
    char err[256];
    CHECK(read_prefix(&g, cut + 10, &raw, err, sizeof err) == 0);
    CHECK(raw.truncated && raw.pid == 4242 && raw.nmodules == 1 && raw.nbins == 7);
    CHECK(raw.ncontexts == 0 && raw.ncounters == 0 && raw.nevictions == 0);
    ms_raw_free(&raw);
}

static void test_checksum_mismatch(void)
{
    static buf f;
    build_sample(&f);
    f.b[40] ^= 0x01; /* inside the INFO payload */
    ms_raw raw;
    char err[256] = "";
    CHECK(read_prefix(&f, f.n, &raw, err, sizeof err) == -1);
    CHECK(strcmp(err, "corrupt: checksum mismatch") == 0);
}

static void test_foreign_and_newer(void)
{
    static buf f;
    memcpy(f.b,
           "\x7f"
           "ELF\2\1\1\0\0\0\0\0\0\0\0\0\0\0\0\0",
           20);
    ms_raw raw;
    char err[256] = "";
    CHECK(read_prefix(&f, 20, &raw, err, sizeof err) == -1);
    CHECK(strcmp(err, "not a memspy raw profile") == 0);

    header(&f, MS_RAW_VERSION + 1, 0);
    trailer(&f);
    CHECK(read_prefix(&f, f.n, &raw, err, sizeof err) == -1);
    char want[64];
    snprintf(want, sizeof want, "written by a newer memspy (raw version %u)", MS_RAW_VERSION + 1);
    CHECK(strcmp(err, want) == 0);

    CHECK(ms_raw_read("/nonexistent/raw", &raw, err, sizeof err) == -1);
    CHECK(strncmp(err, "cannot open /nonexistent/raw", 28) == 0);
}

/* A complete, checksummed section whose payload lies about its counts is rejected. */
static void test_malformed_section(void)
{
    static buf f;
    header(&f, MS_RAW_VERSION, 0);
    section_begin(&f, MS_RAW_CONTEXTS);
    put(&f, 1000000, 4); /* claims a million contexts in 16 bytes */
    put(&f, 0, 8);
    put(&f, 0, 8);
    section_end(&f);
    trailer(&f);
    ms_raw raw;
    char err[256] = "";
    CHECK(read_prefix(&f, f.n, &raw, err, sizeof err) == -1);
    CHECK(strcmp(err, "corrupt: malformed section 4 at offset 16") == 0);

    header(&f, MS_RAW_VERSION, 0); /* bad level count */
    section_begin(&f, MS_RAW_COUNTERS);
    put(&f, 9, 4);
    put(&f, 0, 4);
    section_end(&f);
    trailer(&f);
    CHECK(read_prefix(&f, f.n, &raw, err, sizeof err) == -1);
}

/* Random garbage after a valid header: never a crash. */
static void test_garbage(void)
{
    static buf f;
    unsigned seed = 12345;
    for (int round = 0; round < 300; round++) {
        header(&f, MS_RAW_VERSION, 0);
        size_t len = 16 + (size_t)(round * 7 % 200);
        for (size_t i = 16; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            f.b[i] = (unsigned char)(seed >> 16);
        }
        f.n = len;
        if (round % 2) trailer(&f);
        ms_raw raw;
        char err[256];
        if (read_prefix(&f, f.n, &raw, err, sizeof err) == 0) ms_raw_free(&raw);
    }
}

int main(void)
{
    test_round_trip();
    test_truncation_everywhere();
    test_checksum_mismatch();
    test_foreign_and_newer();
    test_malformed_section();
    test_garbage();
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_raw_read.%d", (int)getpid());
    unlink(path);
    return check_result();
}
