/* Memory that is no heap block, global, thread-local variable or frame of the accessing
 * thread: the regions the program mapped itself (mmap.c registers them), the stacks of other
 * threads, and what is left, by mapping (/proc/self/maps). The hot path sends an access here
 * (through ms_resolve_bin) only when the shadow map holds no bin for its address; answers that
 * do not change with time (a region, a mapping) are written into the shadow for the 64 KiB
 * around the address (within the region), so that each costs one lookup. An access to another thread's stack is
 * attributed to the frame of the owner that holds the address (a shared stack variable is one
 * bin of its owner's frame); those pages are never filled, since frames come and go.
 *
 * The region table and the mapping table are changed under one lock (the program's
 * mmap/munmap/mremap, a new read of /proc/self/maps) and read without it: a sequence count,
 * odd while a change is under way, tells a reader whether what it read is one state of the
 * tables (a seqlock); a reader that met a change reads again under the lock. Every field read
 * without the lock is loaded and stored with relaxed atomics, the count loaded with acquire and
 * fenced (acquire) before its second load, C11's seqlock: race-free in its memory model, not
 * only on x86 (test_rt_regions: a writer against readers). Arrays replaced
 * when a table grows stay mapped (each at most half the next), so a reader never touches
 * unmapped memory. A lookup that fills the shadow still takes the lock, so that a fill and a
 * removal's clear cannot cross. /proc/self/maps is read again only when an address is in no
 * mapping of the copy at hand. */
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

/* A table's array with its capacity (fixed once published). */
typedef struct {
    size_t cap;
    region r[];
} region_array;

static pthread_mutex_t regions_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned tables_seq;   /* odd while a writer (holding the lock) changes a table */
static region_array *regions; /* sorted by address, disjoint */
static size_t nregions;

/* A line of /proc/self/maps: [lo, hi) and its label (path, "[heap]", ...; "" anonymous). */
typedef struct {
    uintptr_t lo, hi;
    uint32_t label, label_len;
    int readonly; /* readable only (r--), not written or run */
} mapping;

typedef struct {
    size_t cap;
    mapping m[];
} mapping_array;

typedef struct {
    size_t cap;
    char c[];
} text_array;

static mapping_array *maps; /* sorted by address (the kernel's order) */
static size_t nmaps;
static text_array *maps_text; /* the file's text; labels point into it */

/* ---- the seqlock ---- */

#define RELAXED __ATOMIC_RELAXED

/* A writer (lock held) starts changing the tables. */
static void change_begin(void)
{
    __atomic_store_n(&tables_seq, tables_seq + 1, RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}

/* ... and is done. */
static void change_end(void) { __atomic_store_n(&tables_seq, tables_seq + 1, __ATOMIC_RELEASE); }

/* A reader starts: the count to check at its end, or 1 (odd) while a change is under way. */
static unsigned read_begin(void) { return __atomic_load_n(&tables_seq, __ATOMIC_ACQUIRE); }

/* Whether what the reader read since read_begin gave seq is one state of the tables. */
static int read_valid(unsigned seq)
{
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return !(seq & 1) && __atomic_load_n(&tables_seq, RELAXED) == seq;
}

/* ---- the program's regions ---- */

/* Region i's fields, written for readers without the lock (lock held). */
static void region_put(size_t i, uintptr_t lo, uintptr_t hi, uint32_t bin)
{
    region *r = &regions->r[i];
    __atomic_store_n(&r->lo, lo, RELAXED);
    __atomic_store_n(&r->hi, hi, RELAXED);
    __atomic_store_n(&r->bin, bin, RELAXED);
}

/* Regions [from, n) moved by one place up (by > 0) or down, nregions set to n + by. */
static void regions_shift(size_t from, size_t n, int by)
{
    if (by > 0) {
        for (size_t k = n; k > from; k--)
            region_put(k, regions->r[k - 1].lo, regions->r[k - 1].hi, regions->r[k - 1].bin);
    } else {
        for (size_t k = from; k < n; k++) region_put(k - 1, regions->r[k].lo, regions->r[k].hi, regions->r[k].bin);
    }
    __atomic_store_n(&nregions, by > 0 ? n + 1 : n - 1, RELAXED);
}

/* Index in a (n entries, relaxed loads) of the region holding addr, -1 if none. */
static long region_search(const region_array *a, size_t n, uintptr_t addr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (__atomic_load_n(&a->r[mid].hi, RELAXED) <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && __atomic_load_n(&a->r[lo].lo, RELAXED) <= addr ? (long)lo : -1;
}

/* Index of the region holding addr, -1 if none (lock held). */
static long region_at(uintptr_t addr) { return regions ? region_search(regions, nregions, addr) : -1; }

/* The bin of the region holding addr without the lock: 1 and *bin, 0 if none, -1 if the
 * table changed meanwhile (read it again under the lock). */
static int region_peek(uintptr_t addr, uint32_t *bin)
{
    unsigned seq = read_begin();
    const region_array *a = __atomic_load_n(&regions, __ATOMIC_ACQUIRE);
    size_t n = __atomic_load_n(&nregions, RELAXED);
    long i = -1;
    *bin = 0;
    if (a) {
        if (n > a->cap) n = a->cap; /* a torn read: rejected below */
        i = region_search(a, n, addr);
        if (i >= 0) *bin = __atomic_load_n(&a->r[i].bin, RELAXED);
    }
    if (!read_valid(seq)) return -1;
    return i >= 0;
}

/* Room for `more` regions (lock held). 0 or -1. The old array stays mapped for readers. */
static int regions_reserve(size_t more)
{
    size_t have = regions ? regions->cap : 0;
    if (nregions + more <= have) return 0;
    size_t cap = have ? have * 2 : 256;
    while (cap < nregions + more) cap *= 2;
    region_array *bigger = ms_map(sizeof *bigger + cap * sizeof bigger->r[0]);
    if (!bigger) return -1;
    bigger->cap = cap;
    if (regions) ms_memcpy(bigger->r, regions->r, nregions * sizeof regions->r[0]);
    __atomic_store_n(&regions, bigger, __ATOMIC_RELEASE);
    return 0;
}

/* Cut [lo, hi) out of the table, giving the bytes back to their bins (lock held). A region
 * split in two needs one more entry: without memory its tail is dropped. */
static void cut_locked(uintptr_t lo, uintptr_t hi)
{
    for (size_t i = 0; i < nregions;) {
        region r = regions->r[i];
        if (r.hi <= lo || r.lo >= hi) {
            i++;
            continue;
        }
        uintptr_t cut_lo = r.lo > lo ? r.lo : lo, cut_hi = r.hi < hi ? r.hi : hi;
        ms_bins_heap_free(r.bin, cut_hi - cut_lo);
        if (r.lo < lo && r.hi > hi && regions_reserve(1) == 0) { /* split */
            regions_shift(i + 1, nregions, 1);
            region_put(i + 1, hi, r.hi, r.bin);
            region_put(i, r.lo, lo, r.bin);
            i += 2;
        } else if (r.lo < lo) {
            region_put(i, r.lo, lo, r.bin);
            i++;
        } else if (r.hi > hi) {
            region_put(i, hi, r.hi, r.bin);
            i++;
        } else {
            regions_shift(i + 1, nregions, -1);
        }
    }
}

void ms_regions_add(uintptr_t lo, size_t len, uint32_t bin, size_t moved_from)
{
    if (!len) return;
    uintptr_t hi = lo + len;
    ms_shadow_clear(lo, len); /* whatever the addresses held before */
    pthread_mutex_lock(&regions_lock);
    change_begin();
    cut_locked(lo, hi);
    if (bin && regions_reserve(1) == 0) {
        size_t i = 0;
        while (i < nregions && regions->r[i].lo < lo) i++;
        regions_shift(i, nregions, 1);
        region_put(i, lo, hi, bin);
        if (moved_from)
            ms_bins_heap_resize(bin, len > moved_from ? len - moved_from : 0, len);
        else
            ms_bins_heap_alloc(bin, len, len);
    }
    change_end();
    pthread_mutex_unlock(&regions_lock);
}

void ms_regions_remove(uintptr_t lo, size_t len)
{
    if (!len) return;
    pthread_mutex_lock(&regions_lock);
    change_begin();
    cut_locked(lo, lo + len);
    change_end();
    pthread_mutex_unlock(&regions_lock);
    ms_shadow_clear(lo, len);
}

uint32_t ms_regions_bin_of(uintptr_t addr)
{
    uint32_t bin;
    if (region_peek(addr, &bin) >= 0) return bin;
    pthread_mutex_lock(&regions_lock);
    long i = region_at(addr);
    bin = i < 0 ? 0 : regions->r[i].bin;
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

/* The bin of remembered frame c of another thread, if addr is in it and the frame is still
 * the owner's. 0 if not. */
static uint32_t other_frame_bin(const ms_other_frame *c, uintptr_t addr)
{
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

/* The bin of addr if it lies in one of the frames of other threads that t accessed last (a
 * shared variable read in a loop costs a few loads, not a walk of all threads). 0 if not. */
static uint32_t last_other_frame(ms_thread *t, uintptr_t addr)
{
    for (unsigned k = 0; k < MS_OTHER_FRAMES; k++) {
        uint32_t bin = other_frame_bin(&t->data->other_frame[k], addr);
        if (bin) return bin;
    }
    return 0;
}

/* Remember frame f (latest first; the oldest is forgotten). */
static void remember_other_frame(ms_thread *t, const ms_other_frame *f)
{
    ms_other_frame *c = t->data->other_frame;
    for (unsigned k = MS_OTHER_FRAMES - 1; k > 0; k--) c[k] = c[k - 1];
    c[0] = *f;
}

static void check_stack(ms_thread_data *d, void *ud)
{
    stack_query *q = ud;
    /* one load (the owner may exit meanwhile and clear it); acquire: its stack bounds, set
     * before it was published (ms_thread_enter_slow) */
    uint32_t *nev = __atomic_load_n(&d->nev_p, __ATOMIC_ACQUIRE);
    if (!nev) return;
    ms_thread *o = (ms_thread *)(void *)((char *)nev - offsetof(ms_thread, nev));
    uintptr_t lo = __atomic_load_n(&o->stack_lo, __ATOMIC_RELAXED);
    uintptr_t span = __atomic_load_n(&o->stack_span, __ATOMIC_RELAXED);
    uintptr_t from = q->addr & ~(FILL_SPAN - 1);
    if (from < lo + span && from + FILL_SPAN > lo) q->near_stack = 1;
    if (!q->bin && o != q->self && q->addr - lo < span) {
        ms_other_frame found = { 0 };
        q->bin = ms_stack_bin_other(q->self, o, d, q->addr, &found);
        if (found.owner) remember_other_frame(q->self, &found);
    }
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

/* Read /proc/self/maps again (lock held, inside change_begin/change_end). 0 or -1. Grown
 * arrays replace the old ones, which stay mapped for readers. */
static int read_maps_locked(void)
{
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t used = 0;
    for (;;) {
        size_t have = maps_text ? maps_text->cap : 0;
        if (used + 4096 > have) {
            size_t cap = have ? have * 2 : 65536;
            text_array *bigger = ms_map(sizeof *bigger + cap);
            if (!bigger) break;
            bigger->cap = cap;
            if (maps_text) ms_memcpy(bigger->c, maps_text->c, used);
            __atomic_store_n(&maps_text, bigger, __ATOMIC_RELEASE);
        }
        /* readers copy labels out of the text with atomic loads while this rewrites it:
         * through a buffer, stored byte by byte with atomic stores (read() would write it
         * plainly, a data race with them) */
        char buf[4096];
        ssize_t n = read(fd, buf, sizeof buf);
        if (n <= 0) break;
        for (ssize_t j = 0; j < n; j++) __atomic_store_n(&maps_text->c[used + (size_t)j], buf[j], RELAXED);
        used += (size_t)n;
    }
    close(fd);
    size_t count = 0;
    const char *text = maps_text ? maps_text->c : "";
    for (const char *p = text, *end = text + used; p < end;) {
        const char *eol = p;
        while (eol < end && *eol != '\n') eol++;
        size_t have = maps ? maps->cap : 0;
        if (count == have) {
            size_t cap = have ? have * 2 : 512;
            mapping_array *bigger = ms_map(sizeof *bigger + cap * sizeof bigger->m[0]);
            if (!bigger) break;
            bigger->cap = cap;
            if (maps) ms_memcpy(bigger->m, maps->m, count * sizeof maps->m[0]);
            __atomic_store_n(&maps, bigger, __ATOMIC_RELEASE);
        }
        mapping m;
        m.lo = hex(&p, eol);
        if (p < eol) p++; /* '-' */
        m.hi = hex(&p, eol);
        while (p < eol && *p == ' ') p++;
        m.readonly = eol - p >= 3 && p[0] == 'r' && p[1] == '-' && p[2] == '-';
        /* perms, offset, dev, inode, then the label (possibly empty) */
        for (int field = 0; field < 4; field++) {
            while (p < eol && *p == ' ') p++;
            while (p < eol && *p != ' ') p++;
        }
        while (p < eol && *p == ' ') p++;
        m.label = (uint32_t)(p - text);
        m.label_len = (uint32_t)(eol - p);
        if (m.hi > m.lo) {
            mapping *to = &maps->m[count++];
            __atomic_store_n(&to->lo, m.lo, RELAXED);
            __atomic_store_n(&to->hi, m.hi, RELAXED);
            __atomic_store_n(&to->label, m.label, RELAXED);
            __atomic_store_n(&to->label_len, m.label_len, RELAXED);
            __atomic_store_n(&to->readonly, m.readonly, RELAXED);
        }
        p = eol + 1;
    }
    __atomic_store_n(&nmaps, count, RELAXED);
    return 0;
}

/* The label (MS_RAW_LABEL_READONLY and the path for a file mapped read-only, "[anon]" for an
 * anonymous mapping) and bounds of the mapping of the copy at hand holding addr: 1, 0 if none,
 * -1 if the copy read was torn (relaxed loads: without the lock, read_valid decides). */
static int mapping_find(uintptr_t addr, char *label, size_t size, uintptr_t *lo, uintptr_t *hi)
{
    const mapping_array *a = __atomic_load_n(&maps, __ATOMIC_ACQUIRE);
    const text_array *tx = __atomic_load_n(&maps_text, __ATOMIC_ACQUIRE);
    size_t n = __atomic_load_n(&nmaps, RELAXED);
    if (!a || !tx) return 0;
    if (n > a->cap) return -1;
    size_t l = 0, h = n;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (__atomic_load_n(&a->m[mid].hi, RELAXED) <= addr)
            l = mid + 1;
        else
            h = mid;
    }
    if (l >= n || __atomic_load_n(&a->m[l].lo, RELAXED) > addr) return 0;
    const mapping *m = &a->m[l];
    size_t at = __atomic_load_n(&m->label, RELAXED), len = __atomic_load_n(&m->label_len, RELAXED);
    if (at > tx->cap || len > tx->cap - at) return -1;
    const char *src = tx->c + at;
    /* a file mapped read-only (a module's .rodata): MS_RAW_LABEL_READONLY and its path */
    size_t pre = __atomic_load_n(&m->readonly, RELAXED) && len && __atomic_load_n(&src[0], RELAXED) == '/'
                     ? sizeof MS_RAW_LABEL_READONLY - 1
                     : 0;
    size_t k = len < size - 1 - pre ? len : size - 1 - pre;
    ms_memcpy(label, MS_RAW_LABEL_READONLY, pre);
    for (size_t j = 0; j < k; j++) label[pre + j] = __atomic_load_n(&src[j], RELAXED);
    k += pre;
    label[k] = 0;
    if (k == 0) ms_memcpy(label, "[anon]", 7);
    *lo = __atomic_load_n(&m->lo, RELAXED);
    *hi = __atomic_load_n(&m->hi, RELAXED);
    return 1;
}

/* The MAPPING bin of addr and the mapping's bounds; 0 if no mapping holds it. Without the
 * lock where the copy at hand holds addr; under it to read the copy again. */
static uint32_t mapping_bin(ms_thread *t, uintptr_t addr, uintptr_t *lo, uintptr_t *hi)
{
    char label[512];
    unsigned seq = read_begin();
    int found = mapping_find(addr, label, sizeof label, lo, hi);
    if (found <= 0 || !read_valid(seq)) {
        pthread_mutex_lock(&regions_lock);
        found = mapping_find(addr, label, sizeof label, lo, hi);
        if (found <= 0) {
            change_begin();
            int ok = read_maps_locked() == 0;
            change_end();
            found = ok && mapping_find(addr, label, sizeof label, lo, hi) > 0;
        }
        pthread_mutex_unlock(&regions_lock);
    }
    return found > 0 ? ms_bins_mapping(t, label) : 0;
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
    if (region_peek(addr, &bin) != 0) { /* a region (its fill under the lock) or a change */
        pthread_mutex_lock(&regions_lock);
        long r = region_at(addr);
        bin = 0;
        if (r >= 0) {
            bin = regions->r[r].bin;
            fill_page(addr, regions->r[r].lo, regions->r[r].hi, bin);
        }
        pthread_mutex_unlock(&regions_lock);
    }
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
