/* Set-partitioned simulation: a wrapper of P ordinary simulators (sim.h) with the same
 * configuration, each fed the references whose partition key (address >> the largest line or
 * coherence-unit shift) is its number modulo P. P is a power of two no larger than any
 * level's set count allows, so every level's sets, line records, evictors, replacement pairs
 * and coherence units stay whole inside one partition (docs/simulator.md, "Partitioned
 * simulation"). The wrapper appends every reference, in stream order, to one batch for all
 * partitions and hands full ones to the caller, whose workers route each batch in slices to
 * per-worker index lists (ms_psim_route) and run their own lists (ms_psim_apply_list), on
 * threads the caller owns: the simulator stays a pure library. Routing is thereby the
 * workers' work, split between them, and the producer only appends. Results are merged in a fixed order, so they do not
 * depend on the schedule.
 * Exact against one simulator except: each partition's 3C shadow holds 1/P of the lines (the
 * capacity/conflict split may move), and a reference straddling two lines of different
 * partitions is split into one reference per line (counted in ms_psim_straddles). */
#ifndef MEMSPY_SIM_PSIM_H
#define MEMSPY_SIM_PSIM_H
#include "sim.h"

#define MS_PSIM_MAX_PARTS 64u
/* Operations per batch: 4096 x 32 bytes = 128 KiB (one batch is being filled; the workers'
 * index lists of a batch, 2 bytes per operation, are routed from it: ms_psim_route). */
#define MS_PSIM_BATCH 4096u

/* One queued operation in 32 bytes, laid out so that a producer may copy its own records of
 * the same layout (the replay's events) in one piece: kind 0 a reference (size any, flags
 * MS_ACC_WRITE | MS_ACC_LOCKED | cpu << MS_PSIM_OP_CPU_SHIFT), MS_PSIM_OP_REGION a region
 * boundary. A reference with context 0 or size 0 is not simulated (counted: ms_psim_unattributed);
 * one beyond the L1 line, or whose first and last byte lie in different partitions, is
 * simulated as one reference per line (ms_psim_access_range; the second kind counted in
 * ms_psim_straddles). Routing (ms_psim_route) marks these MS_PSIM_OP_SKIP and
 * MS_PSIM_OP_LINES. aux is not read. */
typedef struct {
    uint64_t addr;
    uint64_t size;
    uint64_t aux;
    uint32_t ctx;
    uint16_t kind;
    uint16_t flags;
} ms_psim_op;
#define MS_PSIM_OP_REGION 1u
#define MS_PSIM_OP_LINES 2u
#define MS_PSIM_OP_SKIP 3u
#define MS_PSIM_OP_CPU_SHIFT 3

/* A batch of operations of every partition, in stream order. */
typedef struct ms_psim_batch {
    uint32_t n;
    ms_psim_op op[MS_PSIM_BATCH];
} ms_psim_batch;

/* The caller's queue: take a full batch (to be applied, for every partition, in order with
 * the earlier ones) and return an empty one, or NULL when out of memory (the wrapper then
 * queues nothing more and counts the lost references). */
typedef ms_psim_batch *(*ms_psim_submit_fn)(void *ud, ms_psim_batch *full);

typedef struct ms_psim ms_psim;

/* A new empty batch from the wrapper's allocator (NULL: no memory), and its release. For the
 * caller's queue; call both from one thread at a time. */
ms_psim_batch *ms_psim_batch_new(ms_psim *ps);
void ms_psim_batch_free(ms_psim *ps, ms_psim_batch *b);

/* The number of partitions for `want` workers under cfg: the smallest power of two >= want,
 * capped so that every level's set index and the coherence unit keep whole sets (1 with
 * random replacement, whose random sequence is per level). */
unsigned ms_psim_parts_for(const ms_hier_config *cfg, unsigned want);

/* Create nparts (a value of ms_psim_parts_for) simulators for cfg and their first batches
 * (from alloc). Returns 0, or -1 on bad config / no memory. */
int ms_psim_create(ms_psim **out, const ms_hier_config *cfg, const ms_allocator *alloc, unsigned nparts,
                   ms_psim_submit_fn submit, void *ud);
void ms_psim_destroy(ms_psim *ps);

unsigned ms_psim_parts(const ms_psim *ps);

/* Direct mode (one partition only; the timed replay, which needs each reference's latency at
 * once): every operation is applied when it is queued, in the caller's thread, and nothing is
 * handed to the caller's queue. Returns 0, or -1 with more than one partition. */
int ms_psim_set_direct(ms_psim *ps);
/* Direct mode: the deepest level that served a reference since the last call (0 = L1 hits
 * only, nlevels = memory), or -1 when none was applied; *comm: 1 if one of those references
 * communicated (ms_sim_comm_refs: its data came from another processor or node), else 0;
 * *stall: their stall in cycles exactly as their counters' stall_read/stall_write got it
 * (the serving level's latency, a remote memory's, a directory upgrade's: docs/simulator.md). */
int ms_psim_take_level(ms_psim *ps, int *comm, uint64_t *stall);
/* Direct mode, no level pending: ms_psim_access then ms_psim_take_level of one reference in
 * one call, the timed replay's per-reference path. Returns its stall (0 when it was not
 * applied); *comm as ms_psim_take_level's, or -1 when cpu is out of range (ms_psim_access's
 * -1: not applied, not counted; out of memory it is counted as lost). */
uint64_t ms_psim_access_stall(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx,
                              int *comm);

/* Queue a reference (as ms_sim_access: size 1..line). Returns 0, or -1 if cpu is out of range
 * (not counted). */
int ms_psim_access(ms_psim *ps, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);

/* Appending without a call per reference (a producer's run of references): up to *room
 * operations may be written at the returned address (NULL, *room 0: none now, or direct
 * mode), each a reference (kind 0, cpu < ms_psim_nprocs) as ms_psim_op_ref writes it or a copy
 * of the same layout, then ms_psim_commit(ps, k) queues the first k of them; further
 * references go through ms_psim_access, after a commit, and room is asked for again. Each is
 * simulated as ms_psim_access would, except that context 0 or size 0 is not simulated. */
ms_psim_op *ms_psim_room(ms_psim *ps, uint32_t *room);
void ms_psim_commit(ms_psim *ps, uint32_t k);

/* Write a reference (cpu < ms_psim_nprocs, flags MS_ACC_*) into an operation. */
static inline void ms_psim_op_ref(ms_psim_op *o, unsigned cpu, uint64_t addr, uint64_t size, unsigned flags,
                                  uint32_t ctx)
{
    o->addr = addr;
    o->size = size;
    o->aux = 0;
    o->ctx = ctx;
    o->kind = 0;
    o->flags = (uint16_t)(cpu << MS_PSIM_OP_CPU_SHIFT | (flags & (MS_ACC_WRITE | MS_ACC_LOCKED)));
}

/* Queue a byte range as one reference per touched line (as ms_sim_access_range). */
void ms_psim_access_range(ms_psim *ps, unsigned cpu, uint64_t addr, uint64_t len, unsigned flags, uint32_t ctx);

/* Queue a region boundary for every partition (ms_sim_next_region), in stream order. */
void ms_psim_next_region(ms_psim *ps);

/* Hand the batch being filled to the caller if it holds anything (at the end of the stream). */
void ms_psim_flush(ms_psim *ps);

/* Run the operations of batch b that belong to the partitions in `parts` (bit p: partition
 * p; every batch must be run once for every partition) into their simulators. Thread-safe
 * for disjoint sets of partitions; run a partition's batches in order, one at a time. Every
 * caller passes over the whole batch: for one worker; more share a batch's routing
 * (ms_psim_route, ms_psim_apply_list). */
void ms_psim_apply(ms_psim *ps, const ms_psim_batch *b, uint64_t parts);

/* The partitions of worker i of n (partition p goes to worker p % n), as ms_psim_apply takes
 * them. */
uint64_t ms_psim_worker_parts(const ms_psim *ps, unsigned i, unsigned n);

/* Routing a slice of a batch, so that each worker touches only its own references: the
 * indices of b's operations [lo, hi) go, in order, to the list of the worker that runs them
 * (worker_of[p]: partition p's worker, < nworkers), worker w's list at idx + w * cap (cap >=
 * hi - lo entries), its length in cnt[w]; a region boundary and a reference to split per
 * line go to every worker's list (marked MS_PSIM_OP_LINES), one not simulated to none (marked
 * MS_PSIM_OP_SKIP). Writes only the slice's operations; any thread may route any slice. A
 * worker then runs its lists of every slice, in slice order, with ms_psim_apply_list: its
 * partitions' references in stream order. */
void ms_psim_route(ms_psim *ps, ms_psim_batch *b, uint32_t lo, uint32_t hi, const uint8_t *worker_of, unsigned nworkers,
                   uint16_t *idx, uint32_t cap, uint32_t *cnt);

/* Run the n operations of b at indices idx (a list of ms_psim_route for the worker of the
 * partitions in parts) into their simulators: as ms_psim_apply(ps, b, parts) does, once every
 * slice's list has been run in order. */
void ms_psim_apply_list(ms_psim *ps, const ms_psim_batch *b, const uint16_t *idx, uint32_t n, uint64_t parts);

/* After every batch has been applied: finish every partition (ms_sim_finish) and merge their
 * counters (indexed as ms_sim_counters; *n entries; owned by ps). NULL when out of memory. */
const ms_counters *ms_psim_counters(ms_psim *ps, uint32_t *n);

/* Merged replacement / invalidation pairs, ordered by their keys. -1 when out of memory. */
int ms_psim_each_eviction(const ms_psim *ps, void (*fn)(const ms_eviction *e, void *ud), void *ud);
int ms_psim_each_invalidation(const ms_psim *ps, void (*fn)(const ms_invalidation *e, void *ud), void *ud);

unsigned ms_psim_nprocs(const ms_psim *ps);
const ms_hier_config *ms_psim_config(const ms_psim *ps);

/* References lost to out-of-memory in the simulators or the queue (the run is incomplete),
 * straddling references split into one reference per line, and references of context 0 or
 * size 0 queued and not simulated. After every batch has been applied. */
uint64_t ms_psim_lost(const ms_psim *ps);
uint64_t ms_psim_straddles(const ms_psim *ps);
uint64_t ms_psim_unattributed(const ms_psim *ps);

/* The simulator of partition p (tests). */
ms_sim *ms_psim_part(ms_psim *ps, unsigned p);

#endif
