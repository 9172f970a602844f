/* Heap interposition: the malloc family forwards to glibc's __libc_* entry points (no dlsym
 * bootstrap problem) and gives every block the HEAP bin of its allocation site and call
 * path, written into the shadow map over the block's usable size; free clears it again.
 * The C++ operator new family sets a thread-local "pending site" (the user's call site) and
 * calls the real operator new (dlsym RTLD_NEXT), so exceptions and new_handler still work
 * and the malloc underneath attributes the block to the user's code, not libstdc++'s.
 * Allocations made inside the runtime (thread mode BUSY: libelf, dlsym) are not recorded.
 * A realloc that moves a block records libc's copy (reads of the old block, writes of the
 * new, as the caller's references to the block's bin): the program's memory traffic.
 * malloc's own bookkeeping is the program's traffic too, in one bin of its own (a MAPPING
 * bin labelled MS_RAW_LABEL_HEAP_HEADERS, named heap:headers): each allocation writes the
 * chunk's size word just below the block, each free reads it and writes the free list's two
 * links (glibc's tcache `next` and `key`) into the block's first 16 bytes. */
#include "rt.h"
#include "../format/raw.h"
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);
extern void *__libc_valloc(size_t n);
extern void *__libc_pvalloc(size_t n);

#define CALLER() ((uintptr_t)__builtin_return_address(0))

/* glibc's chunk header below a block (its size word, SIZE_SZ) and the free-list links it
 * writes into a freed block (tcache: next, key). */
#define HEADER_BYTES sizeof(size_t)
#define LINK_BYTES (2 * sizeof(void *))

static uint32_t headers_bin; /* the heap:headers bin, 0 until first needed */

/* Record malloc's bookkeeping around block p (usable bytes) as a reference of the code at
 * pc: the size word (written at allocation: write_flag MS_EV_WRITE; read at free: 0), and at
 * free the links written into the block. Only for the program's own calls (pc in the
 * function of the innermost instrumented frame, or a wrapper's pending site): the blocks the
 * C library allocates for itself (stdio buffers) stay its own business. */
static void touch_header(ms_thread *t, uintptr_t p, size_t usable, uint32_t write_flag, uintptr_t pc)
{
    if (!ms_thread_can_record(t) || !t->depth) return;
    uintptr_t fn = ms_function_start(pc);
    if (!fn || fn != ms_function_start(t->frames[t->depth - 1].pc)) return; /* the C library's own block */
    if (ms_focus_skips(t)) {                                                /* outside --focus: counted as left out */
        ms_focus_count_skipped(!write_flag && usable >= LINK_BYTES ? 2 : 1);
        return;
    }
    uint32_t bin = __atomic_load_n(&headers_bin, __ATOMIC_RELAXED);
    if (!bin) {
        uint8_t prev = ms_busy_begin();
        bin = ms_bins_mapping(t, MS_RAW_LABEL_HEAP_HEADERS);
        ms_busy_end(prev);
        if (!bin) return;
        __atomic_store_n(&headers_bin, bin, __ATOMIC_RELAXED);
    }
    ms_record_range_bin(p - HEADER_BYTES, HEADER_BYTES, write_flag, pc, bin);
    if (!write_flag && usable >= LINK_BYTES) ms_record_range_bin(p, LINK_BYTES, MS_EV_WRITE, pc, bin);
}

/* Give the new block p (requested bytes) its bin; returns p. */
static void *track(void *p, size_t requested, uintptr_t caller)
{
    ms_thread *t = &ms_tls;
    if (t->mode == MS_T_BUSY) return p; /* the runtime's own allocation */
    ms_plug_sync();                     /* pending plugin records see the map before this block (plugin.c) */
    uintptr_t site = t->pending_site ? t->pending_site : caller;
    t->pending_site = 0;
    /* MTOOL's two runs (MEMSPY_MODE=count, time) simulate nothing: no block needs its bin,
     * and filling the shadow map costs a store per granule of every block (spmv's timing run:
     * 12% of its instructions; the globals likewise, globals.c); untrack and realloc then find
     * no bin and leave the block be */
    if (!p || ms_count_only || !ms_thread_can_record(t)) return p;
    uint32_t bin = ms_bins_heap(t, site);
    if (!bin) return p;
    size_t usable = malloc_usable_size(p);
    ms_shadow_fill((uintptr_t)p, usable, bin);
    ms_bins_heap_alloc(bin, requested, usable);
    ms_bins_heap_placed(bin, (uintptr_t)p, requested);
    touch_header(t, (uintptr_t)p, usable, MS_EV_WRITE, site);
    return p;
}

/* Forget block p before it goes back to libc (it may be reused at once by another thread);
 * free's bookkeeping is a reference of the code at caller. */
static void untrack(void *p, uintptr_t caller)
{
    if (!p || !ms_rt_on) return;
    if (ms_tls.mode == MS_T_READY) ms_plug_sync();
    uint32_t bin = ms_shadow_get((uintptr_t)p);
    if (!bin) return;
    size_t usable = malloc_usable_size(p);
    ms_shadow_fill((uintptr_t)p, usable, 0);
    ms_bins_heap_free(bin, usable);
    if (ms_bin_is_heap(bin)) touch_header(&ms_tls, (uintptr_t)p, usable, 0, caller);
}

/* The runtime's own callees (libelf, dlsym) allocate outside the program's heap, so that the
 * program's blocks get the addresses they get natively. */
#define RUNTIME_BUSY() MS_UNLIKELY(ms_tls.mode == MS_T_BUSY)

void *malloc(size_t n)
{
    if (RUNTIME_BUSY()) return ms_internal_malloc(n);
    void *p = __libc_malloc(n);
    return ms_rt_on ? track(p, n, CALLER()) : p;
}

/* free called from caller (the program's call site). */
static void free_from(void *p, uintptr_t caller)
{
    if (MS_UNLIKELY(ms_is_runtime_memory(p))) return; /* an internal block: not reused */
    untrack(p, caller);
    __libc_free(p);
}

void free(void *p) { free_from(p, CALLER()); }

void *calloc(size_t n, size_t size)
{
    if (RUNTIME_BUSY()) return size && n > SIZE_MAX / size ? NULL : ms_internal_malloc(n * size);
    void *p = __libc_calloc(n, size);
    return ms_rt_on ? track(p, n * size, CALLER()) : p;
}

/* realloc keeps the bin of the original block (a block not tracked gets the caller's). */
static void *realloc_tracked(void *p, size_t n, uintptr_t caller)
{
    if (!p) return ms_rt_on ? track(__libc_realloc(NULL, n), n, caller) : __libc_realloc(NULL, n);
    uint32_t bin = ms_rt_on ? ms_shadow_get((uintptr_t)p) : 0;
    if (bin && !ms_bin_is_heap(bin))
        bin = 0; /* a block from before activation, on a page named by mapping (regions.c) */
    if (!bin) {
        void *q = __libc_realloc(p, n);
        return ms_rt_on ? track(q, n, caller) : q;
    }
    if (ms_tls.mode == MS_T_READY) ms_plug_sync();
    size_t old_usable = malloc_usable_size(p);
    ms_shadow_fill((uintptr_t)p, old_usable, 0);
    void *q = __libc_realloc(p, n);
    if (!q) {
        if (n)
            ms_shadow_fill((uintptr_t)p, old_usable, bin); /* failed: p still lives */
        else
            ms_bins_heap_free(bin, old_usable); /* realloc(p, 0) freed p */
        return q;
    }
    size_t new_usable = malloc_usable_size(q);
    ms_shadow_fill((uintptr_t)q, new_usable, bin);
    ms_bins_heap_free(bin, old_usable);
    ms_bins_heap_resize(bin, n > old_usable ? n - old_usable : 0, new_usable);
    if (q != p) { /* realloc's copy: libc's accesses, made for the caller */
        size_t copied = n < old_usable ? n : old_usable;
        ms_record_range_bin((uintptr_t)p, copied, 0, caller, bin);
        ms_record_range((uintptr_t)q, copied, MS_EV_WRITE, caller);
        touch_header(&ms_tls, (uintptr_t)p, old_usable, 0, caller); /* the old block freed */
    }
    touch_header(&ms_tls, (uintptr_t)q, new_usable, MS_EV_WRITE, caller); /* its size set */
    return q;
}

void *realloc(void *p, size_t n)
{
    if (MS_UNLIKELY(ms_is_runtime_memory(p)) || (!p && RUNTIME_BUSY())) return ms_internal_realloc(p, n);
    return realloc_tracked(p, n, CALLER());
}

void *reallocarray(void *p, size_t n, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc_tracked(p, bytes, CALLER());
}

void *memalign(size_t align, size_t n)
{
    void *p = __libc_memalign(align, n);
    return ms_rt_on ? track(p, n, CALLER()) : p;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (align == 0 || (align & (align - 1))) {
        errno = EINVAL;
        return NULL;
    }
    void *p = __libc_memalign(align, n);
    return ms_rt_on ? track(p, n, CALLER()) : p;
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align % sizeof(void *) || (align & (align - 1)) || align == 0) return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = ms_rt_on ? track(p, n, CALLER()) : p;
    return 0;
}

void *valloc(size_t n)
{
    void *p = __libc_valloc(n);
    return ms_rt_on ? track(p, n, CALLER()) : p;
}

void *pvalloc(size_t n)
{
    void *p = __libc_pvalloc(n);
    return ms_rt_on ? track(p, n, CALLER()) : p;
}

/* ---- C++ operator new / delete ---- */

typedef void *(*new_plain_fn)(size_t);
typedef void *(*new_nothrow_fn)(size_t, const void *);
typedef void *(*new_align_fn)(size_t, size_t);
typedef void *(*new_align_nothrow_fn)(size_t, size_t, const void *);

enum { NEW_W, NEW_A, NEW_W_NT, NEW_A_NT, NEW_W_AL, NEW_A_AL, NEW_W_AL_NT, NEW_A_AL_NT, NEW_KINDS };
static const char *const new_names[NEW_KINDS] = { "_Znwm",
                                                  "_Znam",
                                                  "_ZnwmRKSt9nothrow_t",
                                                  "_ZnamRKSt9nothrow_t",
                                                  "_ZnwmSt11align_val_t",
                                                  "_ZnamSt11align_val_t",
                                                  "_ZnwmSt11align_val_tRKSt9nothrow_t",
                                                  "_ZnamSt11align_val_tRKSt9nothrow_t" };
static void *real_new[NEW_KINDS];

/* The next operator new of that kind (libstdc++'s), resolved once. */
static void *next_new(int kind)
{
    void *fn = __atomic_load_n(&real_new[kind], __ATOMIC_ACQUIRE);
    if (!fn) {
        uint8_t prev = ms_busy_begin();
        fn = dlsym(RTLD_NEXT, new_names[kind]);
        ms_busy_end(prev);
        __atomic_store_n(&real_new[kind], fn, __ATOMIC_RELEASE);
    }
    return fn;
}

void ms_alloc_init(void)
{
    for (int k = 0; k < NEW_KINDS; k++) next_new(k);
}

/* Remember the user's call site for the malloc underneath (the outermost operator new wins:
 * libstdc++'s new[] calls new). Returns 1 if this call set it. */
static int set_pending(uintptr_t site)
{
    ms_thread *t = &ms_tls;
    if (!ms_rt_on || t->pending_site) return 0;
    t->pending_site = site;
    return 1;
}

static void clear_pending(int mine)
{
    if (mine) ms_tls.pending_site = 0;
}

/* No libstdc++ (cannot happen for C++ code, which links it): plain malloc, abort on failure. */
static void *new_fallback(size_t n, size_t align, int nothrow)
{
    void *p = align ? __libc_memalign(align, n ? n : 1) : __libc_malloc(n ? n : 1);
    if (!p && !nothrow) abort();
    return p;
}

#define NEW_PLAIN(name, kind)                           \
    void *name(size_t n)                                \
    {                                                   \
        new_plain_fn fn = (new_plain_fn)next_new(kind); \
        int mine = set_pending(CALLER());               \
        void *p = fn ? fn(n) : new_fallback(n, 0, 0);   \
        clear_pending(mine);                            \
        return p;                                       \
    }
#define NEW_NOTHROW(name, kind)                             \
    void *name(size_t n, const void *nt)                    \
    {                                                       \
        new_nothrow_fn fn = (new_nothrow_fn)next_new(kind); \
        int mine = set_pending(CALLER());                   \
        void *p = fn ? fn(n, nt) : new_fallback(n, 0, 1);   \
        clear_pending(mine);                                \
        return p;                                           \
    }
#define NEW_ALIGN(name, kind)                                    \
    void *name(size_t n, size_t align)                           \
    {                                                            \
        new_align_fn fn = (new_align_fn)next_new(kind);          \
        int mine = set_pending(CALLER());                        \
        void *p = fn ? fn(n, align) : new_fallback(n, align, 0); \
        clear_pending(mine);                                     \
        return p;                                                \
    }
#define NEW_ALIGN_NOTHROW(name, kind)                                   \
    void *name(size_t n, size_t align, const void *nt)                  \
    {                                                                   \
        new_align_nothrow_fn fn = (new_align_nothrow_fn)next_new(kind); \
        int mine = set_pending(CALLER());                               \
        void *p = fn ? fn(n, align, nt) : new_fallback(n, align, 1);    \
        clear_pending(mine);                                            \
        return p;                                                       \
    }

NEW_PLAIN(_Znwm, NEW_W)
NEW_PLAIN(_Znam, NEW_A)
NEW_NOTHROW(_ZnwmRKSt9nothrow_t, NEW_W_NT)
NEW_NOTHROW(_ZnamRKSt9nothrow_t, NEW_A_NT)
NEW_ALIGN(_ZnwmSt11align_val_t, NEW_W_AL)
NEW_ALIGN(_ZnamSt11align_val_t, NEW_A_AL)
NEW_ALIGN_NOTHROW(_ZnwmSt11align_val_tRKSt9nothrow_t, NEW_W_AL_NT)
NEW_ALIGN_NOTHROW(_ZnamSt11align_val_tRKSt9nothrow_t, NEW_A_AL_NT)

/* Every operator delete ends in free (libstdc++ does the same). */
#define DELETE_1(name) \
    void name(void *p) { free_from(p, CALLER()); }
#define DELETE_2(name, T)       \
    void name(void *p, T a)     \
    {                           \
        (void)a;                \
        free_from(p, CALLER()); \
    }
#define DELETE_3(name, T, U)     \
    void name(void *p, T a, U b) \
    {                            \
        (void)a, (void)b;        \
        free_from(p, CALLER());  \
    }

DELETE_1(_ZdlPv)
DELETE_1(_ZdaPv)
DELETE_2(_ZdlPvm, size_t)
DELETE_2(_ZdaPvm, size_t)
DELETE_2(_ZdlPvSt11align_val_t, size_t)
DELETE_2(_ZdaPvSt11align_val_t, size_t)
DELETE_2(_ZdlPvRKSt9nothrow_t, const void *)
DELETE_2(_ZdaPvRKSt9nothrow_t, const void *)
DELETE_3(_ZdlPvmSt11align_val_t, size_t, size_t)
DELETE_3(_ZdaPvmSt11align_val_t, size_t, size_t)
DELETE_3(_ZdlPvSt11align_val_tRKSt9nothrow_t, size_t, const void *)
DELETE_3(_ZdaPvSt11align_val_tRKSt9nothrow_t, size_t, const void *)
