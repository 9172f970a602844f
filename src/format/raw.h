/* The raw profile file: what the runtime inside the profiled program hands to `memspy run`.
 * Versioned, self-describing, checksummed (Redis-rdb style):
 *
 *   header   : "MSPYRAW\0" (8 bytes), u32 version (MS_RAW_VERSION), u32 flags (MS_RAW_F_*)
 *   sections : u32 tag, u32 zero, u64 payload_len, payload[payload_len]   (repeated)
 *   trailer  : a section with tag MS_RAW_END and an 4-byte payload: u32 CRC-32 (zlib crc32)
 *              of every byte of the file before the trailer section.
 *
 * All integers little-endian, unaligned. Readers skip sections whose tag they do not know
 * (by contract: new sections never break old readers). A file without a valid trailer is
 * truncated: readers report that clearly and still use the complete sections before it.
 *
 * Section payloads (str = u16 len + bytes, no NUL):
 *  MS_RAW_INFO     : u32 pid, u32 exit_kind (MS_EXIT_*), i32 exit_value (status or signal),
 *                    u64 start_ns, u64 end_ns (CLOCK_MONOTONIC), u32 nthreads_seen,
 *                    str config (ms_config_format text), str exe path (/proc/self/exe)
 *  MS_RAW_MODULES  : u32 n; n x { u64 base (load bias), u64 lo, u64 hi (text+data span), str path }
 *  MS_RAW_BINS     : u32 n; n x { u32 id, u8 kind (MS_BIN_*), kind-specific:
 *                      HEAP  : u64 site_pc (return address of the allocation call),
 *                              u16 depth, depth x u64 call-site return addresses, outermost
 *                              first (the frame calling main's callee ... the allocator's caller;
 *                              where the site is in uninstrumented code, the native frames up to
 *                              the call into it come innermost, found by unwinding),
 *                              u64 objects, u64 bytes (allocations made, bytes requested),
 *                              u64 peak_bytes (largest simultaneously live)
 *                      GLOBAL: u64 addr, u64 size, u32 module index, str symbol name
 *                      STACK : u64 func_pc (a pc inside the function owning the frame)
 *                      OTHER : nothing
 *                    version 2 adds (a version 1 reader refuses the file, so these never
 *                    reach it):
 *                      MMAP  : a file mapped by the program: the HEAP fields (site_pc of the
 *                              mmap call, call path, mappings made, bytes, peak), then
 *                              str file path
 *                      TLS   : a thread-local variable: u64 offset in its module's TLS block,
 *                              u64 size, u32 module index, str symbol name
 *                      MAPPING: memory of no known object, by mapping (/proc/self/maps):
 *                              str label (the mapped file's path, "[heap]", "[stack]",
 *                              "[anon]", ...)
 *                    version 3 adds:
 *                      STACKVAR: a named variable in a function's stack frame: u64 func_pc
 *                              (as STACK), str variable name }
 *  MS_RAW_CONTEXTS : u32 n; n x { u32 ctx, u32 bin, u64 pc }  -- pc = return address of the
 *                    instrumentation call (or of the interposed libc call)
 *  MS_RAW_COUNTERS : u32 nlevels, u32 n; n x { u32 ctx, then ms_counters as u64 fields in this
 *                    order: reads, writes, stall_read, stall_write, and per level 0..nlevels-1:
 *                    read_misses, write_misses, cold, capacity, conflict, inval, writebacks }
 *  MS_RAW_SPATIAL  : u32 n; n x { u64 l1_fetched_bytes, u64 l1_used_bytes, u64 l1_ref_bits } --
 *                    the spatial counters (counters.def, sim.h) of the n records of the
 *                    COUNTERS section just before it, in its order (absent before them: 0)
 *  MS_RAW_EVICTIONS: u32 n; n x { u32 victim_ctx, u32 evictor_ctx, u32 level, u64 count }
 *  MS_RAW_NOTES    : u32 n; n x str  (warnings the runtime wants shown, e.g. dropped events)
 *  MS_RAW_STREAMS  : str dir -- the run was multithreaded: its per-thread event streams are in
 *                    dir (src/format/stream.h) and the counters come from replaying them
 *                    (`memspy run` does); COUNTERS/EVICTIONS are then absent or partial.
 *  MS_RAW_BLOCKS   : basic blocks of plugin-instrumented code, index = run-global block id (the
 *                    streams' WORK events name them): u32 n; n x { u64 pc (the block's first
 *                    statement + 1), u32 loop (innermost loop's id, UINT32_MAX none), u32 memops
 *                    (memory operations instrumented in it), u32 stmts (its GIMPLE statements),
 *                    u32 first_line, u32 last_line (its statements' lines in its function's
 *                    file, 0 unknown), u64 count (executions, all threads) }
 *  MS_RAW_LOOPS    : natural loops, index = loop id: u32 n; n x { u32 parent (UINT32_MAX:
 *                    outermost), u32 depth (1 = outermost), u32 header (the header block's id,
 *                    UINT32_MAX unknown), u64 pc (the header block's pc) }
 *  MS_RAW_PLAIN_PCS: after BLOCKS, the blocks of versioned functions in their plain copies:
 *                    u32 n; n x { u32 block id, u64 pc (the block's first statement + 1 in the
 *                    plain copy) }; blocks not listed have no plain copy
 *  MS_RAW_SAMPLES  : MTOOL's timing run (MEMSPY_SAMPLE_NS, src/rt/sample.c): u64 period_ns (CPU
 *                    time per sample: process CPU time while sampling / samples taken), u64 lost (samples the table had no room for), u64 runtime
 *                    (samples inside memspy's runtime: buffer drains), u32 n;
 *                    n x { u64 pc (the interrupted instruction), u64 count }
 *  MS_RAW_CALLS    : call edges of plugin-instrumented code (calls of functions, builtins
 *                    excepted): u32 n; n x { u32 caller_block (block id), u64 callee_pc (the
 *                    callee's address: its entry, or the function pointer called), u64 count
 *                    (calls, all threads) }, sorted by caller block, then callee
 *  MS_RAW_DESTS    : allocation destinations of plugin-instrumented code, as the plugin
 *                    emitted them: u32 n; n x { u64 pc (a label just before the call), u64
 *                    end (a label just after it, 0 none), str record (text, format in
 *                    src/rt/msplug_abi.h, led by its own version) }
 *  MS_RAW_HEAP_LAYOUT: where glibc placed the first block of each HEAP bin, for `memspy
 *                    whatif`'s model of the allocator (docs/whatif.md): u32 n; n x { u32 bin,
 *                    u64 seq (allocation order of that block among the program's blocks, from
 *                    1), u64 addr, u64 request (bytes asked for), u64 chunk (glibc's size word
 *                    below the block: chunk bytes | 4 NON_MAIN_ARENA | 2 IS_MMAPPED), u64
 *                    mapped (blocks of the bin glibc served by a mapping of their own) }.
 *                    Added after version 3 as a section (older readers skip it; a raw file
 *                    without it has no layout: whatif then moves only the changed bins)
 */
#ifndef MEMSPY_FORMAT_RAW_H
#define MEMSPY_FORMAT_RAW_H
#include <stddef.h>
#include <stdint.h>
#include "../sim/sim.h"

#define MS_RAW_MAGIC "MSPYRAW" /* 7 chars + NUL = 8 bytes */
#define MS_RAW_VERSION 3u      /* 2: bin kinds MMAP, TLS, MAPPING; 3: STACKVAR */
#define MS_RAW_F_INCOMPLETE 1u /* the program crashed, aborted or called _exit */

/* Progress file in MEMSPY_RAW_DIR, beside the raw files: one native-endian u64, the number of
 * references the runtimes of the run have simulated so far (added atomically through a
 * shared mapping). `memspy run` reads it to show progress; nothing else depends on it. */
#define MS_PROGRESS_FILE "progress"

enum {
    MS_RAW_INFO = 1,
    MS_RAW_MODULES = 2,
    MS_RAW_BINS = 3,
    MS_RAW_CONTEXTS = 4,
    MS_RAW_COUNTERS = 5,
    MS_RAW_EVICTIONS = 6,
    MS_RAW_NOTES = 7,
    MS_RAW_STREAMS = 8,
    MS_RAW_BLOCKS = 9,
    MS_RAW_LOOPS = 10,
    MS_RAW_SAMPLES = 11,
    MS_RAW_CALLS = 12,
    MS_RAW_PLAIN_PCS = 14,
    MS_RAW_SPATIAL = 15,
    MS_RAW_DESTS = 16,
    MS_RAW_HEAP_LAYOUT = 19,
    MS_RAW_END = 0x454e4421u /* "!DNE" */
};

/* MS_EXIT_EXEC: the image ended by an exec of another program (its statistics are whole;
 * exit_value is 0 in the raw file, the final status is the process's). */
enum { MS_EXIT_NORMAL = 0, MS_EXIT_SIGNAL = 1, MS_EXIT_UNDERSCORE = 2 /* _exit/_Exit */, MS_EXIT_EXEC = 3 };

/* Kinds of data bins. The result model uses only the first four: the analysis files MMAP
 * under HEAP (a dynamic allocation), TLS under GLOBAL, MAPPING under OTHER and STACKVAR
 * under STACK. */
typedef enum {
    MS_BIN_HEAP = 0,
    MS_BIN_GLOBAL = 1,
    MS_BIN_STACK = 2,
    MS_BIN_OTHER = 3,
    MS_BIN_MMAP = 4,
    MS_BIN_TLS = 5,
    MS_BIN_MAPPING = 6,
    MS_BIN_STACKVAR = 7
} ms_bin_kind;

/* The label of the MAPPING bin of malloc's bookkeeping (chunk headers, free-list links) that
 * the runtime records for the program's allocations; no /proc/self/maps label starts with
 * '('. The analysis names it heap:headers. */
#define MS_RAW_LABEL_HEAP_HEADERS "(malloc headers)"
/* The label of a MAPPING bin of a file mapped read-only (a module's .rodata: string literals,
 * the compilers' constants) is this prefix and the file's path. The analysis names it
 * const:FILE. */
#define MS_RAW_LABEL_READONLY "(read-only) "

/* ---- reader side (analysis; uses malloc) ---- */

typedef struct {
    uint64_t base, lo, hi;
    char *path;
} ms_raw_module;

typedef struct {
    uint32_t id;
    ms_bin_kind kind;
    uint64_t pc;                         /* HEAP, MMAP: site_pc; STACK, STACKVAR: func_pc */
    uint16_t depth;                      /* HEAP, MMAP */
    uint64_t *path;                      /* HEAP, MMAP: depth call-site return addresses, outermost first */
    uint64_t objects, bytes, peak_bytes; /* HEAP, MMAP */
    uint64_t addr, size;                 /* GLOBAL; TLS: offset in the TLS block, size */
    uint32_t module;                     /* GLOBAL, TLS */
    char *name; /* GLOBAL, TLS: symbol name; MMAP: file path; MAPPING: label; STACKVAR: variable */
    /* HEAP, from MS_RAW_HEAP_LAYOUT (first_seq 0: not recorded): the bin's first block */
    uint64_t first_seq, first_addr, first_request, first_chunk, mapped;
} ms_raw_bin;

typedef struct {
    uint32_t ctx, bin;
    uint64_t pc;
} ms_raw_context;
typedef struct {
    uint32_t ctx;
    uint32_t cpu;
    ms_counters c;
} ms_raw_counter; /* cpu 0 unless
                                                   * a multiprocessor replay filled it */

/* A basic block (MS_RAW_BLOCKS) and a loop (MS_RAW_LOOPS). */
typedef struct {
    uint64_t pc;
    uint32_t loop, memops, stmts;
    uint32_t first_line, last_line;
    uint64_t count;
    uint64_t plain_pc; /* MS_RAW_PLAIN_PCS: the same in the plain copy, 0 if none */
} ms_raw_block;
typedef struct {
    uint32_t parent, depth, header;
    uint64_t pc;
} ms_raw_loop;
/* A sampled pc (MS_RAW_SAMPLES) and how often the CPU-time timer found the program there. */
typedef struct {
    uint64_t pc, count;
} ms_raw_sample;
/* A call edge (MS_RAW_CALLS). */
typedef struct {
    uint32_t caller_block;
    uint64_t callee_pc, count;
} ms_raw_call;

/* A thread of a replayed multithreaded run (filled by the CLI from the replay, not on disk). */
typedef struct {
    uint32_t index, cpu;
    int32_t parent; /* creating thread's index, -1 unknown */
    uint64_t accesses, syncs, wait_turns;
    int complete;
    uint64_t compute, stall, waiting, sync; /* timed replay: cycles by kind */
} ms_raw_thread;

/* The waiting-time analysis of a timed replay (analysis/waiting_collect.h; in memory only):
 * per synchronisation point (kind, object, the waiters' code context), the waiting in
 * simulated cycles split into Carnival's classes, and the blocks the late processors executed
 * more than the waiting ones since their previous synchronisation. */
enum { MS_WAIT_LOAD_IMBALANCE, MS_WAIT_INSUFFICIENT_PARALLELISM, MS_WAIT_COMMUNICATION, MS_WAIT_NCLASSES };
typedef struct {
    uint32_t block;
    uint64_t extra_count, extra_cycles;
} ms_raw_wait_extra;
typedef struct {
    uint32_t ctx; /* the code context whose references stalled */
    uint64_t cycles;
} ms_raw_wait_stall;
/* Carnival's equivalence class of paths: the instances whose late path executed extra the
 * same set of blocks (signature); lead: the block with most extra cycles (UINT32_MAX none). */
typedef struct {
    uint64_t signature;
    uint32_t lead;
    uint64_t instances, cycles;
} ms_raw_wait_path;
typedef struct {
    uint32_t kind; /* MS_SYNC_* of the waiting event */
    uint64_t obj;
    uint32_t ctx; /* context of the waiters' last access before the wait (0 unknown) */
    uint64_t instances, cycles;
    uint64_t classes[MS_WAIT_NCLASSES]; /* cycles by class; their sum is cycles */
    uint64_t extra_stall;               /* the late paths' stall beyond the waiters' */
    ms_raw_wait_extra *extra;           /* by cycles, descending */
    size_t nextra;
    ms_raw_wait_stall *stall; /* the late paths' extra stall by context, descending */
    size_t nstall;
    ms_raw_wait_path *paths; /* equivalence classes of the instances, by cycles descending */
    size_t npaths;
    uint64_t *by_cpu; /* the classes per waiting processor: [cpu * MS_WAIT_NCLASSES + class], ncpus
                       * processors (the analysis tells a thread that does no work apart) */
    unsigned ncpus;
} ms_raw_wait_point;

typedef struct {
    uint32_t version, flags;
    uint32_t pid, exit_kind, nthreads;
    int32_t exit_value;
    uint64_t start_ns, end_ns;
    char *config_text, *exe;
    int nlevels;
    ms_raw_module *modules;
    size_t nmodules;
    ms_raw_bin *bins;
    size_t nbins;
    ms_raw_context *contexts;
    size_t ncontexts;
    ms_raw_counter *counters;
    size_t ncounters;
    ms_eviction *evictions;
    size_t nevictions;
    char **notes;
    size_t nnotes;
    /* Multiprocessor replay results (in memory only; zero for a one-processor run): */
    uint32_t nprocs; /* simulated processors (0 = 1) */
    ms_invalidation *invalidations;
    size_t ninvalidations;
    ms_raw_thread *threads;
    size_t nthreads_replayed;
    char *interleave;     /* "interleaved" / "piped", NULL */
    int truncated;        /* no valid trailer: sections read so far are kept */
    char *streams_dir;    /* MS_RAW_STREAMS, NULL if the run recorded no threads' streams */
    ms_raw_block *blocks; /* MS_RAW_BLOCKS (none without plugin-instrumented code) */
    size_t nblocks;
    ms_raw_loop *loops; /* MS_RAW_LOOPS */
    size_t nloops;
    /* timed replay only (in memory): waiting per synchronisation point, by cycles descending */
    ms_raw_wait_point *wait_points;
    size_t nwait_points;
    int timed;              /* the replay kept time: threads' cycles and wait points are set */
    int timed_approximate;  /* ... without WORK events: compute estimated per reference */
    const char *work_cost;  /* how block cycles were estimated (static text), NULL none */
    ms_raw_sample *samples; /* MS_RAW_SAMPLES (none unless the run sampled) */
    size_t nsamples;
    uint64_t sample_period_ns, samples_lost, samples_runtime;
    ms_raw_call *calls; /* MS_RAW_CALLS */
    size_t ncalls;
    char **dests;       /* MS_RAW_DESTS: destination records (text) */
    uint64_t *dest_pcs; /* ... and per record two pcs: the labels before and after its call */
    size_t ndests;
} ms_raw;

/* Read and verify a raw file. Returns 0 (possibly with raw->truncated set), or -1 with err
 * naming the problem (not a memspy raw file, newer version, corrupt section at offset N). */
int ms_raw_read(const char *path, ms_raw *raw, char *err, size_t errlen);
void ms_raw_free(ms_raw *raw);

/* Append a note (printf format) to raw->notes, shown with the result. Returns 0 or -1 (out of
 * memory). */
int ms_raw_add_note(ms_raw *raw, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- writer side (runtime; no malloc, async-signal-safe: only write/pwrite/lseek/read) ---- */

typedef struct {
    int fd;
    uint64_t section_start; /* offset of the current section's header */
    int in_section, failed;
    unsigned char buf[8192];
    size_t used;
    uint64_t offset; /* bytes written to the file so far (incl. buf) */
} ms_raw_writer;

/* Start a raw file on an open, empty, writable fd. Returns 0 or -1. */
int ms_raw_writer_begin(ms_raw_writer *w, int fd, uint32_t flags);
void ms_raw_section_begin(ms_raw_writer *w, uint32_t tag);
void ms_raw_put_u8(ms_raw_writer *w, uint8_t v);
void ms_raw_put_u16(ms_raw_writer *w, uint16_t v);
void ms_raw_put_u32(ms_raw_writer *w, uint32_t v);
void ms_raw_put_u64(ms_raw_writer *w, uint64_t v);
void ms_raw_put_str(ms_raw_writer *w, const char *s); /* truncates at 65535 bytes */
void ms_raw_put_counters(ms_raw_writer *w, const ms_counters *c, int nlevels);
void ms_raw_section_end(ms_raw_writer *w);
/* Append the checksum trailer. Returns 0, or -1 if any write failed. Does not close fd. */
int ms_raw_writer_finish(ms_raw_writer *w);

#endif
