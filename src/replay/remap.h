/* What-if address remapping (`memspy whatif`, docs/whatif.md): the replay's accesses to chosen
 * data bins are moved to the addresses a changed data layout would give them (padded elements,
 * aligned allocations, an offset), so that the recorded streams predict the changed program.
 * Pure: no I/O, state in the struct.
 *
 * Use: ms_remap_init; ms_remap_add one entry per changed bin and ms_remap_bind its contexts;
 * ms_remap_observe every access of a first replay (it learns where each bin lies: the lowest
 * and highest address touched, and for a bin of several allocations where each allocation
 * starts); ms_remap_plan; then ms_remap_map every access of the second replay.
 *
 * A bin's base is the lowest address its contexts touched (its first element's first byte
 * for arrays walked from the start). An allocation of a bin of several (objects: its request
 * size) starts at the first address touched at or beyond the end of the previous one.
 * Remapped bins are moved to a fresh address range above user space (MS_REMAP_FRESH), one
 * slot each, so that they collide with nothing; a moved address keeps its value modulo
 * MS_REMAP_COLOUR (the set index of any cache up to that size per way) unless the change
 * moves it within the bin, so that a bin that is only moved maps to the same sets as before. */
#ifndef MEMSPY_REPLAY_REMAP_H
#define MEMSPY_REPLAY_REMAP_H
#include <stddef.h>
#include <stdint.h>

#define MS_REMAP_COLOUR (1ull << 20) /* addresses keep their value modulo 1 MiB */
#define MS_REMAP_FRESH (1ull << 47)  /* the fresh range: above every user-space address */

/* One remapped bin: what the caller asked for, what was observed, what was planned. */
typedef struct {
    uint32_t id;     /* the caller's (e.g. the raw bin id); not interpreted */
    uint64_t elem;   /* element size in bytes; 0: the bin is one element (or, with object,
                       * its allocations are) */
    uint64_t object; /* the bin is allocations of this many bytes each (0: one block); they
                       * are its elements, laid out one after the other by the plan */
    uint64_t pad;    /* each element grows to this many bytes (>= elem or object); 0: same */
    uint64_t align;  /* a power of two: the bin (with object: each allocation) starts at a
                       * multiple of it; 0 or 1: none */
    int64_t offset;  /* bytes added to every address of the bin (after pad and align) */
    /* observed (ms_remap_observe) */
    uint64_t lo, hi; /* lowest address touched and highest + 1 (lo >= hi: never touched) */
    uint64_t *seen;  /* object bins: hash set of the first 16-byte granules of accesses */
    size_t nseen, capseen;
    /* planned (ms_remap_plan) */
    uint64_t base;     /* new address of the first element */
    uint64_t stride;   /* new distance between elements (elem when unchanged) */
    uint64_t elements; /* how many elements (allocations) the touched span holds */
    uint64_t *starts;  /* object bins: each allocation's old start, ascending (elements) */
} ms_remap_bin;

typedef struct {
    uint32_t nctx;     /* contexts 0..nctx-1 */
    uint32_t *ctx_bin; /* per context: index into bins + 1 (0: not remapped) */
    ms_remap_bin *bins;
    size_t nbins;
    int planned;
    int failed; /* out of memory while observing: the plan fails */
} ms_remap;

/* Prepare rm for contexts 0..max_ctx. Returns 0 or -1 (out of memory). */
int ms_remap_init(ms_remap *rm, uint32_t max_ctx);
/* Free what rm holds. */
void ms_remap_free(ms_remap *rm);

/* Add a bin to remap (spec's request fields; the others are filled later). Returns its index,
 * or -1 (out of memory). */
long ms_remap_add(ms_remap *rm, const ms_remap_bin *spec);
/* The accesses of context ctx belong to bin index `bin` (ms_remap_add's). */
void ms_remap_bind(ms_remap *rm, uint32_t ctx, size_t bin);

/* Record a granule of an object bin (the out-of-line part of ms_remap_observe). */
void ms_remap_seen(ms_remap *rm, ms_remap_bin *b, uint64_t addr);

/* Learn an access of the first replay: context ctx touched [addr, addr + size). */
static inline void ms_remap_observe(ms_remap *rm, uint32_t ctx, uint64_t addr, uint64_t size)
{
    if (ctx >= rm->nctx || !rm->ctx_bin[ctx] || !size) return;
    ms_remap_bin *b = &rm->bins[rm->ctx_bin[ctx] - 1];
    if (b->lo >= b->hi) {
        b->lo = addr;
        b->hi = addr + size;
    }
    if (addr < b->lo) b->lo = addr;
    if (addr + size > b->hi) b->hi = addr + size;
    if (b->object) ms_remap_seen(rm, b, addr);
}

/* Decide every bin's new place from what was observed. Returns 0, or -1 with err naming the
 * problem (a pad smaller than the element, an alignment that is not a power of two, out of
 * memory). */
int ms_remap_plan(ms_remap *rm, char *err, size_t errlen);

/* The remapped address of the access of ctx at addr (size bytes) in *out, and how many of its
 * bytes that piece covers (size, or less when it crosses an element that moved: the caller
 * maps the rest, from addr + the returned length, as another piece). Accesses of contexts
 * that are not remapped keep their address. */
uint64_t ms_remap_map(const ms_remap *rm, uint32_t ctx, uint64_t addr, uint64_t size, uint64_t *out);

/* Parse a byte count: a sum of terms ("2360+64", "4K", "1M-64"), each a decimal number with
 * an optional K, M or G suffix (powers of 1024); a leading '-' makes it negative. Returns 0,
 * or -1 if s is not one. */
int ms_remap_parse_bytes(const char *s, int64_t *out);

#endif
