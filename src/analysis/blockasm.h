/* Rewrites of one block's x86 instructions (AT&T, as llvm-objdump prints them) before llvm-mca
 * costs them (blockcost.c, docs/mtool.md): what of the plugin's instrumentation the code
 * patterns leave, and the stack engine llvm-mca does not model. */
#ifndef MEMSPY_ANALYSIS_BLOCKASM_H
#define MEMSPY_ANALYSIS_BLOCKASM_H
#include <stddef.h>
#include "../util/strbuf.h"

/* Marks in drop[] the instructions of the block t[0, n) that match the plugin's instrumentation
 * code patterns: reservations, record and block-word stores, the count's updates (docs/mtool.md,
 * "Ideal cycles per block"). */
void ms_asm_mark_instrumentation(char *const *t, size_t n, char *drop);

/* Appends t to sb with a floating-point add/sub/mul/div/min/max's memory source unfolded into a
 * load into %xmm15 (%ymm15) and the register form, and returns 1; 0 (nothing appended) when t is
 * not such an instruction or !scratch_free (the block uses the scratch register). llvm-mca 14's
 * AMD models put the folded load's latency on the register operand's chain (docs/mtool.md). */
int ms_asm_unfold_fp(ms_strbuf *sb, const char *t, int scratch_free);

/* Marks in drop[] (t[0, n): a block's instructions; drop[i] set: the plugin's) every register
 * move or arithmetic instruction whose result only dropped instructions read: the block word's
 * value (`movabsq $tag`, `leaq desc(%rip)`, `orq`) and the buffer's address (`leaq (%T,%O)`)
 * feeding a dropped record store. Never an instruction with a memory operand (other than a
 * lea), one that writes %rsp, or one whose flags a later instruction reads. self_loop: the
 * block branches back to its own start (its first instructions run after its last). */
void ms_asm_drop_feeders(char *const *t, size_t n, char *drop, int self_loop);

/* In a loop of one block (t[0, n)), marks in drop[] an `addq $1, %R` / `incq %R` whose register
 * no other instruction of the block reads or writes: the counting copy's trip count
 * (docs/plugin.md, "Loops of one block"), which the plain copy does not have. */
void ms_asm_drop_trip_count(char *const *t, size_t n, char *drop);

/* Marks in drop[] gcc's counting-copy block counters (ABI 5, docs/plugin.md "Block counters"):
 * the load of a block's id from its descriptor, t[i] with desc[i] set (`movq N(%rip), %I`, N
 * in a __memspy_blocks table), and the counter's update that indexes by it within the next 8
 * instructions (`addq $1, (%P,%I,8)`, `incq (%P,%I,8)`, or a trip count's `addq %T, (%P,%I,8)`),
 * neither of which the plain copy has. */
void ms_asm_drop_counters(char *const *t, size_t n, const char *desc, char *drop);

/* The register pair (families, e.g. the thread pointer and the buffer's TLS offset) from which a
 * block's dropped buffer stores (drop[]) compute their base register (`leaq (%A,%B), %R` or
 * `addq %A, %R`), into *a and *b; left as they are when the block has none. */
void ms_asm_learn_buffer(char *const *t, size_t n, const char *drop, int *a, int *b);

/* Marks in drop[] the counting copy's moves of its count register to and from the buffer's word
 * count (`movq %C, (%R)` before a call or return, `movq (%R), %C` after a call), where R is made
 * in the block from the function's buffer pair (a, b) (ms_asm_learn_buffer; nothing if < 0). */
void ms_asm_drop_count_moves(char *const *t, size_t n, char *drop, int a, int b);

/* Appends t to sb as the core's stack engine runs it, and returns 1, when t is a `pushq %R` or
 * `popq %R`: a store to or a load from the stack with no update of %rsp (a direct `callq`: the
 * return address's store; llvm-mca 14 chains consecutive calls through %rsp at 4-5 cycles) (the core tracks the
 * stack pointer's offset at decode; llvm-mca 14 chains every push and pop through %rsp at a
 * load's latency: six pops and a return cost 37 cycles an iteration where the core takes 4).
 * *pushed and *popped are the bytes pushed and popped so far in the block (start at 0). */
int ms_asm_stack_engine(ms_strbuf *sb, const char *t, int *pushed, int *popped);

#endif
