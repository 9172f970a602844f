/* What the allocator moves (allocmove.h): glibc's placement of the blocks after a grown or
 * realigned one. */
#include "allocmove.h"

#define SIZE_SZ 8u
#define MINSIZE 32u

static uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

uint64_t ms_glibc_chunk(uint64_t request)
{
    uint64_t c = (request + SIZE_SZ + 15) & ~(uint64_t)15;
    return c < MINSIZE ? MINSIZE : c;
}

/* What memalign asks _int_malloc for: the chunk, the alignment and room for a split. */
static uint64_t asked(uint64_t request, uint64_t align)
{
    return align > 16 ? ms_glibc_chunk(ms_glibc_chunk(request) + align + MINSIZE) : ms_glibc_chunk(request);
}

uint64_t ms_glibc_mapping(uint64_t request, uint64_t align)
{
    return round_up(asked(request, align) + SIZE_SZ, MS_GLIBC_PAGE);
}

static int is_mapped(const ms_heap_block *b) { return (b->word & MS_GLIBC_IS_MMAPPED) != 0; }

/* The arena a recorded arena block came from: 0 for the main one (brk), else its heap. */
static uint64_t arena_of(const ms_heap_block *b)
{
    return b->word & MS_GLIBC_NON_MAIN_ARENA ? b->addr & ~(MS_GLIBC_HEAP_MAX - 1) : 0;
}

/* Whether every block of b is mapped (1), in an arena (0), or both kinds (-1). */
static int kind_of(const ms_heap_block *b)
{
    if (b->blocks <= 1) return is_mapped(b);
    return b->mapped == b->blocks ? 1 : b->mapped == 0 ? 0 : -1;
}

/* Move the bins allocated after c: the mapped ones by dmap, those of c's arena above it by
 * darena. */
static void move_later(ms_heap_block *v, size_t n, const ms_heap_block *c, int64_t dmap, int64_t darena)
{
    for (size_t j = 0; j < n; j++) {
        ms_heap_block *b = &v[j];
        if (b == c || !b->seq || b->seq <= c->seq) continue;
        int k = kind_of(b);
        if (k == 1)
            b->shift += dmap;
        else if (k == 0 && arena_of(b) == arena_of(c) && b->addr > c->addr)
            b->shift += darena;
    }
}

/* The moves one changed block causes. */
static void change(ms_heap_block *v, size_t n, ms_heap_block *c)
{
    uint64_t req = c->new_request ? c->new_request : c->request, old = c->word & ~(uint64_t)7;
    if (is_mapped(c)) {
        int64_t d = (int64_t)ms_glibc_mapping(req, c->align) - (int64_t)old;
        c->growth = d;
        c->shift -= d; /* its end stays: it starts lower */
        move_later(v, n, c, -d, 0);
    } else if (req >= MS_GLIBC_MMAP_THRESHOLD && c->request < MS_GLIBC_MMAP_THRESHOLD) {
        uint64_t map = ms_glibc_mapping(req, c->align);
        c->growth = (int64_t)map - (int64_t)old;
        c->remapped = 1;
        move_later(v, n, c, -(int64_t)map, -(int64_t)old);
    } else {
        int64_t d = (int64_t)asked(req, c->align) - (int64_t)old;
        c->growth = d;
        move_later(v, n, c, 0, d);
    }
}

void ms_glibc_moves(ms_heap_block *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i].shift = v[i].growth = 0;
        v[i].remapped = 0;
    }
    for (size_t i = 0; i < n; i++) {
        ms_heap_block *c = &v[i];
        if (!c->seq || c->blocks > 1 || (!c->new_request && c->align <= 16)) continue;
        change(v, n, c);
    }
}
