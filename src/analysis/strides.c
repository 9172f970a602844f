/* Row strides from a recording's references (strides.h). */
#include "strides.h"
#include <stdlib.h>
#include <string.h>

int ms_strides_init(ms_strides *s, uint32_t max_ctx)
{
    memset(s, 0, sizeof *s);
    s->nctx = max_ctx + 1;
    s->ctx_bin = calloc(s->nctx, sizeof *s->ctx_bin);
    s->piece = calloc(s->nctx, sizeof *s->piece);
    if (s->ctx_bin && s->piece) return 0;
    ms_strides_free(s);
    return -1;
}

void ms_strides_free(ms_strides *s)
{
    free(s->ctx_bin);
    free(s->piece);
    free(s->bins);
    memset(s, 0, sizeof *s);
}

long ms_strides_add(ms_strides *s, uint32_t id)
{
    ms_stride_bin *v = realloc(s->bins, (s->nbins + 1) * sizeof *v);
    if (!v) return -1;
    s->bins = v;
    memset(&v[s->nbins], 0, sizeof *v);
    v[s->nbins].id = id;
    return (long)s->nbins++;
}

void ms_strides_bind(ms_strides *s, uint32_t ctx, size_t bin)
{
    if (ctx < s->nctx && bin < s->nbins) s->ctx_bin[ctx] = (uint32_t)bin + 1;
}

static void count(ms_stride_hist *h, uint64_t value)
{
    size_t i = (size_t)((value * 0x9e3779b97f4a7c15ull) >> 56) & (MS_STRIDE_SLOTS - 1);
    for (size_t k = 0; k < MS_STRIDE_SLOTS; k++, i = (i + 1) & (MS_STRIDE_SLOTS - 1)) {
        if (h->slot[i].value == value || !h->slot[i].value) {
            h->slot[i].value = value;
            h->slot[i].count++;
            break;
        }
    }
    h->total++;
}

void ms_strides_observe(ms_strides *s, unsigned cpu, uint32_t ctx, uint64_t addr, uint64_t size)
{
    if (ctx >= s->nctx || !s->ctx_bin[ctx] || !size) return;
    ms_stride_bin *b = &s->bins[s->ctx_bin[ctx] - 1];
    ms_stride_piece *p = &s->piece[ctx];
    if (p->open && p->cpu == cpu && addr >= p->start && addr <= p->end + MS_STRIDE_GAP) {
        if (addr + size > p->end) p->end = addr + size; /* the piece goes on */
        return;
    }
    if (p->open && p->cpu == cpu) {
        count(&b->widths, p->end - p->start);
        if (addr > p->start) count(&b->strides, addr - p->start);
    }
    p->start = addr;
    p->end = addr + size;
    p->cpu = cpu;
    p->open = 1;
}

/* The most frequent value of h if it has at least total / div of the counts, else 0. */
static uint64_t dominant(const ms_stride_hist *h, uint64_t div)
{
    const ms_stride_slot *best = NULL;
    for (size_t i = 0; i < MS_STRIDE_SLOTS; i++)
        if (h->slot[i].value && (!best || h->slot[i].count > best->count)) best = &h->slot[i];
    return best && best->count * div >= h->total ? best->value : 0;
}

void ms_strides_result(const ms_strides *s, size_t i, uint64_t *row, uint64_t *width)
{
    *row = *width = 0;
    if (i >= s->nbins) return;
    *width = dominant(&s->bins[i].widths, 4);
    *row = dominant(&s->bins[i].strides, 2);
    if (*row <= *width) *row = 0; /* pieces that overlap are no rows */
}
