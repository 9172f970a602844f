/* The memory-hierarchy simulator: a pure library. All state lives in ms_sim; memory comes
 * from the caller's allocator (the runtime must not use the program's malloc); no I/O.
 *
 * Model: 1..3 levels, each set-associative, write-back + write-allocate, with LRU, tree-PLRU
 * or (deterministic, seeded) random replacement. An access is looked up level by level; the
 * first level that hits serves it and the line is filled into every level above it. A dirty
 * victim is written back to the next level (counted as a writeback there; it updates that
 * level's dirty bit, allocating the line if absent, and is not a reference).
 *
 * Miss causes per level (the 3C rule): COLD if that level has never held the line; else
 * CONFLICT if a fully associative LRU cache with the same number of lines, fed the same
 * reference stream as that level, would have hit; else CAPACITY. INVAL (multiprocessor only):
 * the line was taken from that private level by another processor's write (a coherence
 * miss; docs/simulator.md, "Multiprocessor"). For every replacement miss the simulator remembers which context
 * evicted the line from that level and counts (victim ctx, evictor ctx, level) pairs: MemSpy's
 * "causes of replacements".
 *
 * Contexts: the caller attributes each access to a context id (ctx), dense small integers it
 * chooses (the runtime uses one per (code location, data bin) pair). Counters are kept per ctx.
 *
 * Stall: an access served by level k costs latency(k) - latency(L1) cycles; by memory,
 * mem_latency - latency(L1) (with several processors also a remote memory's latency and a
 * directory upgrade's: docs/simulator.md, "Multiprocessor"). An access that straddles two lines is one reference, looked up
 * on both lines; it misses at a level if either line misses; its stall is the larger one. */
#ifndef MEMSPY_SIM_SIM_H
#define MEMSPY_SIM_SIM_H
#include <stddef.h>
#include <stdint.h>
#include "config.h"

/* Miss causes (MS_CAUSE_COLD, _CAPACITY, _CONFLICT, _INVAL) and Carnival's access patterns
 * (section 2.2), by which communication misses are explained (MS_PAT_SPSC ... MS_PAT_COLD_START):
 * declared in counters.def. */
#define MS_CAUSE(id, name, event, desc) MS_CAUSE_##id,
enum {
#include "counters.def"
    MS_NCAUSES
};
#define MS_PATTERN(id, name) MS_PAT_##id,
enum {
#include "counters.def"
    MS_NPATTERNS
};

/* Caller-supplied allocator: alloc returns zeroed memory or NULL. */
typedef struct {
    void *(*alloc)(void *ud, size_t bytes);
    void (*release)(void *ud, void *p, size_t bytes);
    void *ud;
} ms_allocator;

/* The counter structs, generated from counters.def (every counter is declared there once). */

/* Where a counter's column goes in the exports (the `exp` of counters.def). */
enum { MS_EXP_NONE, MS_EXP_HEAD, MS_EXP_TAIL, MS_EXP_MISSES, MS_EXP_BELOW_L1 };

/* Per-level counters of one context; cause[] sums to read_misses + write_misses. */
#define MS_LEVEL_COUNTER(member, exp, csv, event, desc) uint64_t member;
#define MS_LEVEL_CAUSES uint64_t cause[MS_NCAUSES];
typedef struct {
#include "counters.def"
} ms_level_counters;

/* Invalidations (multiprocessor only; ccSIM section 3.2). "Received" ones are counted on the
 * (ctx, cpu) whose access fetched the coherence unit into the victim processor's caches
 * (ccSIM's per-reference attribution) before another processor's write invalidated that
 * copy; "sent" on the writer's (ctx, cpu). Each received invalidation is in exactly one of
 * the four true/false x in/across classes: true = the writer wrote bytes the victim had
 * touched; in = no region boundary between the victim's last access and the write.
 * with_lock: in-region ones whose writer held a lock; followed_by_miss: the victim then
 * missed on the unit (coherence miss). */
#define MS_INVAL_COUNTER(member) uint64_t member;
typedef struct {
#include "counters.def"
} ms_inval_counters;

/* Counters of one context (also used for totals and aggregated bins). Multiprocessor-only
 * ones are zero otherwise: local_misses and remote_misses are misses leaving the private
 * levels, by whether the serving memory/cache is on the processor's node; pattern[] counts
 * the communication misses explained by each access pattern. */
typedef struct {
#define MS_COUNTER(member, exp, csv, event, desc) uint64_t member;
#include "counters.def"
    ms_level_counters level[MS_MAX_LEVELS];
    ms_inval_counters inval;
#define MS_MP_COUNTER(member) uint64_t member;
#include "counters.def"
    uint64_t pattern[MS_NPATTERNS];
#define MS_SPATIAL_COUNTER(member) uint64_t member;
#include "counters.def"
    uint64_t l1_ref_bits; /* with utilisation: the used-mask bits (offsets within an L1 line, as
                           * l1_used_bytes counts them) of every byte this context referenced,
                           * OR-ed (ms_counters_add ORs it): which fields of a structure it uses */
    uint64_t reserved;    /* always 0: 45 words, which gcc indexes (&ctrs[ctx]) in 3 instructions;
                           * at 44 the hot paths took 2 more per reference (docs/simulator.md,
                           * "Spatial utilisation", Cost) */
} ms_counters;

/* One (victim ctx, evictor ctx, level) replacement-cause pair. */
typedef struct {
    uint32_t victim_ctx, evictor_ctx;
    uint32_t level; /* 0 = L1 */
    uint64_t count;
} ms_eviction;

typedef struct ms_sim ms_sim;

/* One (victim ctx and processor, invalidating ctx and processor) pair: "causes of
 * invalidations", counted like the replacement pairs. */
typedef struct {
    uint32_t victim_ctx, victim_cpu;
    uint32_t inval_ctx, inval_cpu;
    uint64_t count;
} ms_invalidation;

/* Access flags. */
#define MS_ACC_WRITE 1u
#define MS_ACC_LOCKED 2u /* the accessing processor holds a lock (invalidation classes) */

/* Create a simulator for cfg (which must validate). Returns 0, or -1 on bad config / no memory. */
int ms_sim_create(ms_sim **out, const ms_hier_config *cfg, const ms_allocator *alloc);
void ms_sim_destroy(ms_sim *sim);

/* Simulate one reference of size bytes (1..line) at addr by processor cpu (< the config's
 * nprocs, 0 when it is 1) for context ctx. Returns the index of the level that served it
 * (0 = L1 hit, nlevels = memory), or -1 if out of memory for counters or cpu is out of range
 * (the access is then not counted). */
int ms_sim_access(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);

/* The hit window, an exact filter that counts the repeated L1 hits of a one-processor LRU
 * hierarchy without simulating each (window.h), is on by default where it applies. Turning it
 * off changes no result: for tests comparing both, for measuring it, and for callers that run
 * their own window in front of the simulator. */
void ms_sim_set_window(ms_sim *sim, int on);

/* Add references already known to be L1 hits (counted by a hit window in front of the
 * simulator, window.h) to ctx's reads and writes, processor 0. Returns 0, or -1 if out of
 * memory for counters. */
int ms_sim_count(ms_sim *sim, uint32_t ctx, uint64_t reads, uint64_t writes);

/* Simulate a byte range [addr, addr+len) as one reference per touched line (memcpy & co). */
void ms_sim_access_range(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags, uint32_t ctx);

/* Counters indexed by ctx * nprocs + cpu (nprocs = ms_sim_nprocs; with one processor simply
 * by ctx); *n receives the number of entries (max ctx + 1) * nprocs. */
const ms_counters *ms_sim_counters(const ms_sim *sim, uint32_t *n);

/* The used-bytes share of what L1 fetched for c (l1_used_bytes / l1_fetched_bytes; 0 when
 * nothing was fetched): docs/simulator.md, "Spatial utilisation". */
double ms_counters_utilisation(const ms_counters *c);

/* Number of simulated processors (the config's nprocs, at least 1). */
unsigned ms_sim_nprocs(const ms_sim *sim);

/* How many references so far communicated (multiprocessor only; 0 otherwise): a reference
 * communicates when one of its lines missed every private level and its data came from
 * another processor: a coherence miss (the copy was invalidated by another processor's
 * write), the processor's first reference to a coherence unit another processor wrote
 * (cold start), a dirty copy supplied by another processor's cache, or service by another
 * node (remote); or when a write to a line it held read-only (an upgrade, no miss; it stalls
 * the directory's latency) invalidated another processor's copy. Cold, capacity and conflict
 * misses served locally do not. The waiting-time analysis tells communication from other
 * stall by it (docs/design-threads.md). */
uint64_t ms_sim_comm_refs(const ms_sim *sim);

/* A region boundary (barrier, fork/join, thread create/join) has been passed: accesses after
 * it are in a new region for the in-region/across-region classification. The replay calls it;
 * regions are numbered globally. */
void ms_sim_next_region(ms_sim *sim);

/* Close what is still open at the end of a simulation (pending access-pattern rounds), so that
 * pattern counters are complete. Call once, before reading counters; idempotent. */
void ms_sim_finish(ms_sim *sim);

/* Call fn for every recorded invalidation pair, in a deterministic order. */
void ms_sim_each_invalidation(const ms_sim *sim, void (*fn)(const ms_invalidation *e, void *ud), void *ud);

/* Sum of all contexts' counters. */
void ms_sim_totals(const ms_sim *sim, ms_counters *out);

/* Call fn for every recorded replacement-cause pair, in a deterministic order. */
void ms_sim_each_eviction(const ms_sim *sim, void (*fn)(const ms_eviction *e, void *ud), void *ud);

/* The configuration the simulator was created with. */
const ms_hier_config *ms_sim_config(const ms_sim *sim);

/* Bytes of memory currently held by the simulator (for the documented memory bound). */
size_t ms_sim_memory(const ms_sim *sim);

/* Add b into a (all fields). */
void ms_counters_add(ms_counters *a, const ms_counters *b);

#endif
