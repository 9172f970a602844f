/* What the core does, measured (issue 13): its effective clock, and the latency of dependent
 * chains (double add, multiply, a load of a pointer, FMA, division, integer multiply, an
 * int/double conversion, a shuffle) timed on the core and costed by llvm-mca's model of the
 * chosen CPU, so that a model that does not fit the core
 * (a newer core than LLVM models, a VM that names another CPU) is seen and reported rather
 * than silently making every estimate wrong. */
#ifndef MEMSPY_ANALYSIS_CORECHECK_H
#define MEMSPY_ANALYSIS_CORECHECK_H
#include <stddef.h>
#include "../model/mtool.h"
#include "blockchain.h"

typedef struct {
    double clock_hz;                        /* 0 where not measurable */
    ms_mtool_chain chains[MS_MTOOL_CHAINS]; /* core_cycles filled by ms_core_measure */
    size_t nchains;
} ms_core_reading;

/* The core's effective clock in Hz: chains of dependent register adds and multiplies timed
 * with the thread's CPU-time clock (best of several rounds; a shared machine's other work not
 * counted; the lower of the two). The scheduling model counts core cycles; the nominal
 * frequency is not what the core runs at (turbo, VM). 0 where not measurable. */
double ms_effective_clock_hz(void);

/* Measure the clock, then each chain's cycles per instruction on this core (about 20 ms of
 * one CPU; run while something else waits). */
void ms_core_measure(ms_core_reading *r);

/* Fill the chains' model_cycles from llvm-mca's model of cpu, and corrected where the model is
 * off and ms_core_latency_fix corrects it. Returns 0, or -1 with err. */
int ms_core_model(ms_core_reading *r, const char *cpu, char *err, size_t errlen);

/* `--cpu auto` (docs/mtool.md, "CPU model"): of the llvm-mca models of this machine's
 * vendor (ms_blockcost_host_cpu's pick first), the one whose dependent chains (the model
 * check's) come closest to this core's (sum of |ln(model / core)|, the core's cached per machine
 * or timed once, about 15 ms), another than the vendor's pick only when closer by more than
 * 0.1; ms_blockcost_host_cpu's pick where the chains cannot be timed or costed. Static string. */
const char *ms_core_closest_cpu(void);

/* The correction of loop recurrences for cpu on this core (docs/mtool.md, "The core's latencies
 * in a loop's chains"): for each class whose chain the model takes more than
 * MS_MTOOL_CHAIN_TOLERANCE off the core's (blockchain.h's classes), the core's latency minus the
 * model's (per instruction of the chain's link), and the bypass between adder and multiplier (the mulsd+addsd chain less the two);
 * fix->active 0 where the model fits, the chains cannot be timed, memspy-mcdeps is missing (no
 * recurrences), or MEMSPY_MTOOL_MODEL_LATENCY is set. The chains come from the cache of ms_core_measure, else are timed (about 20 ms). */
void ms_core_latency_fix(const char *cpu, ms_latency_fix *fix);

#endif
