/* memspy's LLVM pass plugin: allocation destination records (dests.cc). */
#ifndef MEMSPY_LLVM_DESTS_H
#define MEMSPY_LLVM_DESTS_H
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <string>
#include <utility>
#include <vector>

/* Before the optimisers: note what each call of M names at its own level, for the records
 * memspyCollectDests makes after them (where a level names nothing, what was noted here). */
void memspyEarlyDests(llvm::Module &M);

/* The calls of F that get a destination record, with their records (before any instrumentation). */
std::vector<std::pair<llvm::CallBase *, std::string>> memspyCollectDests(llvm::Function &F);

/* The inline asm to call just before the call: the addresses of its label and (endLabel) of
 * the end label, and the record, into the destinations section (the function's COMDAT group
 * if comdat is not empty). */
llvm::InlineAsm *memspyDestAsm(llvm::LLVMContext &C, const std::string &record, const std::string &comdat,
                               bool endLabel);
/* The end label, to call just after the call (not after an invoke: it ends its block). */
llvm::InlineAsm *memspyDestEndAsm(llvm::LLVMContext &C);

/* OpenMP regions (omp.cc): at the pipeline's start, note the functions clang outlined each
 * region into; later, the record of F (MSPLUG_OMP_RECORD) if F holds a region's body, else
 * null. */
void memspyEarlyOmp(llvm::Module &M);
const std::string *memspyOmpRecord(const llvm::Function &F);

#endif
