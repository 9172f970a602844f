/* A loop block's recurrence with this core's latencies (docs/mtool.md, "The core's latencies
 * in a loop's chains"): the critical cycle through registers from one iteration to the next,
 * computed once with the CPU model's latencies (llvm-mca's instruction info) and once with the
 * latencies the model check measured on the core for the classes where the model is off, so
 * that a block bound by such a chain costs what the core takes while the model's dispatch and
 * resources stay. */
#ifndef MEMSPY_ANALYSIS_BLOCKCHAIN_H
#define MEMSPY_ANALYSIS_BLOCKCHAIN_H
#include <stddef.h>

/* Instruction classes whose latency the model check measures. */
enum { MS_LAT_FADD, MS_LAT_FMUL, MS_LAT_LOAD, MS_LAT_CLASSES };

/* The correction: per class, the core's latency minus the model's (0: the model fits, within
 * MS_MTOOL_CHAIN_TOLERANCE), and the extra cycles a value takes between the adder and the
 * multiplier (each way), on the core and in the model. active: some class or the bypass is
 * corrected; tag names the correction in the block cache's file name. */
typedef struct {
    int active;
    double delta[MS_LAT_CLASSES];
    double bypass_core, bypass_model;
    char tag[96];
} ms_latency_fix;

/* The recurrence of one llvm-mca region from its "Instruction Info" table (info: the text from
 * the table's header line "[1] ... Instructions:" on; the rows up to the first empty line): the
 * maximum over the cycles of register dependences through the block, iterated, of their
 * latency per iteration, into *model (the table's latencies) and *core (fix applied). Returns 0,
 * or -1 when the table cannot be read or the block is too wide to analyse (then both are 0). */
int ms_block_recurrence(const char *info, const ms_latency_fix *fix, double *model, double *core);

/* A loop block's cycles with the core's latencies: llvm-mca's steady state mca, its throughput
 * bound rthru and the two recurrences: max(rthru, core) + (mca - max(rthru, model)), never
 * under rthru (what llvm-mca adds beyond its bounds is kept; only the chain's part moves). */
double ms_block_fix_cycles(double mca, double rthru, double model, double core);

#endif
