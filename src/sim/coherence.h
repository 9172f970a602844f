/* The multiprocessor simulator's state (coherence.c), shared with the callers that inline its
 * quiet-hit test: ms_coh_access_line64 and the partitioned simulator's loop (psim.c), which
 * settles a quiet hit without a call per reference. Private to src/sim. */
#ifndef MEMSPY_SIM_COHERENCE_H
#define MEMSPY_SIM_COHERENCE_H
#include "sim_internal.h"

/* Per processor: the unit it accessed last + 1 (0: none) and that unit's directory record,
 * its L1 and the L1's shadow (the words a quiet hit reads, side by side). */
typedef struct {
    uint64_t last_unit;
    uint64_t *last_dir;
    ms_cache *l1;
    ms_fa *fa;
} ms_coh_proc;

/* The directory: a record of 64-bit words per coherence unit, in a linemeta keyed by unit.
 * The words every access uses come first (the unit's state, then each processor's words);
 * the round's pending misses, used on communication misses only, come last. */
#define DIR_NPENDING 4
enum {
    DIR_SHARERS = 0, /* processors that may hold lines of the unit (clean lines leave silently) */
    DIR_WRITERS,     /* processors that ever wrote it (the cold-start rule) */
    DIR_OWNER,       /* exclusive owner's cpu + 1 (0: none), | DIR_MODIFIED when M (else E) */
    DIR_PRODUCERS,   /* the pattern round: processors that wrote in it */
    DIR_CONSUMERS,   /* ... and that took a communication read miss in it */
    DIR_PROCS        /* then PROC_WORDS words per processor, then the pending entries: */
};
/* DIR_NPENDING entries of (key, count) from word coh->dir_pending: the round's communication
 * misses. */
#define DIR_MODIFIED (1ull << 32)
#define DIR_OWNER_CPU 0xffu

/* Per processor and unit. */
enum {
    PROC_TOUCHED = 0, /* granules touched since it fetched the unit (bit i = unit/64 bytes) */
    PROC_LAST,        /* last access: ctx + 1 (low 32 bits; 0 = never), region (high 32 bits) */
    PROC_INVALIDATED, /* low 32 bits: ctx + 1 its last invalidation was counted on, until it
                        * misses again; high 32 bits: ctx + 1 of the access that fetched the
                        * unit into its caches (invalidations are received on that one) */
    PROC_WORDS
};

/* Pending entry key: ctx | cpu << 32 | cold << 40 | valid << 41. */
#define PENDING_COLD (1ull << 40)
#define PENDING_VALID (1ull << 41)

struct ms_coherence {
    ms_view views[MS_MAX_PROCS];
    ms_cache *private_cache; /* processor p's level k < shared_from: [p * shared_from + k] */
    ms_fa *private_fa;       /* and their shadows */
    size_t private_cache_bytes, private_fa_bytes;
    int shared_from; /* first shared level (nlevels: none) */
    unsigned unit_shift, granule_shift;
    unsigned nnodes, procs_per_node;
    uint64_t remote_stall; /* stall of a miss served by another node's memory */
    int mesi;
    uint32_t region; /* current region number */
    ms_linemeta dir;
    size_t dir_bytes;               /* bytes of one directory record */
    size_t dir_pending;             /* first word of a record's pending entries */
    ms_coh_proc proc[MS_MAX_PROCS]; /* per processor: what its quiet hits use */
    int unit_is_line;               /* every private level's line is one coherence unit */
    int lru_lines;                  /* every level LRU with an order word, of L1's line size, no utilisation:
                    * misses take ms_simulate_miss_lru */
    int x86;                        /* lru_lines with three levels, L3 shared: the general path's COH_X86
                                     * instance (coherence.c) */
    ms_pairs pairs;                 /* (victim ctx, victim cpu, writer ctx, writer cpu) */
};

/* The words of processor p in directory record d. */
static inline uint64_t *ms_coh_proc_words(uint64_t *d, unsigned p) { return d + DIR_PROCS + PROC_WORDS * p; }

/* Granules of the unit covered by the bytes [lo, hi] (one line). */
static inline uint64_t ms_coh_granules(uint64_t lo, uint64_t hi, unsigned unit_shift, unsigned granule_shift)
{
    uint64_t offset_mask = (1ull << unit_shift) - 1;
    unsigned a = (unsigned)((lo & offset_mask) >> granule_shift);
    unsigned b = (unsigned)((hi & offset_mask) >> granule_shift);
    return (~0ull >> (63 - b)) & (~0ull << a);
}

/* The directory test of a quiet hit: 1 if a reference of cpu (write: 1, else 0) to a unit
 * with record d needs no coherence action, given that cpu holds the line in L1: a read by a
 * sharer (no other processor holds the unit exclusively), or a write of a unit cpu holds in
 * M or E (so it is the only sharer) that closes no pattern round (round_write). */
static inline int ms_coh_quiet(const uint64_t *d, unsigned cpu, unsigned write)
{
    uint64_t bit = 1ull << cpu;
    /* An owner is the only sharer (a write leaves its writer alone, E is given to a sole
     * sharer, a read by another processor ends the ownership), so a sharer's read is quiet. */
    if (!write) return (d[DIR_SHARERS] & bit) != 0;
    uint64_t producers = d[DIR_PRODUCERS];
    return (d[DIR_OWNER] & DIR_OWNER_CPU) == cpu + 1 && !d[DIR_CONSUMERS] && !((producers & bit) && (producers & ~bit));
}

/* A quiet hit's directory words: on a write cpu becomes the unit's producer, its modified
 * owner and a writer; either way its touched granules and its last access (context and
 * region) are noted. Shared by the quiet-hit test and the general path's hit in any way. */
static inline void ms_coh_note_quiet_hit(const ms_coherence *coh, uint64_t *d, unsigned cpu, unsigned write,
                                         uint64_t granules, uint32_t ctx)
{
    if (write) {
        uint64_t bit = 1ull << cpu;
        d[DIR_PRODUCERS] |= bit;
        d[DIR_OWNER] = (cpu + 1) | DIR_MODIFIED;
        d[DIR_WRITERS] |= bit;
    }
    uint64_t *me = ms_coh_proc_words(d, cpu);
    me[PROC_TOUCHED] |= granules;
    me[PROC_LAST] = (uint64_t)(ctx + 1) | (uint64_t)coh->region << 32;
}

/* What ms_coh_quiet_t found. */
enum {
    MS_COH_REST = 0,    /* anything else: the rest of ms_sim_access (ms_coh_access_rest64) */
    MS_COH_SETTLED = 1, /* a quiet hit, settled */
    MS_COH_ACTION = 2   /* one line of a known processor and context whose unit needs a coherence
                         * action: the general path (ms_coh_access_one64) */
};

/* A quiet hit: one line, a known processor and context, the unit's record the processor's
 * last one or in the directory's recent-chunk cache, a quiet reference (ms_coh_quiet) that
 * hits way 0 of its LRU L1 set whose shadow node is the MRU one or valid. Settles it -- the
 * L1 recency and dirty bit, the L1 shadow, the reference count, the processor's directory
 * words (touched granules, last access) and on a write the owner, writer and producer marks,
 * exactly what the general path does for it -- and returns MS_COH_SETTLED; else returns
 * MS_COH_ACTION or MS_COH_REST having changed nothing but the processor's record at hand (a
 * cache). Everything is tested before anything
 * changes. The shifts are constants where the caller is an instance (ms_coh_quiet64); L1
 * must be LRU (ms_coh_select_access). */
static inline __attribute__((always_inline)) int ms_coh_quiet_t(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                                unsigned flags, uint32_t ctx, unsigned l1_shift,
                                                                unsigned unit_shift, unsigned granule_shift)
{
    ms_coherence *coh = sim->coh;
    uint64_t line = addr >> l1_shift, last_byte = addr + size - (size != 0);
    if (__builtin_expect(ctx >= sim->nctx || cpu >= sim->nprocs || (last_byte >> l1_shift) != line, 0))
        return MS_COH_REST;
    uint64_t unit = addr >> unit_shift;
    ms_coh_proc *pp = &coh->proc[cpu];
    uint64_t *d = pp->last_dir;
    if (pp->last_unit != unit + 1) {
        d = (uint64_t *)(void *)ms_linemeta_recent(&coh->dir, unit);
        if (!d) return MS_COH_REST;
        pp->last_unit = unit + 1; /* a cached chunk's record: never the stand-in */
        pp->last_dir = d;
    }
    unsigned write = flags & MS_ACC_WRITE; /* == MS_TAG_DIRTY */
    if (!ms_coh_quiet(d, cpu, write)) return MS_COH_ACTION;
    ms_cache *l1 = pp->l1;
    uint64_t base = (line & l1->set_mask) * l1->ways;
    if ((l1->tags[base] >> 1) != line) return MS_COH_REST;
    ms_fa *fa = pp->fa;
    if (line != fa->mru_line) {
        uint32_t n = l1->aux[base];
        if (n >= fa->capacity || fa->nodes[n].line != line) return MS_COH_REST;
        ms_fa_move_to_front(fa, n);
    }
    l1->tags[base] |= write;
    ms_count_reference(&sim->ctrs[(size_t)ctx * sim->nprocs + cpu], write);
    ms_coh_note_quiet_hit(coh, d, cpu, write, ms_coh_granules(addr, last_byte, unit_shift, granule_shift), ctx);
    return MS_COH_SETTLED;
}

/* ms_coh_quiet_t for 64-byte L1 lines and coherence units kept line by line, an LRU L1 and
 * no utilisation (sim->coh_quiet64: the threaded presets). */
static inline __attribute__((always_inline)) int ms_coh_quiet64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size,
                                                                unsigned flags, uint32_t ctx)
{
    return ms_coh_quiet_t(sim, cpu, addr, size, flags, ctx, 6, 6, 0);
}

/* ms_sim_access of a sim->coh_quiet64 hierarchy past ms_coh_quiet64 (which gave up, changing
 * nothing): after MS_COH_ACTION the general path of the reference (bytes addr..last_byte,
 * one line), after MS_COH_REST the rest of ms_coh_access_line64. */
int ms_coh_access_one64(ms_sim *sim, unsigned cpu, uint64_t addr, uint64_t last_byte, unsigned flags, uint32_t ctx);
int ms_coh_access_rest64(ms_sim *sim, unsigned cpu, uint64_t addr, uint32_t size, unsigned flags, uint32_t ctx);

#endif
