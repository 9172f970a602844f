/* A loop block's recurrence with this core's latencies (docs/mtool.md, "The core's latencies
 * in a loop's chains"): the critical cycle through registers from one iteration to the next,
 * computed once with the CPU model's latencies and once with the latencies the model check
 * measured on the core for the classes where the model is off, so that a block bound by such a
 * chain costs what the core takes while the model's dispatch and resources stay. What each
 * instruction reads and writes, and its latencies in the model, are LLVM's (memspy-mcdeps,
 * src/analysis/mcdeps: llvm-mca's own InstrBuilder); the decisions are here. */
#ifndef MEMSPY_ANALYSIS_BLOCKCHAIN_H
#define MEMSPY_ANALYSIS_BLOCKCHAIN_H
#include <stddef.h>

/* Instruction classes whose latency the model check measures (a chain of each on the core):
 * floating-point add/sub, multiply, a load (a move from memory), fused multiply-add, division,
 * integer multiply, a conversion between integer and floating point, an in-lane shuffle. */
enum {
    MS_LAT_FADD,
    MS_LAT_FMUL,
    MS_LAT_LOAD,
    MS_LAT_FMA,
    MS_LAT_FDIV,
    MS_LAT_IMUL,
    MS_LAT_CVT,
    MS_LAT_SHUF,
    MS_LAT_CLASSES
};

/* The correction: per class, the core's latency minus the model's (0: the model fits, within
 * MS_MTOOL_CHAIN_TOLERANCE, or the class was not timed), and the extra cycles a value takes
 * between the adder and the multiplier (each way), on the core and in the model. active: some
 * class or the bypass is corrected; tag names the correction in the block cache's file name. */
typedef struct {
    int active;
    double delta[MS_LAT_CLASSES];
    double bypass_core, bypass_model;
    char tag[160];
} ms_latency_fix;

/* The class of an instruction by LLVM's opcode name (ADDSDrr, VFMADD231PDYm, IMUL64rr,
 * CVTSI642SDrr, SHUFPDrri, MOV64rm) and whether it may load; -1 for the others. */
int ms_insn_class(const char *opcode, int may_load);

/* The recurrence of one block from memspy-mcdeps' lines for its region (deps[0..len): "i"
 * lines, others ignored): the maximum over the cycles of register-unit dependences through the
 * block, iterated, of their latency per iteration (a write's latency less the reader's
 * advance), into *model (the model's latencies) and *core (fix applied). Returns 0, or -1 when
 * a line cannot be read, an instruction could not be built, or the block is too wide to
 * analyse (then both are 0). */
int ms_block_recurrence(const char *deps, size_t len, const ms_latency_fix *fix, double *model, double *core);

/* Run memspy-mcdeps for cpu on one block's AT&T text (one region); its output into *out
 * (malloc'd). Returns 0, or -1 with err (the tool missing or failing). */
int ms_block_deps(const char *asm_text, const char *cpu, char **out, char *err, size_t errlen);

/* A loop block's cycles with the core's latencies: llvm-mca's steady state mca, its throughput
 * bound rthru and the two recurrences: max(rthru, core) + (mca - max(rthru, model)), never
 * under rthru (what llvm-mca adds beyond its bounds is kept; only the chain's part moves). */
double ms_block_fix_cycles(double mca, double rthru, double model, double core);

#endif
