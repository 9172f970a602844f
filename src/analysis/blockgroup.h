/* The blocks of a function's code outside its loops costed together (docs/mtool.md): the core
 * overlaps them with each other, so their time is the busiest resource's, summed over them all,
 * not the sum of each block's own bound. */
#ifndef MEMSPY_ANALYSIS_BLOCKGROUP_H
#define MEMSPY_ANALYSIS_BLOCKGROUP_H
#include <stddef.h>
#include <stdint.h>

/* Resource slots per block: [0] the dispatch (micro-ops / dispatch width), then the CPU model's
 * units (llvm-mca's "Resource pressure per iteration"), each in cycles per execution. */
#define MS_MCA_RES 16

/* Scales cyc[] (n blocks sorted by address; func[b]: the address of b's function, 0 unknown;
 * in_loop[b]: b is in a loop of its function; count[b]: its executions; res[b * MS_MCA_RES + r]:
 * its resource cycles per execution) for the blocks outside loops, function by function: their
 * time together is T = max over resources r of sum(count[b] * res[b][r]), where the sum of
 * their own costs is S = sum(count[b] * cyc[b]); each gets cyc[b] * T / S when T < S. */
void ms_block_group_scale(size_t n, const uint64_t *func, const unsigned char *in_loop, const double *count,
                          const float *res, double *cyc);

#endif
