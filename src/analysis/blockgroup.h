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

/* Costs a loop's block that calls a small leaf function (callee[b]: the function address its
 * first direct call goes to, 0 none; a leaf: the callee's executed blocks are all outside loops
 * and those that call out run in at most 1% of its calls, like gzip's send_bits, which flushes
 * its buffer once in a while) as part of the iteration the call and the callee's body make together: the
 * core runs the block's instructions in the callee's shadow. Per call, the callee costs
 * C = sum(count[k] * cyc[k]) / calls over its blocks k (calls: the most executions of any of
 * them) and uses F[r] = sum(count[k] * res[k][r]) / calls of each resource; the block costs
 * what it adds to the busiest resource, max over r of (res[b][r] + F[r]) - C, or its own
 * steady state less C where that is more (a chain through the loop that the callee's time
 * only partly hides), never more than cyc[b]. Run after ms_block_group_scale (the callee's
 * costs as they are estimated). */
void ms_block_call_overlap(size_t n, const uint64_t *func, const unsigned char *in_loop, const uint64_t *callee,
                           const double *count, const float *res, double *cyc);

#endif
