/* Ideal-memory cycles per basic block (MTOOL's block estimate): LLVM's machine-code analyzer
 * (llvm-mca, Debian's llvm-14) on the block's instructions disassembled from the binary, every
 * load taken as an L1 hit, for a chosen CPU's scheduling model; and the core's effective clock,
 * measured at run time, that turns cycles into seconds. */
#ifndef MEMSPY_ANALYSIS_BLOCKCOST_H
#define MEMSPY_ANALYSIS_BLOCKCOST_H
#include <stddef.h>
#include <stdint.h>

#define MS_LLVM_MCA "llvm-mca-14"
#define MS_LLVM_OBJDUMP "llvm-objdump-14"

/* The llvm-mca CPU model for this machine, from /proc/cpuinfo (AMD family 17h: znver1-2, 19h and later:
 * znver3, the newest llvm-mca 14 models;
 * Intel: skylake, otherwise "generic"). Static string. */
const char *ms_blockcost_host_cpu(void);

/* 0 if llvm-mca knows cpu; else -1 with err naming it and listing the CPUs it knows (or saying
 * llvm-mca is missing). */
int ms_blockcost_check_cpu(const char *cpu, char *err, size_t errlen);

/* Cycles per execution of each block of one module: pcs[i] is block i's first instruction
 * (a run-time address; bias = the module's load bias, so pcs[i] - bias is the file address),
 * a block ends at the next block's pc or at the end of its function. out_cycles[i] = llvm-mca's
 * steady-state cycles per iteration of the block's instructions (-iterations=100) for cpu when
 * in_loop[i] (the block is in a loop of its function; in_loop NULL: every block), else its
 * throughput bound (llvm-mca's Block RThroughput), scaled with counts[i] (its executions; NULL:
 * not scaled) by costing each function's blocks outside loops together, and a loop's block
 * that calls a small leaf function with the callee's body (blockgroup.h); a loop's block with
 * this core's latencies on its dependency chains where the model check finds the model's off
 * (blockchain.h, ms_core_latency_fix); 0 for a pc outside path's code. Results are
 * cached per binary (content checksum + size), cpu and correction under
 * $XDG_CACHE_HOME/memspy/blockcost (~/.cache when unset). Returns 0, or -1 with err. */
int ms_block_costs(const char *path, uint64_t bias, const uint64_t *pcs, const unsigned char *in_loop,
                   const uint64_t *counts, size_t n, const char *cpu, double *out_cycles, char *err, size_t errlen);

/* Cycles per block for assembly text (AT&T, one instruction a line), one region per text:
 * llvm-mca's steady-state cycles per iteration for cpu. The engine behind ms_block_costs, also
 * used by the tests. Returns 0, or -1 with err. */
int ms_mca_cycles(const char *const *asm_text, size_t n, const char *cpu, double *out_cycles, char *err, size_t errlen);

/* ms_mca_cycles through a cache under $XDG_CACHE_HOME/memspy (mca-CPU-CRC-...: the texts, the
 * CPU model and the llvm-mca's size and time as key): the core check's chains, the same in
 * every run, cost no run of llvm-mca after the first. Returns 0, or -1 with err. */
int ms_mca_cycles_cached(const char *const *asm_text, size_t n, const char *cpu, double *out_cycles, char *err,
                         size_t errlen);

/* The file NAME in memspy's cache directory ($XDG_CACHE_HOME/memspy, else ~/.cache/memspy;
 * created when make_dirs) into out. Returns 0, or -1 when there is none. */
int ms_cache_file(char *out, size_t len, const char *name, int make_dirs);

/* Write text to a cache file whole or not at all (a temporary file renamed over it). */
void ms_cache_write(const char *file, const char *text);

#endif
