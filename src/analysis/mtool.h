/* MTOOL's analysis (issue 13, paper section 4): from exact block counts, ideal cycles per
 * block and pc samples of the timing run, the mobjects (loops innermost first, procedures),
 * their estimated and measured time and memory overhead. Pure: no I/O. */
#ifndef MEMSPY_ANALYSIS_MTOOL_H
#define MEMSPY_ANALYSIS_MTOOL_H
#include "../model/model.h"
#include "../model/mtool.h"

/* Fewer samples than this: the object is too short to time (listed untimable, no overhead). */
#define MS_MTOOL_MIN_SAMPLES 5
typedef struct {
    const ms_block_stat *blocks; /* function, file, line, loop, memops, count */
    size_t nblocks;
    const ms_loop_stat *loops; /* parent, depth */
    size_t nloops;
    const double *cycles;          /* ideal cycles per execution of each block */
    const uint64_t *block_samples; /* samples attributed to each block */
    uint64_t other_samples;        /* samples outside every block (libraries, the kernel) */
    uint64_t runtime_samples;      /* samples inside memspy's runtime: shown apart, not measured */
    uint64_t period_ns;
    double clock_hz;
    double system_s;
    /* Per block: the loop a sample at the block's own position goes to (analysis/mtool_place.c),
     * UINT32_MAX none; NULL: the deepest loop of its function whose lines hold its first line */
    const uint32_t *placed_loop;
} ms_mtool_input;

/* Select and measure the mobjects and the program's totals into out (cpu_model left to the
 * caller). Returns 0, or -1 when out of memory (out then freed). */
int ms_mtool_analyze(const ms_mtool_input *in, ms_mtool_result *out);

#endif
