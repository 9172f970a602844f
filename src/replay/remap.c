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
    rm->lo = malloc(rm->nctx * sizeof *rm->lo);
    rm->hi = calloc(rm->nctx, sizeof *rm->hi);
    rm->ctx_bin = calloc(rm->nctx, sizeof *rm->ctx_bin);
    if (!rm->lo || !rm->hi || !rm->ctx_bin) {
        ms_remap_free(rm);
        return -1;
    }
    for (uint32_t i = 0; i < rm->nctx; i++) rm->lo[i] = UINT64_MAX;
    return 0;
}

void ms_remap_free(ms_remap *rm)
{
    free(rm->lo);
    free(rm->hi);
    free(rm->ctx_bin);
    free(rm->bins);
    memset(rm, 0, sizeof *rm);
}

long ms_remap_add(ms_remap *rm, const ms_remap_bin *spec)
{
    ms_remap_bin *v = realloc(rm->bins, (rm->nbins + 1) * sizeof *v);
    if (!v) return -1;
    rm->bins = v;
    v[rm->nbins] = *spec;
    return (long)rm->nbins++;
}

void ms_remap_bind(ms_remap *rm, uint32_t ctx, size_t bin)
{
    if (ctx < rm->nctx && bin < rm->nbins) rm->ctx_bin[ctx] = (uint32_t)bin + 1;
}

static uint64_t round_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* The bin's observed span: the union of its contexts'. */
static void bin_span(const ms_remap *rm, size_t bin, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (uint32_t c = 0; c < rm->nctx; c++) {
        if (rm->ctx_bin[c] != bin + 1 || rm->lo[c] >= rm->hi[c]) continue;
        if (rm->lo[c] < *lo) *lo = rm->lo[c];
        if (rm->hi[c] > *hi) *hi = rm->hi[c];
    }
    if (*lo >= *hi) *lo = *hi = 0;
}

int ms_remap_plan(ms_remap *rm, char *err, size_t errlen)
{
    uint64_t next = MS_REMAP_FRESH;
    for (size_t i = 0; i < rm->nbins; i++) {
        ms_remap_bin *b = &rm->bins[i];
        uint64_t a = b->align > 1 ? b->align : 1;
        if (a & (a - 1)) {
            snprintf(err, errlen, "alignment %llu is not a power of two", (unsigned long long)a);
            return -1;
        }
        if (a > MS_REMAP_FRESH / 4) {
            snprintf(err, errlen, "alignment %llu is too large", (unsigned long long)a);
            return -1;
        }
        if (b->pad && !b->elem) {
            snprintf(err, errlen, "padding needs the element size");
            return -1;
        }
        if (b->pad && b->pad < b->elem) {
            snprintf(err, errlen, "padding to %llu bytes is less than the element's %llu", (unsigned long long)b->pad,
                     (unsigned long long)b->elem);
            return -1;
        }
        bin_span(rm, i, &b->lo, &b->hi);
        uint64_t span = b->hi - b->lo;
        if (b->elem) {
            b->elements = (span + b->elem - 1) / b->elem;
            b->stride = b->pad ? b->pad : b->elem;
            if (b->align_elements) b->stride = round_up(b->stride, a);
        } else {
            b->elements = span ? 1 : 0;
            b->stride = span;
        }
        uint64_t step = a > MS_REMAP_COLOUR ? a : MS_REMAP_COLOUR;
        uint64_t start = round_up(next, step);
        uint64_t base = round_up(start + b->lo % MS_REMAP_COLOUR, a);
        uint64_t back = b->offset < 0 ? (uint64_t)-(b->offset + 1) + 1 : 0;
        if (back > MS_REMAP_FRESH / 4 || (b->offset > 0 && (uint64_t)b->offset > MS_REMAP_FRESH / 4)) {
            snprintf(err, errlen, "offset %lld is too large", (long long)b->offset);
            return -1;
        }
        while (base - start < back) base += step; /* a negative offset stays in the slot */
        b->base = base + (uint64_t)b->offset;
        next = b->base + b->elements * b->stride;
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
