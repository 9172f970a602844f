/* Private interfaces between the files of the runtime linked into profiled programs.
 *
 * Hot path (every instrumented access): the thread's state lives in an initial-exec TLS
 * block (ms_tls); a hook checks the global on-switch and the thread's mode, resolves the
 * data bin (stack frame or shadow map) and appends an event to the thread's buffer. Everything
 * else (bin interning, flushing into the simulator, the dump) is off the hot path.
 *
 * Memory: the runtime never uses the program's malloc; it maps its own (arena.c). */
#ifndef MEMSPY_RT_RT_H
#define MEMSPY_RT_RT_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"
#include "../sim/window.h"
#include "msplug_abi.h"
#include "../format/raw.h"

#define MS_LIKELY(x) __builtin_expect(!!(x), 1)
#define MS_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MS_HOT static inline __attribute__((always_inline))
/* An assumption a fast path rests on, checked in debug builds (no NDEBUG: the ASan build's
 * runtime, which the whole e2e suite runs under): if cond does not hold, the runtime says which
 * and where on standard error and aborts. Release builds check nothing. */
#ifdef NDEBUG
#define MS_ASSUMED(cond) ((void)0)
#else
#define MS_ASSUMED(cond) (MS_LIKELY(cond) ? (void)0 : ms_assumption_broken(#cond, __FILE__, __LINE__))
#endif
/* MS_ASSUMED's failure: the message, then abort (debug builds only). */
__attribute__((noreturn, cold)) void ms_assumption_broken(const char *what, const char *file, int line);
/* Keeps a loop a loop: gcc may otherwise turn it into a call of an interposed function. */
#define MS_NO_IDIOM __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* ---- events (events.c) ---- */

/* One buffered access; the bin is resolved when the access happens. */
typedef struct {
    uint64_t addr, pc;
    uint32_t bin;
    uint32_t size_flags; /* size in the low 31 bits, MS_EV_WRITE on top */
} ms_event;

#define MS_EV_WRITE 0x80000000u
#define MS_EV_SIZE_MAX 0x7fffffffu
#define MS_EVENTS_PER_THREAD 4096u

/* A synchronisation event takes two slots of the buffer beside the accesses, both with bin
 * MS_EV_SYNC_BIN (never a real bin): the first holds addr = obj, pc = seq, size_flags = kind
 * (MS_SYNC_* of format/stream.h), the second addr = arg, pc = site (the call's return address,
 * 0 unknown). */
#define MS_EV_SYNC_BIN 0xfffffffeu

/* ---- threads (runtime.c) ---- */

enum {
    MS_T_NEW = 0,   /* no state yet: created on the first recorded event */
    MS_T_READY = 1, /* recording */
    MS_T_BUSY = 2,  /* inside the runtime: nothing is recorded (re-entry guard) */
    MS_T_DEAD = 3   /* after the thread's exit flush */
};

/* A frame of the shadow call stack (shadowstack.c). */
typedef struct {
    uintptr_t pc;               /* a pc inside the function: return address of its func_entry call */
    uintptr_t call_ra;          /* return address in the caller (where the function was called) */
    uintptr_t frame;            /* frame address of the func_entry hook: below the function's locals */
    uintptr_t saved_fp;         /* the function's frame pointer register at its entry hook (stackvars.c) */
    uintptr_t cfa;              /* the frame's CFA once found (stackvars.c), 0 before */
    const void *vars;           /* its function's stack variables once looked up (stackvars.c) */
    uintptr_t var_lo, var_span; /* bin holds the frame's addresses [var_lo, var_lo + var_span) */
    uint32_t bin;               /* STACK or STACKVAR bin of those addresses, 0 until first needed */
    uint32_t focus;             /* --focus: MS_FOCUS_NOW, MS_FOCUS_FRAME (focus.c) */
} ms_frame;

#define MS_CACHE_SLOTS 64u

/* Per-thread direct-mapped caches of interned bins (bins.c); key 0 = empty. */
typedef struct {
    uint64_t key;
    uint32_t bin;
} ms_bin_cache_slot;

typedef struct ms_rec_stream ms_rec_stream; /* record.c */

/* A frame of another thread that this thread accessed (a shared stack variable): addresses
 * [lo, hi) are in it while the owner's data block (never freed) still belongs to the owner
 * (its nev_p) and the owner's frame `index` still has this frame address and pc (regions.c
 * checks that before using it; owner NULL = none). */
typedef struct {
    const void *owner; /* the owning thread's ms_thread */
    const struct ms_thread_data *owner_data;
    const uint32_t *owner_nev; /* owner_data->nev_p when remembered */
    uintptr_t lo, hi, frame, pc;
    uint32_t index, bin;
} ms_other_frame;
/* Frames of other threads a thread remembers (regions.c): a loop reading two variables of a
 * shared frame (a struct and an array beside it) finds both. */
#define MS_OTHER_FRAMES 4

/* At most this many of a heap bin's path entries are frames of uninstrumented code (bins.c). */
#define MS_MAX_NATIVE_PATH 10
#define MS_NATIVE_SLOTS 16u

/* A native path found by unwinding (nativepath.c), for the next allocation made at the same
 * site from the same instrumented frame at the same stack depth below it: path[i] is the
 * return address stored at sp + slot[i] (sp: ms_native_path's frame) when the path is the same. */
typedef struct {
    uintptr_t site, call_ra, sp_off; /* site 0: empty */
    uint32_t frame_depth;
    uint16_t n;
    uint64_t path[MS_MAX_NATIVE_PATH];
    uint32_t slot[MS_MAX_NATIVE_PATH];
} ms_native_slot;

/* Per-thread memory that outlives the TLS block's use: reused by later threads. */
typedef struct ms_thread_data {
    struct ms_thread_data *next_all; /* list of every data block ever made */
    struct ms_thread_data *next_free;
    int in_use;
    uint32_t *nev_p;           /* the owning thread's event count, for the exit flush */
    uint32_t rec_thread_index; /* the owning thread's index (0 = main thread) */
    ms_rec_stream *rec;        /* its recorded stream (record.c), NULL if none yet */
    int rec_ended;             /* its stream is ended (exit flush): later chunks are dropped */
    uint64_t *plug_buf;        /* the owning thread's plugin buffer (plugin.c), for the exit flush */
    int flushing;              /* flush flag: held by whoever flushes ev or ends rec */
    ms_event ev[MS_EVENTS_PER_THREAD];
    ms_bin_cache_slot stack_cache[MS_CACHE_SLOTS];
    ms_bin_cache_slot heap_cache[MS_CACHE_SLOTS];
    ms_native_slot native_cache[MS_NATIVE_SLOTS];
    /* the last frames of other threads it accessed, latest first (regions.c) */
    ms_other_frame other_frame[MS_OTHER_FRAMES];
    uintptr_t rest_granule; /* the last shared granule's bytes outside every global */
    uint32_t rest_bin;      /* ... and their bin (events.c), 0 if none yet */
    /* block counts (blocks.c), indexed by run-global block id: */
    uint64_t *blk_count;   /* executions already emitted as WORK (or folded) */
    uint64_t *blk_pending; /* executions since the last WORK events */
    uint32_t *blk_list;    /* ids with a pending count, in first-execution order */
    uint32_t blk_npending, blk_cap;
    uint64_t *blk_direct;         /* the counting copies' counters (__memspy_counts), by id + 1; NULL none */
    struct ms_call_table *calls;  /* call edges (calls.c), NULL until the first */
    struct ms_pc_slot *ctx_cache; /* streams-only flushes' contexts cache (events.c), NULL until the first */
} ms_thread_data;

typedef struct {
    uint8_t mode; /* MS_T_* */
    uint32_t nev; /* events buffered in data->ev */
    uintptr_t stack_lo, stack_span;
    uint64_t salt; /* unique to the thread, above bit 40 (set with its stack's bounds): plugin.c */
    ms_frame *frames;
    uint32_t depth, frames_cap;
    uintptr_t pending_site;  /* allocation site set by operator new / strdup */
    uint8_t longjmp_pending; /* a longjmp skipped func_exit hooks: resync the shadow stack */
    uint32_t preset_index;   /* thread index + 1 given by pthread_create's parent, 0 none */
    ms_thread_data *data;
} ms_thread;

extern __thread ms_thread ms_tls __attribute__((tls_model("initial-exec")));
extern volatile int ms_rt_on; /* 1 while profiling: checked by every hook first */

/* The main thread's stack is simulated at a fixed place: every thread's accesses to
 * [ms_main_stack.lo, lo + span) are moved by shift when flushed (events.c), so that the size
 * of the environment and arguments above the initial stack pointer does not change the
 * results beyond the offset in a cache line (shift is a multiple of 64, keeping each access's
 * place in its line). Set once, when the main thread starts recording (runtime.c). */
typedef struct {
    uintptr_t lo, span;
    uint64_t shift;
} ms_stack_placement;
extern ms_stack_placement ms_main_stack;

/* Slow path of a hook: make the calling thread's state if needed. Returns 1 if the caller may
 * record (mode is then MS_T_READY), 0 otherwise. */
int ms_thread_enter_slow(ms_thread *t);

/* The fast check every recording path starts with. */
MS_HOT int ms_thread_can_record(ms_thread *t)
{
    if (MS_UNLIKELY(!ms_rt_on)) return 0;
    if (MS_LIKELY(t->mode == MS_T_READY)) return 1;
    return ms_thread_enter_slow(t);
}

/* Mark the calling thread as inside the runtime (nothing recorded, allocations forwarded).
 * Returns the previous mode for ms_busy_end. */
MS_HOT uint8_t ms_busy_begin(void)
{
    uint8_t m = ms_tls.mode;
    ms_tls.mode = MS_T_BUSY;
    __asm__ volatile("" ::: "memory");
    return m;
}
/* An interrupt that landed inside the runtime, to act on when its thread leaves the runtime
 * (0: none), and that action: dump and die of it (signals.c). */
extern volatile int ms_signal_deferred;
void ms_signal_run_deferred(void);
MS_HOT void ms_busy_end(uint8_t prev)
{
    __asm__ volatile("" ::: "memory");
    ms_tls.mode = prev;
    __asm__ volatile("" ::: "memory");
    if (MS_UNLIKELY(ms_signal_deferred) && prev != MS_T_BUSY) ms_signal_run_deferred();
}

/* Activate the runtime if MEMSPY_RAW_DIR is set (idempotent; __tsan_init and a constructor). */
void ms_runtime_init(void);
/* Process id recorded at activation, and the activation time (CLOCK_MONOTONIC ns). */
int ms_runtime_pid(void);
uint64_t ms_runtime_start_ns(void);
uint64_t ms_now_ns(void);
/* Number of threads that recorded at least one event. */
uint32_t ms_threads_seen(void);
/* A new thread index (the next after every index handed out so far). */
uint32_t ms_thread_index_next(void);
/* At exit, recording already stopped: flush every thread's pending events into the simulator
 * or its stream and end the streams, never waiting long for another thread (a thread busy in
 * the runtime is skipped after a bounded wait). from_signal: the calling thread may have been
 * interrupted inside the runtime (own_busy) and the simulator lock is only tried. Returns the
 * number of threads whose pending events were lost. */
int ms_threads_flush_all(int from_signal, int own_busy);
/* Call fn on every data block in use (iteration without lock: blocks are never freed). */
void ms_threads_each_data(void (*fn)(ms_thread_data *d, void *ud), void *ud);
/* fn for every data block ever made, exited threads' included (totals kept in them). */
void ms_threads_each_data_all(void (*fn)(ms_thread_data *d, void *ud), void *ud);
/* Canonical config text the simulator was built from. */
const char *ms_runtime_config_text(void);

/* ---- arena.c: memory that never comes from the program's malloc ---- */

/* The mmap and munmap system calls: the runtime's own mappings, never recorded as
 * the program's. */
void *ms_sys_mmap(void *addr, size_t len, int prot, int flags, int fd, long off);
int ms_sys_munmap(void *addr, size_t len);
/* Zeroed memory straight from mmap (page granular); NULL on failure. */
void *ms_map(size_t bytes);
/* ms_map with extra mmap flags (MAP_NORESERVE). Memory comes from the runtime's own region. */
void *ms_map_flags(size_t bytes, int extra_flags);
/* The first bytes of file fd, mapped private (copy-on-write) in the runtime's region: a file
 * the runtime keeps mapped must not move the program's own mappings. NULL on failure. */
void *ms_map_file(int fd, size_t bytes);
/* Whether p lies in the runtime's region (blocks of ms_internal_malloc among them). */
int ms_is_runtime_memory(const void *p);
/* Allocation for the runtime's own callees (libelf, dlsym) while BUSY: never the program's heap. */
void *ms_internal_malloc(size_t bytes);
void *ms_internal_realloc(void *p, size_t bytes);
void ms_unmap(void *p, size_t bytes);
/* Zeroed, 16-byte aligned, never freed (small long-lived runtime objects). */
void *ms_arena_alloc(size_t bytes);
/* Copy of s in the arena. */
char *ms_arena_strdup(const char *s);
/* Copy of s[0..n) in the arena, NUL-terminated. */
char *ms_arena_strndup(const char *s, size_t n);
/* The allocator handed to the simulator. */
extern const ms_allocator ms_sim_allocator;
/* libc-free helpers (the runtime must not call its own interposed string functions). */
size_t ms_strlen(const char *s);
int ms_strncmp(const char *a, const char *b, size_t n);
void ms_memcpy(void *d, const void *s, size_t n);
/* Write an unsigned number in decimal at p; returns the end (no NUL). */
char *ms_utoa(char *p, uint64_t v);

/* ---- shadow.c: address -> bin at 16-byte granularity ---- */

#define MS_SHADOW_SHIFT 4
#define MS_SHADOW_CHUNK_BITS 20 /* granules per second-level chunk */
#define MS_SHADOW_L1_BITS (47 - MS_SHADOW_SHIFT - MS_SHADOW_CHUNK_BITS)

extern uint32_t **ms_shadow_l1;

/* Map the first-level table. Returns 0 or -1. */
int ms_shadow_init(void);
/* Set [addr, addr+len) to bin (0 clears). */
void ms_shadow_fill(uintptr_t addr, size_t len, uint32_t bin);
/* Clear [addr, addr+len), giving whole shadow pages back to the kernel (cheap for the
 * large ranges of munmap). */
void ms_shadow_clear(uintptr_t addr, size_t len);
/* Set the granules of [addr, addr+len) that hold no bin yet to bin (a region's lazily
 * filled page: objects already there keep theirs). */
void ms_shadow_fill_empty(uintptr_t addr, size_t len, uint32_t bin);

/* A granule shared by two globals packed closer than 16 bytes: the bin is looked up exactly
 * in the globals table (ms_globals_bin_at). Never a real bin id. */
#define MS_BIN_SHARED 0xffffffffu

/* Bin of addr, 0 (OTHER) if unknown. */
MS_HOT uint32_t ms_shadow_get(uintptr_t addr)
{
    uint32_t *chunk =
        ms_shadow_l1[(addr >> (MS_SHADOW_SHIFT + MS_SHADOW_CHUNK_BITS)) & ((1u << MS_SHADOW_L1_BITS) - 1)];
    if (MS_UNLIKELY(!chunk)) return 0;
    return chunk[(addr >> MS_SHADOW_SHIFT) & ((1u << MS_SHADOW_CHUNK_BITS) - 1)];
}

/* ---- bins.c ---- */

#define MS_MAX_PATH 24

typedef struct {
    uint8_t kind;                        /* ms_bin_kind */
    uint16_t depth;                      /* HEAP: entries of path */
    uint32_t module;                     /* GLOBAL */
    uint64_t pc;                         /* HEAP, MMAP: site pc; STACK: function pc */
    uint64_t tag;                        /* MMAP, MAPPING: hash of name (part of the interning key) */
    uint64_t path[MS_MAX_PATH];          /* HEAP, MMAP: call-site return addresses, innermost first */
    uint64_t objects, bytes, live, peak; /* HEAP, MMAP accounting (atomic updates) */
    uint64_t first_seq;                  /* HEAP: allocation order of its first block (0: none yet) */
    uint64_t first_addr, first_request;  /* ... that block's address and requested bytes */
    uint64_t first_chunk;                /* ... glibc's size word below it (chunk bytes | flag bits) */
    uint64_t mapped;                     /* HEAP: blocks glibc served by a mapping of their own */
    uint64_t addr, size;                 /* GLOBAL; TLS: offset in the module's TLS block */
    const char *name;                    /* GLOBAL, TLS: symbol; MMAP: file path; MAPPING: label */
} ms_bin;

/* Where an allocation's site (site_pc) is in uninstrumented code (a library built without
 * memspy, the C library), the frames the shadow stack does not see, innermost first, into
 * path (MS_MAX_NATIVE_PATH entries at most): the return addresses from the site outwards up
 * to and including the call into that code in the innermost instrumented function (all of
 * them up to the thread's start in a thread the library started). Returns how many: 0 where
 * the site is the instrumented function's own call or the stack cannot be walked (nativepath.c). */
uint16_t ms_native_path(ms_thread *t, uintptr_t site_pc, uint64_t *path);
/* Load libgcc's unwinder for ms_native_path (at start-up, in busy mode). */
void ms_native_path_init(void);

/* Create bin 0 (OTHER). Returns 0 or -1. */
int ms_bins_init(void);
/* Number of bins and bin i (stable pointer). */
uint32_t ms_bins_count(void);
ms_bin *ms_bin_get(uint32_t id);
/* Register a global object; returns its bin id (0 if out of memory). */
uint32_t ms_bins_add_global(uint64_t addr, uint64_t size, uint32_t module, const char *name);
/* Register a variable bin of kind GLOBAL or TLS (addr: a TLS variable's offset in its
 * module's block); returns its bin id (0 if out of memory). */
uint32_t ms_bins_add_variable(uint8_t kind, uint64_t addr, uint64_t size, uint32_t module, const char *name);
/* The MMAP bin of a file mapped at site_pc with the calling thread's call path (interned). */
uint32_t ms_bins_mmap(ms_thread *t, uintptr_t site_pc, const char *file);
/* The MAPPING bin of memory of no known object in a mapping labelled label (interned). */
uint32_t ms_bins_mapping(ms_thread *t, const char *label);
/* The STACK bin of the function containing pc (interned; per-thread cache). */
uint32_t ms_bins_stack(ms_thread *t, uintptr_t func_pc);
/* The STACKVAR bin of the stack variable name of the function containing func_pc (interned). */
uint32_t ms_bins_stack_var(ms_thread *t, uintptr_t func_pc, const char *name);
/* The HEAP bin for an allocation at site_pc with the calling thread's current call path. */
uint32_t ms_bins_heap(ms_thread *t, uintptr_t site_pc);
/* Whether bin is a HEAP bin (a shadow entry may also be a page named lazily by regions.c). */
int ms_bin_is_heap(uint32_t bin);
/* Heap accounting: an object of usable size bytes was made / freed in bin. */
void ms_bins_heap_alloc(uint32_t bin, uint64_t requested, uint64_t usable);
void ms_bins_heap_free(uint32_t bin, uint64_t usable);
/* Where glibc put block p (requested bytes) of HEAP bin `bin`: the allocation order, and for
 * its first block the address and glibc's size word (brk arena or mmap, chunk size), for
 * `memspy whatif`'s model of the allocator (MS_RAW_HEAP_LAYOUT). */
void ms_bins_heap_placed(uint32_t bin, uintptr_t p, uint64_t requested);
/* A realloc'd block of bin now has new_usable live bytes (old ones freed first);
 * grown_requested bytes are added to the bin's requested total. */
void ms_bins_heap_resize(uint32_t bin, uint64_t grown_requested, uint64_t new_usable);

/* ---- stackvars.c: stack variables by name ---- */

/* The bin of stack address addr in frame f of a thread whose stack ends at stack_hi: the
 * STACKVAR bin of the variable holding it, else the function's STACK bin; [*lo, *hi) is the
 * range of the frame's addresses with that bin. own: f is the calling thread's (its CFA and
 * variables are remembered in f). */
uint32_t ms_stack_var_bin(ms_thread *t, ms_frame *f, uintptr_t stack_hi, uintptr_t addr, uintptr_t *lo, uintptr_t *hi,
                          int own);

/* ---- shadowstack.c ---- */

/* STACK bin of the frame owning stack address addr (t's stack), 0 if no frame. */
uint32_t ms_stack_bin_slow(ms_thread *t, uintptr_t addr);
/* After a longjmp: pop the frames above the live frame of the function containing live_pc
 * (a pc the live innermost frame is executing). */
void ms_shadow_stack_resync(ms_thread *t, uintptr_t live_pc);
/* Start address of the function containing pc, from the modules' symbol tables; 0 if unknown. */
uintptr_t ms_function_start(uintptr_t pc);
/* The function containing pc, [*lo, *hi), from the modules' symbol tables; 0, or -1 if unknown. */
int ms_function_range(uintptr_t pc, uintptr_t *lo, uintptr_t *hi);
/* Once the modules' functions are known: the OpenMP regions of every module registered so far
 * (and of those registered later, at their registration) matched against the focus. */
void ms_dests_focus_regions(void);

/* STACK bin of the frame of thread owner (not the caller t) holding addr, an address in
 * owner's stack: a variable of owner's frame that t reads or writes. 0 if owner has no frame.
 * *found describes the frame, for the next access (see ms_other_frame).
 * owner's shadow stack is read while it runs; its arrays are never unmapped while it lives. */
uint32_t ms_stack_bin_other(ms_thread *t, const ms_thread *owner, const ms_thread_data *owner_data, uintptr_t addr,
                            ms_other_frame *found);

/* ---- regions.c: memory of no heap block, global or own frame ---- */

/* A region the program mapped: [lo, lo+len) gets bin (0: forget it), replacing the regions
 * and shadow it overlaps; its bytes are added to the bin's accounting, as a new object, or
 * (moved_from: the old length, mremap) as the same object resized. */
void ms_regions_add(uintptr_t lo, size_t len, uint32_t bin, size_t moved_from);
/* The program unmapped [lo, lo+len): regions cut, bytes given back, shadow cleared. */
void ms_regions_remove(uintptr_t lo, size_t len);
/* The bin of the region holding addr, 0 if none. */
uint32_t ms_regions_bin_of(uintptr_t addr);
/* The bin of addr when the shadow map has none (slow path): a region, the frame of the
 * thread whose stack holds it, else the MAPPING bin of its /proc/self/maps line (0 if none). */
uint32_t ms_regions_bin(ms_thread *t, uintptr_t addr);

/* Bin of any address, resolved at access time (any path, may intern a STACK bin). */
uint32_t ms_resolve_bin(ms_thread *t, uintptr_t addr);

/* ---- events.c ---- */

/* Create the simulator for cfg. Returns 0 or -1. */
int ms_events_init(const ms_hier_config *cfg);
/* Flush t's buffered events: into the simulator (one-processor mode) and/or the thread's
 * stream. Contexts are mapped under the global lock, the stream is compressed outside it. */
void ms_events_flush(ms_thread *t);
/* Same for any thread's data block and event count, its flush flag held by the caller.
 * sim_try: only try the simulator lock for a bounded time (signal path). Returns 0, or -1
 * if the lock could not be had (the events are then lost). */
int ms_events_flush_data(ms_thread_data *d, uint32_t *nev, int sim_try);
/* After the exit flush: later flushes do nothing. */
void ms_events_close(void);
/* The flush flag of a data block: take it (spinning), try it for about ms milliseconds
 * (returns 0 if taken), give it back. */
void ms_flush_flag_take(ms_thread_data *d);
int ms_flush_flag_try(ms_thread_data *d, int ms);
void ms_flush_flag_give(ms_thread_data *d);
/* Lock for the simulator and the context map; trylock for the signal path (0 = acquired). */
void ms_sim_lock(void);
int ms_sim_trylock(void);
void ms_sim_unlock(void);
ms_sim *ms_events_sim(void);
/* Contexts: (pc, bin) pairs, ids 1..n-1 (0 unused). */
uint32_t ms_contexts_count(void);
void ms_context_get(uint32_t ctx, uint64_t *pc, uint32_t *bin);
/* Events the simulator could not count (out of memory). */
uint64_t ms_events_dropped(void);

/* ---- commands for the simulator (filter.c, pipeline.c) ---- */

/* A command for the simulator: a reference (ctx >= 1: addr, size_flags as ms_event's), the
 * references of ctx & ~MS_CMD_COUNT that a hit window counted (ctx with MS_CMD_COUNT: addr =
 * writes << 32 | reads), or an operation of a closing window (ctx 0: addr = line,
 * size_flags = rereference << 1 | dirty; sim/window.h). Contexts stay far below 2^31. */
typedef struct {
    uint64_t addr;
    uint32_t ctx;
    uint32_t size_flags;
} ms_sim_ref;

#define MS_CMD_COUNT 0x80000000u
/* Commands in one chunk at most: a flush's references, the operations of the windows they
 * close (one per line joined, plus a window carried over) and one count per context. */
#define MS_CHUNK_CAP (3u * MS_EVENTS_PER_THREAD + 64u)

/* Store command d. stream: it is for the simulator thread, so it goes straight to memory
 * (non-temporal stores; ms_pipeline_end fences them): composing then does not first fetch
 * each line back from the cache of the thread that read it last, which cost the flush about
 * half its time. */
MS_HOT void ms_cmd_store(ms_sim_ref *d, uint64_t addr, uint32_t ctx, uint32_t size_flags, int stream)
{
#if defined(__x86_64__)
    if (stream) {
        __builtin_ia32_movnti64((long long *)(void *)&d->addr, (long long)addr);
        __builtin_ia32_movnti64((long long *)(void *)&d->ctx, (long long)((uint64_t)size_flags << 32 | ctx));
        return;
    }
#endif
    (void)stream;
    *d = (ms_sim_ref){ addr, ctx, size_flags };
}

/* ---- filter.c: the hit window in front of the simulator ---- */

typedef struct {
    int stream; /* chunks go to the simulator thread (ms_cmd_store) */
    ms_mem mem; /* the window's memory */
    ms_window win;
    uint32_t l1_shift;
    uint64_t *counts; /* per context: writes << 32 | reads counted in the chunk */
    uint32_t counts_cap;
    uint32_t touched[MS_EVENTS_PER_THREAD]; /* contexts with counts in the chunk */
    uint32_t ntouched;
} ms_filter;

/* Set f up for cfg's L1 (the window is off where it does not apply, and with utilisation).
 * 0 or -1. */
int ms_filter_init(ms_filter *f, const ms_hier_config *cfg);
/* Make f's counts hold ctx. 0 or -1 (no memory). */
int ms_filter_grow(ms_filter *f, uint32_t ctx);
/* Append the window's first n closing operations to chunk c at *k. */
void ms_filter_ops(ms_filter *f, ms_sim_ref *c, uint32_t *k, uint32_t n);
/* End a chunk of k commands: append the counts, one command per context. Returns the new k. */
uint32_t ms_filter_finish(ms_filter *f, ms_sim_ref *c, uint32_t k);

/* Append reference (ctx >= 1, addr, size_flags) to chunk c at *k through the window. */
MS_HOT void ms_filter_put(ms_filter *f, ms_sim_ref *restrict c, uint32_t *k, uint32_t ctx, uint64_t addr,
                          uint32_t size_flags)
{
    if (f->win.on) {
        uint32_t size = size_flags & MS_EV_SIZE_MAX, shift = f->l1_shift;
        uint64_t line = addr >> shift;
        if (MS_LIKELY(size && ((addr + size - 1) >> shift) == line)) {
            unsigned write = size_flags >> 31;              /* MS_EV_WRITE */
            int r = ms_window_ref(&f->win, line, write, 0); /* no used bits: off with utilisation */
            if (r < 0) {
                if (MS_UNLIKELY(ctx >= f->counts_cap) && ms_filter_grow(f, ctx) < 0) {
                    ms_cmd_store(&c[(*k)++], write ? 1ull << 32 : 1u, ctx | MS_CMD_COUNT, 0, f->stream);
                    return; /* no memory: a count of its own */
                }
                uint64_t n = f->counts[ctx];
                if (!n) f->touched[f->ntouched++] = ctx;
                f->counts[ctx] = n + (write ? 1ull << 32 : 1u);
                return;
            }
            if (r > 0) ms_filter_ops(f, c, k, (uint32_t)r);
        } else {
            ms_filter_ops(f, c, k, ms_window_close(&f->win)); /* straddles lines: simulated apart */
        }
    }
    ms_cmd_store(&c[(*k)++], addr, ctx, size_flags, f->stream);
}

/* ---- pipeline.c: hand-over to the simulator ---- */

/* Set up the hand-over to sim, made for cfg. Returns 0 or -1. */
int ms_pipeline_init(ms_sim *sim, const ms_hier_config *cfg);
/* At activation: start the simulator thread if wanted (several CPUs, or MEMSPY_SIM_THREAD=1)
 * and the program's accesses will be simulated in process. */
void ms_pipeline_start(void);
/* Simulator lock held: where to put the next chunk (MS_CHUNK_CAP commands), waiting at most
 * max_ms milliseconds (< 0: no limit) for the simulator thread to make room; NULL if none
 * came. *filter: the window to compose the chunk through (ms_filter_put), or NULL when the
 * simulator thread runs it: the chunk then holds plain references. */
ms_sim_ref *ms_pipeline_begin(int max_ms, ms_filter **filter);
/* Simulator lock held: hand the n entries of chunk (from ms_pipeline_begin) over to the
 * simulator thread, or execute them here when there is none. */
void ms_pipeline_end(ms_sim_ref *chunk, uint32_t n);
/* Wait until every chunk handed over is simulated (at most max_ms, < 0: no limit), before
 * the simulator is read. Returns 0, or -1 on timeout or when called by the simulator thread. */
int ms_pipeline_drain(int max_ms);
/* References the simulator thread could not count (out of memory). */
uint64_t ms_pipeline_dropped(void);

/* ---- plugin.c: records of plugin-instrumented code (src/rt/msplug_abi.h) ---- */

/* Turn the calling thread's pending plugin records into events (bins resolved now). */
void ms_plug_drain(void);
/* Drain if the thread has plugin records pending: called before anything that changes how an
 * address maps to a bin (allocation, free, function entry/exit, synchronisation) and before
 * any other event of the thread (ms_record), so deferred resolution equals resolution at
 * access time (plugin.c explains why). */
MS_HOT void ms_plug_sync(void)
{
    if (MS_UNLIKELY(__memspy_buf[0])) ms_plug_drain();
}
/* ms_plug_sync where the calling thread may not be recording (inside the runtime, or not set
 * up yet): an interposed function. A synchronisation operation calls it BEFORE it takes
 * effect: once it has, another thread may act on what this one did (free what it touched, or
 * exit the process, whose exit flush then finds this thread's records neither in its plugin
 * buffer nor yet in its event buffer if the drain is still under way: they were lost). */
extern int ms_count_only;
extern volatile int ms_streams_mode;
/* Not in MTOOL's runs (MEMSPY_MODE=count or time, no stream): their drains only count, which
 * is the same whenever it is done, and the records left in the buffer are where the exit
 * flush, the thread's exit or the next full buffer finds them (migratory's counting run: the
 * drains of a lock and an unlock per deposit were a third of its time). */
MS_HOT void ms_plug_sync_ready(void)
{
    if (MS_LIKELY(ms_tls.mode == MS_T_READY) && (!ms_count_only || ms_streams_mode)) ms_plug_sync();
}
/* Whether the thread's last committed plugin group recorded exactly this memcpy/memmove
 * (set = 0: dst, src, n) or memset (set = 1: dst, n); the interposer then records nothing. */
int ms_plug_claim(uintptr_t dst, uintptr_t src, size_t n, int set);
/* Exit flush, d's flush flag held: turn the pending plugin records of d's thread (possibly
 * another thread, stopped or still running) into events of d, resolving bins with that
 * thread's shadow stack. sim_try as for ms_events_flush_data. */
void ms_plug_drain_data(ms_thread_data *d, uint32_t *nev, int sim_try);
/* Set by MEMSPY_MODE=count: the drain counts blocks and records no access. */
extern int ms_count_only;
/* Test hook (MEMSPY_TEST_DRAIN_PAUSE_MS, read at activation; 0 off): a thread other than the
 * main one pauses this many milliseconds in each drain that has records, between taking them
 * from its buffer and recording them: the window in which another thread's exit flush finds
 * them in neither place (t_threads_robust's `published` case). */
extern int ms_test_drain_pause_ms;
/* MEMSPY_DIRECT=0 (read at activation; tests, measurements): every drain goes through the
 * event buffer, none straight into a chunk (ms_direct_begin). */
extern int ms_plug_direct_off;

/* ---- blocks.c: basic blocks and loops of plugin-instrumented code ---- */

/* Blocks registered so far (run-global ids 0 .. n-1). */
uint32_t ms_blocks_registered(void);
/* Make room for block id in d's arrays (the calling thread owns d). Returns 0 or -1. */
int ms_blocks_grow(ms_thread_data *d, uint32_t id);
/* n executions of block b by the thread owning d (the drain's hot path: a run of one block's
 * words is counted at once). */
MS_HOT void ms_blocks_count(ms_thread_data *d, const msplug_block *b, uint64_t n)
{
    uint64_t id1 = b->id;
    if (MS_UNLIKELY(!id1)) return; /* its module's constructor has not run yet */
    uint32_t id = (uint32_t)(id1 - 1);
    if (MS_UNLIKELY(id >= d->blk_cap) && ms_blocks_grow(d, id) < 0) return;
    if (d->blk_pending[id] == 0) d->blk_list[d->blk_npending++] = id;
    d->blk_pending[id] += n;
}
/* Threads mode: t's pending block counts as WORK events into its buffer, then cleared. */
void ms_blocks_emit_work(ms_thread *t);
/* Fold d's pending counts into its totals (a data block handed to a new thread). */
void ms_blocks_fold(ms_thread_data *d);
/* Every registered block's total count over every thread (an entry block counted by its calls:
 * their sum, ms_calls_entries), by id (*n of them; ms_unmap the
 * array, *n words, when done); NULL when none or no memory. */
uint64_t *ms_blocks_totals(uint32_t *n);
/* The raw sections BLOCKS and LOOPS (totals over every thread); nothing if no block. */
void ms_blocks_put_raw(ms_raw_writer *w);
/* --focus on loops: whether block b's innermost loop, or a loop around it, is named. */
int ms_blocks_in_focus(const msplug_block *b);
/* Match every registered loop against the focus's names (done lazily by ms_blocks_in_focus). */
void ms_blocks_focus_resolve(void);

/* MTOOL's pc sampler (sample.c): armed by MEMSPY_SAMPLE_NS at activation; stopped and written
 * as MS_RAW_SAMPLES at the dump. */
void ms_sample_init(void);
/* The calling thread's sampling timer, when the run samples (a thread the runtime adopts);
 * ms_sample_thread_end deletes it (the thread's exit). */
void ms_sample_thread_begin(void);
void ms_sample_thread_end(void);
void ms_sample_stop(void);
void ms_sample_put_raw(ms_raw_writer *w);
/* ---- calls.c: call edges of plugin-instrumented code ---- */

/* n calls of callee (a function's address) from block caller by the thread owning d. */
void ms_calls_count(ms_thread_data *d, const msplug_block *caller, uint64_t callee, uint64_t n);
/* The MS_RAW_CALLS section: every thread's pairs merged, sorted by caller block and callee. */
void ms_calls_put_raw(ms_raw_writer *w);
/* Set the totals (by block id, n of them) of the entry blocks counted by their function's calls
 * (ABI 7) to those calls' sum. */
void ms_calls_entries(uint64_t *total, uint32_t n);
/* The MS_RAW_DESTS section: every registered module's allocation destinations (dests.c). */
void ms_dests_put_raw(ms_raw_writer *w);

/* The instrumentation the program's objects used, as a note for the raw profile; NULL if
 * none was seen. */
const char *ms_instrumentation_note(void);
/* Set by __tsan_init: some object was compiled with -fsanitize=thread. */
extern volatile int ms_tsan_seen;

/* ---- focus.c: `memspy run --focus NAME...` ---- */

/* Set when MEMSPY_FOCUS names functions or loops: references outside them are not simulated;
 * ms_focus_loops when it names loops (the drain then follows the block words' loops). */
extern int ms_focus_active, ms_focus_loops;
/* A frame's focus bits: its code is in focus now (the records it makes are kept), and the
 * whole frame is (its function is named, or its caller was in focus at the call). */
#define MS_FOCUS_NOW 1u
#define MS_FOCUS_FRAME 2u
/* Take the comma-separated names of MEMSPY_FOCUS (at start; format/focus_spec.h). */
void ms_focus_init(const char *spec);
/* A function symbol of a loaded module: remembered if the focus names it. */
void ms_focus_consider(const char *sym, uintptr_t addr, uint64_t size);
/* An OpenMP region's record (msplug_abi.h, MSPLUG_OMP_RECORD) with the pc of its label, in
 * the function that holds the region's body: that function is remembered if the focus names
 * the region as code bins do ("main: omp parallel for @10"). */
void ms_focus_omp_region(const char *rec, uintptr_t pc);
/* Whether pc lies in a function the focus names (frame_push marks its frame). */
int ms_focus_contains(uintptr_t pc);
/* Whether the focus names the loop whose header block has pc header_pc and whose lines are
 * [line, end] (counted as matched for the note). */
int ms_focus_names_loop(uintptr_t header_pc, uint32_t line, uint32_t end);
/* References dropped because they were outside the focus (for the run's note). */
void ms_focus_count_skipped(uint64_t n);
/* The run's note on the focus (names, references not simulated, names that matched nothing),
 * NULL without a focus. */
const char *ms_focus_note(void);
/* Whether the calling thread's accesses are outside the focus now: to be dropped. */
static inline int ms_focus_skips(const ms_thread *t)
{
    return MS_UNLIKELY(ms_focus_active) && !(t->depth && (t->frames[t->depth - 1].focus & MS_FOCUS_NOW));
}

/* The complete recording path: thread set-up, any bin lookup, flushing a full buffer. */
void ms_record_slow(uintptr_t addr, uint32_t size_flags, uintptr_t pc);

/* ms_bin_fast for an address in t's stack: its innermost frame's variable, else 0. */
MS_HOT uint32_t ms_stack_bin_fast(const ms_thread *t, uintptr_t addr)
{
    uint32_t depth = t->depth;
    if (MS_UNLIKELY(depth == 0)) return 0;
    const ms_frame *top = &t->frames[depth - 1];
    /* the innermost frame owns addr unless its caller's frame lies below addr */
    if (MS_UNLIKELY(depth > 1 && top[-1].frame < addr)) return 0;
    if (MS_UNLIKELY(addr - top->var_lo >= top->var_span)) return 0; /* another variable */
    return top->bin;                                                /* 0 until first needed */
}

/* ms_bin_fast for an address outside t's stack: the shadow map's bin, else 0. */
MS_HOT uint32_t ms_heap_bin_fast(uintptr_t addr)
{
    uint32_t bin = ms_shadow_get(addr);
    return MS_LIKELY(bin + 1u > 1u) ? bin : 0; /* 0 (no bin yet: regions.c) or MS_BIN_SHARED */
}

/* The data bin of the calling thread t's access at addr where it needs no call: a variable of
 * the innermost frame, or an address the shadow map holds; 0 for anything else (ms_resolve_bin
 * has it). */
MS_HOT uint32_t ms_bin_fast(const ms_thread *t, uintptr_t addr)
{
    if (addr - t->stack_lo < t->stack_span) return ms_stack_bin_fast(t, addr);
    return ms_heap_bin_fast(addr);
}

/* ms_record's common case for the calling thread t, known to be ready and in focus (the
 * plugin's drain checks both once for all its records), ev its data block's events: an
 * address in the innermost frame or in the shadow map and room in the buffer need no call;
 * anything else calls ms_record_slow. t->nev is read and written through t at every access
 * (a signal handler's drain may append in between). */
MS_HOT void ms_record_ready(ms_thread *t, ms_event *ev, uintptr_t addr, uint32_t size_flags, uintptr_t pc)
{
    uint32_t bin, n = t->nev;
    if (MS_UNLIKELY(n == MS_EVENTS_PER_THREAD - 1)) goto slow;
    bin = ms_bin_fast(t, addr);
    if (MS_UNLIKELY(!bin)) goto slow;
    ms_event *e = &ev[n];
    e->addr = addr;
    e->pc = pc;
    e->bin = bin;
    e->size_flags = size_flags;
    t->nev = n + 1;
    return;
slow:
    ms_record_slow(addr, size_flags, pc);
}

/* Record one access of the calling thread (the hook path). The common case (thread ready,
 * an address in the innermost frame or in the shadow map, room in the buffer) needs no
 * call, so the hooks stay leaf functions; anything else tail-calls ms_record_slow. */
MS_HOT void ms_record(uintptr_t addr, uint32_t size, uint32_t write_flag, uintptr_t pc)
{
    if (MS_UNLIKELY(!ms_rt_on)) return;
    ms_thread *t = &ms_tls;
    if (MS_LIKELY(t->mode == MS_T_READY)) ms_plug_sync();
    if (ms_focus_skips(t)) {
        ms_focus_count_skipped(1);
        return;
    }
    if (MS_UNLIKELY(t->mode != MS_T_READY)) {
        ms_record_slow(addr, size | write_flag, pc);
        return;
    }
    ms_record_ready(t, t->data->ev, addr, size | write_flag, pc);
}

/* Record a byte range (split in MS_EV_SIZE_MAX pieces); no-op for len 0. */
void ms_record_range(uintptr_t addr, size_t len, uint32_t write_flag, uintptr_t pc);
/* The same with the bin given (memory the C library touched for the program whose shadow is
 * already gone: the old block of a realloc that moved it). */
void ms_record_range_bin(uintptr_t addr, size_t len, uint32_t write_flag, uintptr_t pc, uint32_t bin);

/* ---- record.c: MEMSPY_RECORD_DIR streams (all calls on a data block with its flush flag
 * held; ms_rec_event/ms_rec_sync as the flush maps its events to contexts, events.c) ---- */

/* Record every flushed buffer into dir/thread-N.zst from now on. Returns 0, or -1 with the
 * reason in err (a directory name too long, libzstd not loadable). */
int ms_rec_init(const char *dir, char *err, size_t errlen);
/* Whether streams are being recorded (initialised and not failed). */
int ms_rec_active(void);
/* The recording directory ("" if none). */
const char *ms_rec_dir(void);
/* Drop what d's stream holds so far and start it again (switch to threads mode: the prefix
 * was simulated in process). */
void ms_rec_thread_restart(ms_thread_data *d);
/* Append one synchronisation event (format/stream.h) to the chunk; site: a context id (0
 * none), written for the kinds that carry one (ms_stream_has_site). */
void ms_rec_sync(ms_rec_stream *s, uint32_t kind, uint64_t obj, uint64_t arg, uint64_t seq, uint32_t site);
/* Data block d now belongs to the thread with this index (its stream's N). */
void ms_rec_thread_start(ms_thread_data *d, uint32_t thread_index);
/* Start a chunk of d's stream (opening the file on first use); NULL when not recording. */
ms_rec_stream *ms_rec_chunk_begin(ms_thread_data *d);
/* Append one event (the context the flush attributed it to) to the chunk. */
void ms_rec_event(ms_rec_stream *s, uint32_t ctx, uint64_t addr, uint32_t size_flags);
/* Compress and write the chunk. */
void ms_rec_chunk_end(ms_rec_stream *s);
/* End d's zstd frame and close its file (thread exit, process exit); d's later chunks are
 * dropped until a new thread takes d. */
void ms_rec_thread_end(ms_thread_data *d);

/* ---- threads.c: threads mode and thread creation ---- */

/* 1 once events go to per-thread streams only (the in-process simulator is no longer fed). */
extern volatile int ms_streams_mode;
/* Start threads mode at activation (MEMSPY_THREADS=1 with a recording directory). */
void ms_threads_mode_start(void);
/* Switch to threads mode now, if streams are being recorded (a second thread appears): the
 * calling thread's buffer is simulated first and every stream restarts empty. Idempotent. */
void ms_threads_mode_enter(void);
/* Whether the switch happened mid-run (the raw file then carries a note). */
int ms_threads_mode_switched(void);
/* 1 once an OpenMP loop with a dynamic, guided or runtime schedule started (omp.c for gcc's
 * libgomp, ompt.c for clang's libomp): its iteration assignment is this run's and may differ
 * between runs. */
int ms_omp_dynamic_loops_seen(void);
/* Note that such a loop started. */
void ms_omp_saw_dynamic_loop(void);
/* Forget the runtime in a forked child (pthread_atfork child handler). */
void ms_threads_init(void);

/* ---- sync.c: synchronisation events ---- */

/* Record a sync event of the calling thread (threads mode only), stamped with the next
 * process-wide sequence number now; site: the return address of the program's synchronising
 * call (its code location, the stream's site; 0 unknown). */
void ms_sync_event(uint32_t kind, uint64_t obj, uint64_t arg, uintptr_t site);
/* ms_sync_event for an object in memory (a mutex, condition variable, barrier or semaphore
 * at address obj): the site's context also carries the data bin that holds the object, so
 * that a synchronisation wrapper's one call site splits by the program's objects and the
 * waiting analysis names them (events.c). */
void ms_sync_event_at(uint32_t kind, uint64_t obj, uint64_t arg, uintptr_t site);
/* Put a synchronisation-kind event (MS_SYNC_*, format/stream.h) into t's buffer as is: no
 * drain, no new sequence number (ms_sync_event does both; WORK events use this directly);
 * obj_bin: the data bin of the object (0 none), the bin of the site's context. */
void ms_sync_put(ms_thread *t, uint32_t kind, uint64_t obj, uint64_t arg, uint64_t seq, uintptr_t site,
                 uint32_t obj_bin);
/* dlsym of a real function, the default version or (version non-NULL) that version; the
 * lookup runs inside the runtime (nothing recorded). NULL if absent. */
void *ms_real_function(const char *name, const char *version);

/* ---- ompt.c: 1 once an OMPT tool session started (libomp): the GOMP wrappers then only
 * forward, OMPT callbacks record the events. ---- */
extern volatile int ms_ompt_active;

/* ---- globals.c: loaded modules and their global objects ---- */

typedef struct {
    uint64_t base, lo, hi;
    const char *path;
} ms_module;

/* Record the loaded modules and register their global objects. Returns 0 or -1. */
int ms_globals_init(void);
/* Append modules loaded since (dlopen); not async-signal-safe. */
void ms_modules_refresh(void);
uint32_t ms_modules_count(void);
/* The GLOBAL bin whose object contains addr, from the sorted table of all globals; 0 if none. */
uint32_t ms_globals_bin_at(uintptr_t addr);
const ms_module *ms_module_get(uint32_t i);

/* ---- tls.c: thread-local variables ---- */

/* A thread-local variable of module index module at offset in its TLS block (its bin is
 * made now; aliases are ignored). */
void ms_tls_add(uint32_t module, uint64_t offset, uint64_t size, const char *name);
/* The calling thread t starts recording: write its thread-local variables into the shadow
 * map and end its stack range below its TLS blocks. */
void ms_tls_thread_start(ms_thread *t);

/* ---- dump.c ---- */

/* Write MEMSPY_RAW_DIR/<pid>.raw once (later calls do nothing) and deactivate the runtime.
 * exit_kind is an MS_EXIT_*; from_signal selects the async-signal-safe path. */
void ms_dump(uint32_t exit_kind, int32_t exit_value, int from_signal);
/* Directory for the raw file (copied at activation). */
void ms_dump_set_dir(const char *dir);
/* The program an exec is about to start: named in a note of the dump (process.c). */
void ms_dump_set_exec(const char *target);

/* ---- process.c: exec, fork and vfork children ---- */

/* At activation: this image's generation (MEMSPY_GENERATION; NULL or "" for 0). */
void ms_process_init(const char *gen);
/* 0 for the first image of the process, n for the image started by its n-th profiled exec. */
uint32_t ms_process_generation(void);
/* 1 in the process that activated the runtime; 0 in a fork or vfork child (which shares the
 * parent's memory and must leave its state alone). */
int ms_process_is_owner(void);

/* ---- progress.c ---- */

/* References simulated by this run so far, in the shared MS_PROGRESS_FILE mapping; NULL
 * when it could not be mapped (progress is then simply not shown). */
extern uint64_t *ms_progress_refs;
/* Map dir/MS_PROGRESS_FILE (created if absent, never truncated: processes of one run share it). */
void ms_progress_init(const char *dir);

/* ---- signals.c ---- */

/* Install the fatal-signal handlers where the disposition is SIG_DFL. */
void ms_signals_init(void);

/* ---- strings.c ---- */

/* Resolve the real libc string functions (dlsym RTLD_NEXT). */
void ms_strings_init(void);
/* Look up the real longjmp family (longjmp.c). */
void ms_longjmp_init(void);

/* ---- alloc.c ---- */

/* Resolve the real C++ operator new family lazily; nothing to do at init for C. */
void ms_alloc_init(void);

#endif
