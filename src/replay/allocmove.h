/* What the allocator moves (`memspy whatif`, docs/whatif.md "What the allocator moves"): when a
 * change of data layout makes a heap block bigger (a padded array) or realigns it, glibc's
 * malloc places the blocks allocated after it elsewhere. This models glibc's placement rules
 * from what the runtime recorded of each heap bin's first block (MS_RAW_HEAP_LAYOUT: its
 * allocation order, address, request and glibc's size word), and says how far each bin moves:
 *
 *   - a block of MS_GLIBC_MMAP_THRESHOLD bytes or more gets a mapping of its own (its chunk
 *     plus an 8-byte size word, in 4 KiB pages), and Linux places each new mapping just below
 *     the previous ones: a mapped block that grows by D bytes of pages keeps its end and
 *     starts D lower, and so does every mapped block allocated after it;
 *   - a smaller block is a chunk of the brk arena (its request plus 8, rounded up to 16, at
 *     least 32 bytes), carved from the top one after the other: a chunk that grows by D moves
 *     every later chunk of the same arena above it by D;
 *   - an arena block that grows to the threshold moves to a mapping: the later chunks above
 *     it move down by its old chunk, the later mapped blocks down by its new mapping;
 *   - a realigned block (memalign) asks glibc for its chunk plus the alignment plus 32 bytes.
 *
 * Not modelled (the documented limits): glibc's dynamic threshold (raised when a mapped block
 * is freed; a block recorded in the arena although it was above the threshold stays there),
 * frees and the reuse of freed chunks or unmapped holes, blocks allocated into the gaps a
 * realigned block leaves, and bins of several blocks (they neither cause moves nor move
 * unless all their blocks are of one kind and allocated after the change). Pure: no I/O. */
#ifndef MEMSPY_REPLAY_ALLOCMOVE_H
#define MEMSPY_REPLAY_ALLOCMOVE_H
#include <stddef.h>
#include <stdint.h>

#define MS_GLIBC_MMAP_THRESHOLD (128u * 1024u) /* glibc's default M_MMAP_THRESHOLD */
#define MS_GLIBC_PAGE 4096u
#define MS_GLIBC_HEAP_MAX (64ull << 20) /* a thread arena's heap: aligned to its maximum size */

/* glibc's size word flags (below each block). */
#define MS_GLIBC_IS_MMAPPED 2u
#define MS_GLIBC_NON_MAIN_ARENA 4u

/* One heap bin, as recorded and as changed. */
typedef struct {
    /* recorded (MS_RAW_HEAP_LAYOUT; seq 0: nothing recorded, never moved) */
    uint64_t seq;     /* allocation order of the bin's first block */
    uint64_t addr;    /* that block's address */
    uint64_t request; /* its requested bytes */
    uint64_t word;    /* glibc's size word below it: chunk bytes | flags */
    uint64_t blocks;  /* blocks the bin allocated */
    uint64_t mapped;  /* ... of which glibc mapped */
    /* the change (0, 0: unchanged) */
    uint64_t new_request; /* the block's request in the changed program (0: the same) */
    uint64_t align;       /* the alignment it now asks for (0 or <= 16: none) */
    /* out */
    int64_t shift;  /* how far the bin moves (its own change's move included) */
    int64_t growth; /* for a changed block: how much its chunk or mapping grew */
    int remapped;   /* a changed arena block that the change sends to a mapping: its own
                     * place is not modelled (shift excludes it) */
} ms_heap_block;

/* glibc's chunk for a request: request + 8 rounded up to 16, at least 32 bytes. */
uint64_t ms_glibc_chunk(uint64_t request);
/* The mapping glibc makes for a request of at least the threshold (align > 16: memalign's). */
uint64_t ms_glibc_mapping(uint64_t request, uint64_t align);

/* Fill v[i].shift (and growth, remapped) for every bin from the changes of those with
 * new_request or align set. The moves of several changes add up. */
void ms_glibc_moves(ms_heap_block *v, size_t n);

#endif
