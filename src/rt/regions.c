/* Memory that is no heap block, global, thread-local variable or frame of the accessing
 * thread: the regions the program mapped itself (mmap.c registers them), the stacks of other
 * threads, and what is left, by mapping (/proc/self/maps). The hot path sends an access here
 * (through ms_resolve_bin) only when the shadow map holds no bin for its address; answers that
 * do not change with time (a region, a mapping) are written into the shadow for the 64 KiB
 * around the address (within the region), so that each costs one lookup. An access to another thread's stack is
 * attributed to the frame of the owner that holds the address (a shared stack variable is one
 * bin of its owner's frame); those pages are never filled, since frames come and go.
 *
 * The region table and the mapping table take one lock, only on these slow lookups and on
 * the program's mmap/munmap/mremap. /proc/self/maps is read again only when an address is
 * in no mapping of the copy at hand. */
#include "rt.h"
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <unistd.h>

#define PAGE ((uintptr_t)4096)
/* What one lookup writes into the shadow: 16 pages (a large file read in order costs one
 * lookup per 64 KiB; the shadow written is 1/4 of it, as for a heap block). */
#define FILL_SPAN (16 * PAGE)

typedef struct {
    uintptr_t lo, hi;
    uint32_t bin;
} region;

static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;
static region *regions; /* sorted by address, disjoint */
static size_t nregions, regions_cap;

/* A line of /proc/self/maps: [lo, hi) and its label (path, "[heap]", ...; "" anonymous). */
typedef struct {
    uintptr_t lo, hi;
    uint32_t label, label_len;
    int readonly; /* readable only (r--), not written or run */
} mapping;

static mapping *maps; /* sorted by address (the kernel's order) */
static size_t nmaps, maps_cap;
static char *maps_text; /* the file's text; labels point into it */
static size_t maps_text_cap;

/* ---- the program's regions ---- */

/* Index of the region holding addr, -1 if none (lock held). */
static long region_at(uintptr_t addr)
{
    size_t lo = 0, hi = nregions;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (regions[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nregions && regions[lo].lo <= addr ? (long)lo : -1;
}

/* Room for `more` regions (lock held). 0 or -1. */
static int regions_reserve(size_t more)
{
    if (nregions + more <= regions_cap) return 0;
    size_t cap = regions_cap ? regions_cap * 2 : 256;
    while (cap < nregions + more) cap *= 2;
    region *bigger = ms_map(cap * sizeof *bigger);
    if (!bigger) return -1;
    if (regions) ms_memcpy(bigger, regions, nregions * sizeof *regions);
    ms_unmap(regions, regions_cap * sizeof *regions);
    regions = bigger;
    regions_cap = cap;
    return 0;
}

/* Cut [lo, hi) out of the table, giving the bytes back to their bins (lock held). A region
 * split in two needs one more entry: without memory its tail is dropped. */
static void cut_locked(uintptr_t lo, uintptr_t hi)
{
    for (size_t i = 0; i < nregions;) {
        region *r = &regions[i];
        if (r->hi <= lo || r->lo >= hi) {
            i++;
            continue;
        }
        uintptr_t cut_lo = r->lo > lo ? r->lo : lo, cut_hi = r->hi < hi ? r->hi : hi;
        ms_bins_heap_free(r->bin, cut_hi - cut_lo);
        if (r->lo < lo && r->hi > hi && regions_reserve(1) == 0) { /* split */
            r = &regions[i];
            for (size_t k = nregions; k > i + 1; k--) regions[k] = regions[k - 1];
            nregions++;
            regions[i + 1] = (region){ hi, r->hi, r->bin };
            r->hi = lo;
            i += 2;
        } else if (r->lo < lo) {
            r->hi = lo;
            i++;
        } else if (r->hi > hi) {
            r->lo = hi;
            i++;
        } else {
            for (size_t k = i; k + 1 < nregions; k++) regions[k] = regions[k + 1];
            nregions--;
        }
    }
}

void ms_regions_add(uintptr_t lo, size_t len, uint32_t bin, size_t moved_from)
{
    if (!len) return;
    uintptr_t hi = lo + len;
    ms_shadow_clear(lo, len); /* whatever the addresses held before */
    pthread_mutex_lock(&regions_lock);
    cut_locked(lo, hi);
    if (bin && regions_reserve(1) == 0) {
        size_t i = 0;
        while (i < nregions && regions[i].lo < lo) i++;
        for (size_t k = nregions; k > i; k--) regions[k] = regions[k - 1];
        regions[i] = (region){ lo, hi, bin };
        nregions++;
        if (moved_from)
            ms_bins_heap_resize(bin, len > moved_from ? len - moved_from : 0, len);
        else
            ms_bins_heap_alloc(bin, len, len);
    }
    pthread_mutex_unlock(&regions_lock);
}

void ms_regions_remove(uintptr_t lo, size_t len)
{
    if (!len) return;
    pthread_mutex_lock(&regions_lock);
    cut_locked(lo, lo + len);
    pthread_mutex_unlock(&regions_lock);
    ms_shadow_clear(lo, len);
}

uint32_t ms_regions_bin_of(uintptr_t addr)
{
    pthread_mutex_lock(&regions_lock);
    long i = region_at(addr);
    uint32_t bin = i < 0 ? 0 : regions[i].bin;
    pthread_mutex_unlock(&regions_lock);
    return bin;
}

/* ---- other threads' stacks ---- */

typedef struct {
    ms_thread *self;
    uintptr_t addr;
    uint32_t bin;   /* the owner's frame bin, once found */
    int near_stack; /* the FILL_SPAN of addr overlaps some thread's stack */
} stack_query;

/* The frame of another thread that t accessed last, if addr is in it and the frame is still
 * the owner's (a shared variable read in a loop costs a few loads, not a walk of all
 * threads). 0 if not. */
static uint32_t last_other_frame(ms_thread *t, uintptr_t addr)
{
    const ms_other_frame *c = &t->data->other_frame;
    if (!c->owner || addr - c->lo >= c->hi - c->lo) return 0;
    if (__atomic_load_n(&c->owner_data->nev_p, __ATOMIC_ACQUIRE) != c->owner_nev) return 0; /* it exited */
    const ms_thread *o = c->owner;
    uint32_t cap = __atomic_load_n(&o->frames_cap, __ATOMIC_ACQUIRE);
    const ms_frame *frames = __atomic_load_n(&o->frames, __ATOMIC_ACQUIRE);
    uint32_t depth = __atomic_load_n(&o->depth, __ATOMIC_ACQUIRE);
    if (!frames || c->index >= depth || c->index >= cap) return 0;
    const ms_frame *f = &frames[c->index];
    if (__atomic_load_n(&f->frame, __ATOMIC_RELAXED) != c->frame || __atomic_load_n(&f->pc, __ATOMIC_RELAXED) != c->pc)
        return 0;
    return c->bin;
}

static void check_stack(ms_thread_data *d, void *ud)
{
    stack_query *q = ud;
    if (!d->nev_p) return;
    ms_thread *o = (ms_thread *)(void *)((char *)d->nev_p - offsetof(ms_thread, nev));
    uintptr_t lo = __atomic_load_n(&o->stack_lo, __ATOMIC_RELAXED);
    uintptr_t span = __atomic_load_n(&o->stack_span, __ATOMIC_RELAXED);
    uintptr_t from = q->addr & ~(FILL_SPAN - 1);
    if (from < lo + span && from + FILL_SPAN > lo) q->near_stack = 1;
    if (!q->bin && o != q->self && q->addr - lo < span)
        q->bin = ms_stack_bin_other(q->self, o, d, q->addr, &q->self->data->other_frame);
}

/* ---- mappings ---- */

/* Parse a hexadecimal number at *p. */
static uintptr_t hex(const char **p, const char *end)
{
    uintptr_t v = 0;
    for (; *p < end; (*p)++) {
        char c = **p;
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0) break;
        v = v << 4 | (uintptr_t)d;
    }
    return v;
}

/* Read /proc/self/maps again (lock held). 0 or -1. */
static int read_maps_locked(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t used = 0;
    for (;;) {
        if (used + 4096 > maps_text_cap) {
            size_t cap = maps_text_cap ? maps_text_cap * 2 : 65536;
            char *bigger = ms_map(cap);
            if (!bigger) break;
            if (maps_text) ms_memcpy(bigger, maps_text, used);
            ms_unmap(maps_text, maps_text_cap);
            maps_text = bigger;
            maps_text_cap = cap;
        }
        ssize_t n = read(fd, maps_text + used, maps_text_cap - used);
        if (n <= 0) break;
        used += (size_t)n;
    }
    close(fd);
    nmaps = 0;
    for (const char *p = maps_text, *end = maps_text + used; p < end;) {
        const char *eol = p;
        while (eol < end && *eol != '\n') eol++;
        if (nmaps == maps_cap) {
            size_t cap = maps_cap ? maps_cap * 2 : 512;
            mapping *bigger = ms_map(cap * sizeof *bigger);
            if (!bigger) break;
            if (maps) ms_memcpy(bigger, maps, nmaps * sizeof *maps);
            ms_unmap(maps, maps_cap * sizeof *maps);
            maps = bigger;
            maps_cap = cap;
        }
        mapping *m = &maps[nmaps];
        m->lo = hex(&p, eol);
        if (p < eol) p++; /* '-' */
        m->hi = hex(&p, eol);
        while (p < eol && *p == ' ') p++;
        m->readonly = eol - p >= 3 && p[0] == 'r' && p[1] == '-' && p[2] == '-';
        /* perms, offset, dev, inode, then the label (possibly empty) */
        for (int field = 0; field < 4; field++) {
            while (p < eol && *p == ' ') p++;
            while (p < eol && *p != ' ') p++;
        }
        while (p < eol && *p == ' ') p++;
        m->label = (uint32_t)(p - maps_text);
        m->label_len = (uint32_t)(eol - p);
        if (m->hi > m->lo) nmaps++;
        p = eol + 1;
    }
    return 0;
}

/* Index of the mapping holding addr, -1 if none (lock held). */
static long mapping_at(uintptr_t addr)
{
    size_t lo = 0, hi = nmaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (maps[mid].hi <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nmaps && maps[lo].lo <= addr ? (long)lo : -1;
}

/* The MAPPING bin of addr and the mapping's bounds; 0 if no mapping holds it. */
static uint32_t mapping_bin(ms_thread *t, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    char label[512];
    pthread_mutex_lock(&regions_lock);
    long i = mapping_at(addr);
    if (i < 0 && read_maps_locked() == 0) i = mapping_at(addr);
    if (i >= 0) {
        const mapping *m = &maps[i];
        /* a file mapped read-only (a module's .rodata): MS_RAW_LABEL_READONLY and its path */
        size_t pre = m->readonly && m->label_len && maps_text[m->label] == '/' ? sizeof MS_RAW_LABEL_READONLY - 1 : 0;
        size_t n = m->label_len < sizeof label - 1 - pre ? m->label_len : sizeof label - 1 - pre;
        ms_memcpy(label, MS_RAW_LABEL_READONLY, pre);
        ms_memcpy(label + pre, maps_text + m->label, n);
        n += pre;
        label[n] = 0;
        if (n == 0) ms_memcpy(label, "[anon]", 7);
        *lo = m->lo;
        *hi = m->hi;
    }
    pthread_mutex_unlock(&regions_lock);
    return i < 0 ? 0 : ms_bins_mapping(t, label);
}

/* Write bin into the empty granules of the FILL_SPAN around addr within [lo, hi). */
static void fill_page(uintptr_t addr, uintptr_t lo, uintptr_t hi, uint32_t bin)
{
    uintptr_t span = addr & ~(FILL_SPAN - 1), from = span > lo ? span : lo;
    uintptr_t to = span + FILL_SPAN < hi ? span + FILL_SPAN : hi;
    if (to > from) ms_shadow_fill_empty(from, to - from, bin);
}

uint32_t ms_regions_bin(ms_thread *t, uintptr_t addr)
{
    uint32_t bin = last_other_frame(t, addr);
    if (bin) return bin;
    uint8_t prev = ms_busy_begin();
    pthread_mutex_lock(&regions_lock);
    long r = region_at(addr);
    if (r >= 0) {
        bin = regions[r].bin;
        fill_page(addr, regions[r].lo, regions[r].hi, bin);
    }
    pthread_mutex_unlock(&regions_lock);
    if (!bin) {
        stack_query q = { t, addr, 0, 0 };
        ms_threads_each_data(check_stack, &q);
        bin = q.bin;
        uintptr_t lo, hi;
        if (!bin && (bin = mapping_bin(t, addr, &lo, &hi)) && !q.near_stack) fill_page(addr, lo, hi, bin);
    }
    ms_busy_end(prev);
    return bin;
}
