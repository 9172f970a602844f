/* What-if address remapping (remap.h): per-context spans learned from a first replay, one
 * slot of the fresh range per remapped bin, and the new address of every access. */
#include "remap.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ms_remap_init(ms_remap *rm, uint32_t max_ctx)
{
    memset(rm, 0, sizeof *rm);
    rm->nctx = max_ctx + 1;
    rm->ctx_bin = calloc(rm->nctx, sizeof *rm->ctx_bin);
    return rm->ctx_bin ? 0 : -1;
}

void ms_remap_free(ms_remap *rm)
{
    for (size_t i = 0; i < rm->nbins; i++) {
        free(rm->bins[i].seen);
        free(rm->bins[i].starts);
    }
    free(rm->ctx_bin);
    free(rm->bins);
    memset(rm, 0, sizeof *rm);
}

long ms_remap_add(ms_remap *rm, const ms_remap_bin *spec)
{
    ms_remap_bin *v = realloc(rm->bins, (rm->nbins + 1) * sizeof *v);
    if (!v) return -1;
    rm->bins = v;
    ms_remap_bin *b = &v[rm->nbins];
    memset(b, 0, sizeof *b);
    b->id = spec->id;
    b->elem = spec->elem;
    b->object = spec->object;
    b->pad = spec->pad;
    b->align = spec->align;
    b->offset = spec->offset;
    return (long)rm->nbins++;
}

void ms_remap_bind(ms_remap *rm, uint32_t ctx, size_t bin)
{
    if (ctx < rm->nctx && bin < rm->nbins) rm->ctx_bin[ctx] = (uint32_t)bin + 1;
}

/* The granule set: open addressing, keys granule + 1 (0 = empty), at most half full. */
static size_t slot_of(uint64_t key, size_t cap)
{
    key *= 0x9e3779b97f4a7c15ull;
    return (size_t)(key >> 17) & (cap - 1);
}

static int seen_insert(uint64_t *v, size_t cap, uint64_t key)
{
    size_t i = slot_of(key, cap);
    while (v[i] && v[i] != key) i = (i + 1) & (cap - 1);
    if (v[i]) return 0;
    v[i] = key;
    return 1;
}

void ms_remap_seen(ms_remap *rm, ms_remap_bin *b, uint64_t addr)
{
    uint64_t key = (addr >> 4) + 1;
    if (2 * (b->nseen + 1) > b->capseen) {
        size_t cap = b->capseen ? 2 * b->capseen : 64;
        uint64_t *v = calloc(cap, sizeof *v);
        if (!v) {
            rm->failed = 1;
            return;
        }
        for (size_t i = 0; i < b->capseen; i++)
            if (b->seen[i]) seen_insert(v, cap, b->seen[i]);
        free(b->seen);
        b->seen = v;
        b->capseen = cap;
    }
    b->nseen += (size_t)seen_insert(b->seen, b->capseen, key);
}

static uint64_t round_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

/* An object bin's allocations: each starts at the first granule touched at or past the end
 * of the previous one. Returns 0 or -1 (out of memory). */
static int find_objects(ms_remap_bin *b)
{
    uint64_t *g = malloc((b->nseen ? b->nseen : 1) * sizeof *g);
    if (!g) return -1;
    size_t n = 0;
    for (size_t i = 0; i < b->capseen; i++)
        if (b->seen[i]) g[n++] = (b->seen[i] - 1) << 4;
    qsort(g, n, sizeof *g, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || g[i] >= g[k - 1] + b->object) g[k++] = g[i];
    if (k) g[0] = b->lo; /* the first allocation starts at the lowest byte touched */
    b->starts = g;
    b->elements = k;
    return 0;
}

int ms_remap_plan(ms_remap *rm, char *err, size_t errlen)
{
    uint64_t next = MS_REMAP_FRESH;
    if (rm->failed) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < rm->nbins; i++) {
        ms_remap_bin *b = &rm->bins[i];
        uint64_t a = b->align > 1 ? b->align : 1, unit = b->object ? b->object : b->elem;
        if (a & (a - 1)) {
            snprintf(err, errlen, "alignment %llu is not a power of two", (unsigned long long)a);
            return -1;
        }
        if (a > MS_REMAP_FRESH / 4 || (b->offset < 0 ? -(b->offset + 1) : b->offset) >= (int64_t)(MS_REMAP_FRESH / 4)) {
            snprintf(err, errlen, "alignment or offset too large");
            return -1;
        }
        if (b->pad && !unit) {
            snprintf(err, errlen, "padding needs the element size");
            return -1;
        }
        if (b->pad && b->pad < unit) {
            snprintf(err, errlen, "padding to %llu bytes is less than the element's %llu", (unsigned long long)b->pad,
                     (unsigned long long)unit);
            return -1;
        }
        if (b->lo >= b->hi) b->lo = b->hi = 0;
        uint64_t span = b->hi - b->lo;
        if (b->object) {
            if (find_objects(b) < 0) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            b->stride = round_up(b->pad ? b->pad : b->object, a);
        } else if (b->elem) {
            b->elements = (span + b->elem - 1) / b->elem;
            b->stride = b->pad ? b->pad : b->elem;
        } else {
            b->elements = span ? 1 : 0;
            b->stride = span;
        }
        uint64_t step = a > MS_REMAP_COLOUR ? a : MS_REMAP_COLOUR;
        uint64_t start = round_up(next, step);
        uint64_t base = round_up(start + b->lo % MS_REMAP_COLOUR, a);
        uint64_t back = b->offset < 0 ? (uint64_t)(-(b->offset + 1)) + 1 : 0;
        while (base - start < back) base += step; /* a negative offset stays in the slot */
        b->base = base + (uint64_t)b->offset;
        uint64_t last = b->elements ? b->elements * b->stride : 0;
        if (b->object && b->elements) last += b->hi - b->starts[b->elements - 1]; /* the last may be longer */
        next = b->base + last + 1;
    }
    rm->planned = 1;
    return 0;
}

uint64_t ms_remap_map(const ms_remap *rm, uint32_t ctx, uint64_t addr, uint64_t size, uint64_t *out)
{
    *out = addr;
    if (!rm->planned || ctx >= rm->nctx || !rm->ctx_bin[ctx]) return size;
    const ms_remap_bin *b = &rm->bins[rm->ctx_bin[ctx] - 1];
    if (addr < b->lo || addr >= b->hi) return size; /* not seen in the first replay */
    if (b->object) { /* the allocation holding addr: the last one starting at or before it */
        size_t lo = 0, hi = b->elements;
        while (hi - lo > 1) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->starts[mid] <= addr)
                lo = mid;
            else
                hi = mid;
        }
        uint64_t r = addr - b->starts[lo];
        *out = b->base + lo * b->stride + r;
        if (lo + 1 < b->elements && addr + size > b->starts[lo + 1]) return b->starts[lo + 1] - addr;
        return size;
    }
    uint64_t d = addr - b->lo;
    if (!b->elem || b->stride == b->elem) {
        *out = b->base + d;
        return size;
    }
    uint64_t i = d / b->elem, r = d % b->elem;
    *out = b->base + i * b->stride + r;
    return size < b->elem - r ? size : b->elem - r;
}

/* One term of a byte count: digits, then an optional K/M/G (with an optional "iB" or "B"). */
static int parse_term(const char **p, uint64_t *out)
{
    const char *s = *p;
    if (!isdigit((unsigned char)*s)) return -1;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno) return -1;
    unsigned shift = 0;
    switch (toupper((unsigned char)*end)) {
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    default: break;
    }
    if (shift) {
        end++;
        if (end[0] == 'i' && end[1] == 'B')
            end += 2;
        else if (end[0] == 'B')
            end++;
    }
    if (v > (UINT64_MAX >> 2) >> shift) return -1;
    *out = (uint64_t)v << shift;
    *p = end;
    return 0;
}

int ms_remap_parse_bytes(const char *s, int64_t *out)
{
    int64_t total = 0;
    int sign = 1;
    if (*s == '-') {
        sign = -1;
        s++;
    }
    for (;;) {
        uint64_t v;
        if (parse_term(&s, &v) < 0 || v > (uint64_t)INT64_MAX / 4) return -1;
        total += sign * (int64_t)v;
        if (total > INT64_MAX / 4 || total < -(INT64_MAX / 4)) return -1;
        if (!*s) break;
        if (*s != '+' && *s != '-') return -1;
        sign = *s == '+' ? 1 : -1;
        s++;
    }
    *out = total;
    return 0;
}
