/* memspy's LLVM pass plugin: allocation destination records (dests.cc). */
#ifndef MEMSPY_LLVM_DESTS_H
#define MEMSPY_LLVM_DESTS_H
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstrTypes.h"

#include <string>
#include <utility>
#include <vector>

/* The calls of F that get a destination record, with their records (before any instrumentation). */
std::vector<std::pair<llvm::CallBase *, std::string>> memspyCollectDests(llvm::Function &F);

/* The inline asm to call just before the call: the addresses of its label and (endLabel) of
 * the end label, and the record, into the destinations section (the function's COMDAT group
 * if comdat is not empty). */
llvm::InlineAsm *memspyDestAsm(llvm::LLVMContext &C, const std::string &record, const std::string &comdat,
                               bool endLabel);
/* The end label, to call just after the call (not after an invoke: it ends its block). */
llvm::InlineAsm *memspyDestEndAsm(llvm::LLVMContext &C);

#endif
