/* memspy's LLVM pass plugin: the counting copy's count register (count.cc).
 *
 * In the counting copy (MEMSPY_MODE=count) the buffer's word count lives in a local (an alloca
 * promoted to SSA values once every word is emitted) between the copy's entry and its next
 * call or exit, so that a block word costs a compare, a store and an add where the count in
 * memory costs a load and a store more (a store-to-load chain per block in a short loop). */
#ifndef MEMSPY_LLVM_COUNT_H
#define MEMSPY_LLVM_COUNT_H
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"

#include <vector>

/* The instructions of the copy's blocks where the count must be in memory: calls (not
 * intrinsics, except memory copies and sets), returns and resumes. Before any code is emitted. */
std::vector<llvm::Instruction *> memspyCountBounds(const std::vector<llvm::BasicBlock *> &copy);

/* Once every word is emitted (with the local cnt = locals[0] as the count): cnt = buf[0] at the
 * copy's entry, after each call and invoke (a callee appends after the caller's words) and at
 * the landing pads; buf[0] = cnt before each of bounds; then cnt and the other locals (the trip
 * counts of the blocks counted by repeat words) promoted to SSA values. */
void memspyCountBoundsEmit(llvm::Function &F, const std::vector<llvm::AllocaInst *> &locals, llvm::GlobalVariable *buf,
                           llvm::BasicBlock *entry, const std::vector<llvm::Instruction *> &bounds);

/* The locals promoted to SSA values without the count (a copy with no call word left). */
void memspyPromoteLocals(llvm::Function &F, const std::vector<llvm::AllocaInst *> &locals);

/* Whether the counting copy counts BB by its trip count (a repeat word per execution of its
 * loop, docs/plugin.md): BB loops to itself (a conditional branch back to itself or out), has
 * no call where the count must be in memory (the count stays a local throughout) and is no
 * exception pad, and every block that enters it from elsewhere ends in a branch (an edge that
 * can take code). */
bool memspyLoopsToItself(llvm::BasicBlock *BB);

/* BB's trip count (memspyLoopsToItself; first: its first instruction): a local (the returned
 * alloca, to be promoted with the count by memspyCountBoundsEmit) set to 0 on every edge that
 * enters BB from elsewhere and incremented at first. *exit: the terminator of a new block on
 * the edge that leaves BB, before which the repeat word pair goes. */
llvm::AllocaInst *memspyTripCount(llvm::BasicBlock *BB, llvm::Instruction *first, llvm::Instruction **exit);

#endif
