/* Row strides from a recording's references (the self-interference advice's row length when
 * no type says it, docs/whatif.md): for chosen data bins, every reference of one code context
 * is followed, runs of references that walk forward within a few lines form a *piece* of a
 * row, and the distance between the starts of consecutive pieces is a stride. The dominant
 * stride of a bin is its row length in bytes (its leading dimension), the dominant piece
 * length the part of a row used at a time (a block's width). Pure: state in the struct. */
#ifndef MEMSPY_ANALYSIS_STRIDES_H
#define MEMSPY_ANALYSIS_STRIDES_H
#include <stddef.h>
#include <stdint.h>

#define MS_STRIDE_SLOTS 256 /* distinct values counted per histogram (more are not counted) */
#define MS_STRIDE_GAP 256   /* a forward gap up to this many bytes continues a piece */

typedef struct {
    uint64_t value, count;
} ms_stride_slot;

/* One histogram of values (open addressing, value 0 = empty). */
typedef struct {
    ms_stride_slot slot[MS_STRIDE_SLOTS];
    uint64_t total;
} ms_stride_hist;

typedef struct {
    uint32_t id; /* the caller's (a raw bin id) */
    ms_stride_hist strides, widths;
} ms_stride_bin;

/* A context's current piece. */
typedef struct {
    uint64_t start, end;
    unsigned cpu;
    int open;
} ms_stride_piece;

typedef struct {
    uint32_t nctx;
    uint32_t *ctx_bin;      /* per context: index into bins + 1 (0: not followed) */
    ms_stride_piece *piece; /* per context */
    ms_stride_bin *bins;
    size_t nbins;
} ms_strides;

/* Prepare s for contexts 0..max_ctx. Returns 0 or -1 (out of memory). */
int ms_strides_init(ms_strides *s, uint32_t max_ctx);
/* Free what s holds. */
void ms_strides_free(ms_strides *s);
/* Follow a bin (id: the caller's); returns its index or -1 (out of memory). */
long ms_strides_add(ms_strides *s, uint32_t id);
/* The references of context ctx belong to bin index `bin`. */
void ms_strides_bind(ms_strides *s, uint32_t ctx, size_t bin);
/* One reference of ctx on processor cpu: [addr, addr + size). */
void ms_strides_observe(ms_strides *s, unsigned cpu, uint32_t ctx, uint64_t addr, uint64_t size);
/* Bin index i's row length (the stride of at least half its pieces, longer than the
 * dominant piece) and piece length (that of at least a quarter of them); 0 when none
 * dominates. */
void ms_strides_result(const ms_strides *s, size_t i, uint64_t *row, uint64_t *width);

#endif
