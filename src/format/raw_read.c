#define _GNU_SOURCE /* vasprintf */
/* Reader of the raw profile file (layout in raw.h). Every read is bounds-checked through a
 * cursor, so arbitrary input gives an error or a truncated result, never a crash. */
#include "raw.h"
#include "../util/util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define SECTION_HEADER_BYTES 16u
#define FILE_HEADER_BYTES 16u
/* The counter record (counters.def): the fixed fields, then those of every level. */
#define MS_COUNTER(member, exp, csv, event, desc) +1
enum {
    COUNTER_FIELDS_FIXED = 0
#include "../sim/counters.def"
};
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) +1
#define MS_LEVEL_CAUSES +MS_NCAUSES
enum {
    COUNTER_FIELDS_PER_LEVEL = 0
#include "../sim/counters.def"
};

/* A bounds-checked view of bytes; any overrun sets `bad` and yields zeros from then on. */
typedef struct {
    const unsigned char *p;
    size_t len, pos;
    int bad;
} cursor;

static int take(cursor *c, size_t n, const unsigned char **out)
{
    if (c->bad || n > c->len - c->pos) {
        c->bad = 1;
        return -1;
    }
    *out = c->p + c->pos;
    c->pos += n;
    return 0;
}

static uint64_t get_le(cursor *c, size_t n)
{
    const unsigned char *b;
    if (take(c, n, &b) != 0) return 0;
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;) v = (v << 8) | b[i];
    return v;
}

static uint8_t get_u8(cursor *c) { return (uint8_t)get_le(c, 1); }
static uint16_t get_u16(cursor *c) { return (uint16_t)get_le(c, 2); }
static uint32_t get_u32(cursor *c) { return (uint32_t)get_le(c, 4); }
static uint64_t get_u64(cursor *c) { return get_le(c, 8); }

/* A str field as a NUL-terminated malloc'd copy; NULL on overrun or no memory (sets bad). */
static char *get_str(cursor *c)
{
    uint16_t n = get_u16(c);
    const unsigned char *b;
    if (take(c, n, &b) != 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) {
        c->bad = 1;
        return NULL;
    }
    memcpy(s, b, n);
    s[n] = '\0';
    return s;
}

static size_t remaining(const cursor *c) { return c->bad ? 0 : c->len - c->pos; }

/* Check that n records of at least min_bytes each can fit in what is left, then grow *arr
 * (holding *have elements of elem bytes) by n. Returns the first new element or NULL. */
static void *grow_records(cursor *c, uint32_t n, size_t min_bytes, void **arr, size_t *have, size_t elem)
{
    if (c->bad || (uint64_t)n * min_bytes > remaining(c)) {
        c->bad = 1;
        return NULL;
    }
    if (n == 0) return *arr ? (char *)*arr + *have * elem : NULL;
    void *p = realloc(*arr, (*have + n) * elem);
    if (!p) {
        c->bad = 1;
        return NULL;
    }
    memset((char *)p + *have * elem, 0, (size_t)n * elem);
    *arr = p;
    void *first = (char *)p + *have * elem;
    *have += n;
    return first;
}

static void parse_info(cursor *c, ms_raw *raw)
{
    raw->pid = get_u32(c);
    raw->exit_kind = get_u32(c);
    raw->exit_value = (int32_t)get_u32(c);
    raw->start_ns = get_u64(c);
    raw->end_ns = get_u64(c);
    raw->nthreads = get_u32(c);
    free(raw->config_text);
    free(raw->exe);
    raw->config_text = get_str(c);
    raw->exe = get_str(c);
}

static void parse_modules(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_module *m = grow_records(c, n, 26, (void **)&raw->modules, &raw->nmodules, sizeof *m);
    for (uint32_t i = 0; m && i < n && !c->bad; i++) {
        m[i].base = get_u64(c);
        m[i].lo = get_u64(c);
        m[i].hi = get_u64(c);
        m[i].path = get_str(c);
    }
}

static void parse_bin(cursor *c, ms_raw_bin *b)
{
    b->id = get_u32(c);
    uint8_t kind = get_u8(c);
    switch (kind) {
    case MS_BIN_HEAP:
    case MS_BIN_MMAP:
        b->kind = (ms_bin_kind)kind;
        b->pc = get_u64(c);
        b->depth = get_u16(c);
        if ((uint64_t)b->depth * 8 > remaining(c)) {
            c->bad = 1;
            return;
        }
        if (b->depth) {
            b->path = malloc((size_t)b->depth * sizeof *b->path);
            if (!b->path) {
                c->bad = 1;
                return;
            }
            for (uint16_t d = 0; d < b->depth; d++) b->path[d] = get_u64(c);
        }
        b->objects = get_u64(c);
        b->bytes = get_u64(c);
        b->peak_bytes = get_u64(c);
        if (kind == MS_BIN_MMAP) b->name = get_str(c);
        break;
    case MS_BIN_TLS:
        b->kind = MS_BIN_TLS;
        b->addr = get_u64(c);
        b->size = get_u64(c);
        b->module = get_u32(c);
        b->name = get_str(c);
        break;
    case MS_BIN_MAPPING:
        b->kind = MS_BIN_MAPPING;
        b->name = get_str(c);
        break;
    case MS_BIN_GLOBAL:
        b->kind = MS_BIN_GLOBAL;
        b->addr = get_u64(c);
        b->size = get_u64(c);
        b->module = get_u32(c);
        b->name = get_str(c);
        break;
    case MS_BIN_STACK:
        b->kind = MS_BIN_STACK;
        b->pc = get_u64(c);
        break;
    case MS_BIN_STACKVAR:
        b->kind = MS_BIN_STACKVAR;
        b->pc = get_u64(c);
        b->name = get_str(c);
        break;
    case MS_BIN_OTHER: b->kind = MS_BIN_OTHER; break;
    default: c->bad = 1; /* unknown bin kinds cannot be skipped: their size is unknown */
    }
}

static void parse_bins(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_bin *b = grow_records(c, n, 5, (void **)&raw->bins, &raw->nbins, sizeof *b);
    for (uint32_t i = 0; b && i < n && !c->bad; i++) parse_bin(c, &b[i]);
}

/* MS_RAW_HEAP_LAYOUT: the first block of HEAP bins already read, found by id at their index
 * (the runtime writes bins in id order; other ids are ignored). */
static void parse_heap_layout(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    if (c->bad || (uint64_t)n * 44 > remaining(c)) {
        c->bad = 1;
        return;
    }
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint32_t id = get_u32(c);
        uint64_t v[5];
        for (int k = 0; k < 5; k++) v[k] = get_u64(c);
        ms_raw_bin *b = id < raw->nbins && raw->bins[id].id == id ? &raw->bins[id] : NULL; /* written in id order */
        if (c->bad || !b || b->kind != MS_BIN_HEAP) continue;
        b->first_seq = v[0];
        b->first_addr = v[1];
        b->first_request = v[2];
        b->first_chunk = v[3];
        b->mapped = v[4];
    }
}

static void parse_contexts(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_context *x = grow_records(c, n, 16, (void **)&raw->contexts, &raw->ncontexts, sizeof *x);
    for (uint32_t i = 0; x && i < n && !c->bad; i++) {
        x[i].ctx = get_u32(c);
        x[i].bin = get_u32(c);
        x[i].pc = get_u64(c);
    }
}

static void parse_counters(cursor *c, ms_raw *raw)
{
    uint32_t nlevels = get_u32(c);
    uint32_t n = get_u32(c);
    if (c->bad || nlevels < 1 || nlevels > MS_MAX_LEVELS || (raw->nlevels && raw->nlevels != (int)nlevels)) {
        c->bad = 1;
        return;
    }
    raw->nlevels = (int)nlevels;
    size_t rec = 4 + 8 * (COUNTER_FIELDS_FIXED + COUNTER_FIELDS_PER_LEVEL * nlevels);
    ms_raw_counter *r = grow_records(c, n, rec, (void **)&raw->counters, &raw->ncounters, sizeof *r);
    for (uint32_t i = 0; r && i < n && !c->bad; i++) {
        ms_counters *k = &r[i].c;
        r[i].ctx = get_u32(c);
#define MS_COUNTER(member, exp, csv, event, desc) k->member = get_u64(c);
#include "../sim/counters.def"
        for (uint32_t l = 0; l < nlevels; l++) {
            ms_level_counters *lv = &k->level[l];
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) lv->member = get_u64(c);
#define MS_LEVEL_CAUSES \
    for (int q = 0; q < MS_NCAUSES; q++) lv->cause[q] = get_u64(c);
#include "../sim/counters.def"
        }
    }
}

/* The spatial counters of the last n counter records (MS_RAW_SPATIAL). */
static void parse_spatial(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    if (c->bad || n > raw->ncounters) {
        c->bad = 1;
        return;
    }
    for (size_t i = raw->ncounters - n; i < raw->ncounters && !c->bad; i++) {
        ms_counters *k = &raw->counters[i].c;
#define MS_SPATIAL_COUNTER(member) k->member = get_u64(c);
#include "../sim/counters.def"
        k->l1_ref_bits = get_u64(c);
    }
}

static void parse_evictions(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_eviction *e = grow_records(c, n, 20, (void **)&raw->evictions, &raw->nevictions, sizeof *e);
    for (uint32_t i = 0; e && i < n && !c->bad; i++) {
        e[i].victim_ctx = get_u32(c);
        e[i].evictor_ctx = get_u32(c);
        e[i].level = get_u32(c);
        e[i].count = get_u64(c);
    }
}

static void parse_notes(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    char **s = grow_records(c, n, 2, (void **)&raw->notes, &raw->nnotes, sizeof *s);
    for (uint32_t i = 0; s && i < n && !c->bad; i++) s[i] = get_str(c);
}

/* MS_RAW_DESTS: allocation destination records, kept as text (the analysis parses them). */
static void parse_dests(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    if (n == 0 || c->bad) return;
    size_t have = raw->ndests;
    uint64_t *pcs = NULL;
    if (!c->bad && (uint64_t)n * 18 <= remaining(c)) {
        pcs = realloc(raw->dest_pcs, 2 * (have + n) * sizeof *pcs);
        if (pcs) raw->dest_pcs = pcs;
    }
    char **s = pcs ? grow_records(c, n, 18, (void **)&raw->dests, &raw->ndests, sizeof *s) : NULL;
    if (!s) c->bad = 1;
    for (uint32_t i = 0; s && i < n && !c->bad; i++) {
        pcs[2 * (have + i)] = get_u64(c);
        pcs[2 * (have + i) + 1] = get_u64(c);
        s[i] = get_str(c);
    }
}

static void parse_blocks(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_block *b = grow_records(c, n, 36, (void **)&raw->blocks, &raw->nblocks, sizeof *b);
    for (uint32_t i = 0; b && i < n && !c->bad; i++) {
        b[i].pc = get_u64(c);
        b[i].loop = get_u32(c);
        b[i].memops = get_u32(c);
        b[i].stmts = get_u32(c);
        b[i].first_line = get_u32(c);
        b[i].last_line = get_u32(c);
        b[i].count = get_u64(c);
    }
}

static void parse_calls(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_call *x = grow_records(c, n, 20, (void **)&raw->calls, &raw->ncalls, sizeof *x);
    for (uint32_t i = 0; x && i < n && !c->bad; i++) {
        x[i].caller_block = get_u32(c);
        x[i].callee_pc = get_u64(c);
        x[i].count = get_u64(c);
    }
}

/* MS_RAW_PLAIN_PCS: plain-copy pcs of blocks already read (ids out of range are ignored). */
static void parse_plain_pcs(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint32_t id = get_u32(c);
        uint64_t pc = get_u64(c);
        if (!c->bad && id < raw->nblocks) raw->blocks[id].plain_pc = pc;
    }
}

static void parse_loops(cursor *c, ms_raw *raw)
{
    uint32_t n = get_u32(c);
    ms_raw_loop *l = grow_records(c, n, 20, (void **)&raw->loops, &raw->nloops, sizeof *l);
    for (uint32_t i = 0; l && i < n && !c->bad; i++) {
        l[i].parent = get_u32(c);
        l[i].depth = get_u32(c);
        l[i].header = get_u32(c);
        l[i].pc = get_u64(c);
    }
}

/* MS_RAW_SAMPLES: the timing run's sampled pcs. */
static void parse_samples(cursor *c, ms_raw *raw)
{
    raw->sample_period_ns = get_u64(c);
    raw->samples_lost = get_u64(c);
    raw->samples_runtime = get_u64(c);
    uint32_t n = get_u32(c);
    ms_raw_sample *s = grow_records(c, n, 16, (void **)&raw->samples, &raw->nsamples, sizeof *s);
    for (uint32_t i = 0; s && i < n && !c->bad; i++) {
        s[i].pc = get_u64(c);
        s[i].count = get_u64(c);
    }
}

/* MS_RAW_STREAMS: the directory of the run's per-thread streams (the last section wins). */
static void parse_streams(cursor *c, ms_raw *raw)
{
    free(raw->streams_dir);
    raw->streams_dir = get_str(c);
}

/* Parse one complete section payload. Returns 0, or -1 if the payload is malformed. */
static int parse_section(uint32_t tag, const unsigned char *payload, size_t len, ms_raw *raw)
{
    cursor c = { payload, len, 0, 0 };
    switch (tag) {
    case MS_RAW_INFO: parse_info(&c, raw); break;
    case MS_RAW_MODULES: parse_modules(&c, raw); break;
    case MS_RAW_BINS: parse_bins(&c, raw); break;
    case MS_RAW_CONTEXTS: parse_contexts(&c, raw); break;
    case MS_RAW_COUNTERS: parse_counters(&c, raw); break;
    case MS_RAW_EVICTIONS: parse_evictions(&c, raw); break;
    case MS_RAW_SPATIAL: parse_spatial(&c, raw); break;
    case MS_RAW_NOTES: parse_notes(&c, raw); break;
    case MS_RAW_STREAMS: parse_streams(&c, raw); break;
    case MS_RAW_BLOCKS: parse_blocks(&c, raw); break;
    case MS_RAW_LOOPS: parse_loops(&c, raw); break;
    case MS_RAW_SAMPLES: parse_samples(&c, raw); break;
    case MS_RAW_CALLS: parse_calls(&c, raw); break;
    case MS_RAW_PLAIN_PCS: parse_plain_pcs(&c, raw); break;
    case MS_RAW_DESTS: parse_dests(&c, raw); break;
    case MS_RAW_HEAP_LAYOUT: parse_heap_layout(&c, raw); break;
    default: break; /* unknown tag: skipped by contract */
    }
    return c.bad ? -1 : 0;
}

/* Parse a whole file image. Sections are located first so the checksum is verified before
 * any payload is trusted; without a trailer, every complete section is still used. */
static int parse_image(const unsigned char *img, size_t size, ms_raw *raw, char *err, size_t errlen)
{
    cursor c = { img, size, 0, 0 };
    const unsigned char *magic;
    if (take(&c, 8, &magic) != 0 || memcmp(magic, MS_RAW_MAGIC, 8) != 0)
        return ms_errorf(err, errlen, "not a memspy raw profile");
    raw->version = get_u32(&c);
    raw->flags = get_u32(&c);
    if (c.bad) return ms_errorf(err, errlen, "not a memspy raw profile");
    if (raw->version > MS_RAW_VERSION)
        return ms_errorf(err, errlen, "written by a newer memspy (raw version %u)", raw->version);
    if (raw->version == 0) return ms_errorf(err, errlen, "not a memspy raw profile (raw version 0)");

    /* Pass 1: find the end of the last complete section and the trailer, if any. */
    size_t sections_end = c.pos;
    int have_trailer = 0;
    while (remaining(&c) >= SECTION_HEADER_BYTES) {
        size_t at = c.pos;
        uint32_t tag = get_u32(&c);
        (void)get_u32(&c);
        uint64_t len = get_u64(&c);
        if (len > remaining(&c)) break; /* runs past EOF: truncated */
        if (tag == MS_RAW_END) {
            if (len != 4) return ms_errorf(err, errlen, "corrupt: bad trailer at offset %zu", at);
            uint32_t stored = get_u32(&c);
            uint32_t crc = (uint32_t)crc32_z(0L, img, at);
            if (stored != crc) return ms_errorf(err, errlen, "corrupt: checksum mismatch");
            have_trailer = 1;
            break;
        }
        c.pos += (size_t)len;
        sections_end = c.pos;
    }
    raw->truncated = !have_trailer;

    /* Pass 2: parse the complete sections. */
    c.pos = FILE_HEADER_BYTES;
    while (c.pos < sections_end) {
        size_t at = c.pos;
        uint32_t tag = get_u32(&c);
        (void)get_u32(&c);
        size_t len = (size_t)get_u64(&c);
        if (parse_section(tag, img + c.pos, len, raw) != 0)
            return ms_errorf(err, errlen, "corrupt: malformed section %u at offset %zu", tag, at);
        c.pos += len;
    }
    return 0;
}

/* The largest raw profile read (its streams live in separate files): stops a device or a
 * runaway file from being read without end. */
#define MS_RAW_MAX_BYTES (1u << 30)

static int read_whole_file(const char *path, unsigned char **out, size_t *size, char *err, size_t errlen)
{
    char *buf;
    switch (ms_read_file(path, MS_RAW_MAX_BYTES, &buf, size)) {
    case MS_READ_OK: *out = (unsigned char *)buf; return 0;
    case MS_READ_OPEN: return ms_errorf(err, errlen, "cannot open %s: %s", path, strerror(errno));
    case MS_READ_TOO_BIG:
        return ms_errorf(err, errlen, "%s is larger than the %u MiB a raw profile may have", path,
                         MS_RAW_MAX_BYTES >> 20);
    case MS_READ_NOMEM: return ms_errorf(err, errlen, "out of memory reading %s", path);
    default: return ms_errorf(err, errlen, "cannot read %s", path);
    }
}

int ms_raw_read(const char *path, ms_raw *raw, char *err, size_t errlen)
{
    memset(raw, 0, sizeof *raw);
    unsigned char *img = NULL;
    size_t size = 0;
    if (read_whole_file(path, &img, &size, err, errlen) != 0) return -1;
    int rc = parse_image(img, size, raw, err, errlen);
    free(img);
    if (rc != 0) ms_raw_free(raw);
    return rc;
}

int ms_raw_add_note(ms_raw *raw, const char *fmt, ...)
{
    char **notes = realloc(raw->notes, (raw->nnotes + 1) * sizeof *notes);
    if (!notes) return -1;
    raw->notes = notes;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&notes[raw->nnotes], fmt, ap);
    va_end(ap);
    if (n < 0) return -1;
    raw->nnotes++;
    return 0;
}

void ms_raw_free(ms_raw *raw)
{
    if (!raw) return;
    free(raw->config_text);
    free(raw->exe);
    for (size_t i = 0; i < raw->nmodules; i++) free(raw->modules[i].path);
    free(raw->modules);
    for (size_t i = 0; i < raw->nbins; i++) {
        free(raw->bins[i].path);
        free(raw->bins[i].name);
    }
    free(raw->bins);
    free(raw->contexts);
    free(raw->counters);
    free(raw->evictions);
    for (size_t i = 0; i < raw->nnotes; i++) free(raw->notes[i]);
    free(raw->notes);
    free(raw->invalidations);
    free(raw->threads);
    for (size_t i = 0; i < raw->nwait_points; i++) {
        free(raw->wait_points[i].extra);
        free(raw->wait_points[i].stall);
        free(raw->wait_points[i].paths);
        free(raw->wait_points[i].by_cpu);
    }
    free(raw->wait_points);
    free(raw->interleave);
    free(raw->streams_dir);
    free(raw->blocks);
    free(raw->loops);
    free(raw->samples);
    free(raw->calls);
    for (size_t i = 0; i < raw->ndests; i++) free(raw->dests[i]);
    free(raw->dests);
    free(raw->dest_pcs);
    memset(raw, 0, sizeof *raw);
}
