/* memspy's LLVM pass plugin: the instrumenter's shared declarations (memspy_llvm.cc: the pass,
 * tables, copies and constructor; collect.cc: the sites, groups and blocks of a function;
 * emit.cc: the code and labels emitted for them; atomics.cc: ordered atomics as hook calls). */
#ifndef MEMSPY_LLVM_INSTRUMENT_H
#define MEMSPY_LLVM_INSTRUMENT_H
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugLoc.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"

namespace memspy_llvm
{
using namespace llvm;

/* One access site, before code is emitted for it. */
struct Site {
    Instruction *at; /* records go just before this instruction */
    Value *ops[3];   /* pointer or integer values of its words */
    unsigned kind, size;
    unsigned offset; /* added to ops[0]: a piece of an access code generation splits */
    int lane;        /* >= 0: ops[0] is a vector of pointers and this is its lane ... */
    Value *mask;     /* ... enabled by this lane of mask (null: always) */
    int order = -1;  /* an atomic's memory order (MSPLUG_F_ORDER), -1: not atomic */
};

/* A counted basic block (one with an instruction besides PHIs, debug intrinsics and an
 * unconditional branch, or a loop header), before code is emitted for it. */
struct Block {
    BasicBlock *bb;
    Instruction *first; /* its first instruction: the block word's and the pc label's place */
    int group;          /* the group whose reservation carries the block word, -1: one of its own */
    unsigned memops, stmts;
    unsigned loop;                /* index of its innermost loop in the function's loop table, MSPLUG_NO_LOOP */
    unsigned firstLine, lastLine; /* its instructions' lines in the function's own code, 0: none */
};

/* The runtime's symbols in one module. */
struct Runtime {
    Type *i64 = nullptr, *i8p = nullptr;
    GlobalVariable *buf = nullptr, *plain = nullptr, *counts = nullptr; /* counts: the thread's block counters */
    FunctionCallee flush, entry, exit, countsInit;
};

class Instrumenter
{
  public:
    Instrumenter(Module &m, FunctionAnalysisManager &fam) : M(m), DL(m.getDataLayout()), C(m.getContext()), FAM(fam) {}
    bool run();

  private:
    Module &M;
    const DataLayout &DL;
    LLVMContext &C;
    FunctionAnalysisManager &FAM;
    Runtime rt;
    unsigned tables = 0;
    bool verbose = false, noversion = false;

    std::vector<Site> sites;
    std::vector<unsigned> groupStart;
    std::vector<int> groupBlock; /* per group: the block whose word it carries, -1 none */
    std::vector<Block> blocks;
    std::vector<std::pair<CallBase *, BasicBlock *>> callInsts; /* calls that get a call word */
    std::vector<ReturnInst *> returns;
    std::vector<Instruction *> atomics; /* ordered atomics that become hook calls */
    unsigned calls = 0;
    unsigned vecBytes = 0;                              /* the target's vector register width in the current function */
    bool unoptimised = false;                           /* the current function is optnone (-O0) */
    std::map<Constant *, GlobalVariable *> fpConstants; /* -O0: each constant's copy in .rodata */
    std::set<Function *> calledDirectly;                /* the module's functions only called directly (ABI 7) */

    void declareRuntime();
    bool instrumentFunction(Function &F);
    int derivedEntry(Function &F, BasicBlock *entry);
    void collectBlock(BasicBlock &BB, bool header);
    void closeGroup(unsigned &openFrom);
    bool addAccess(Instruction *I, Value *ptr, Type *ty, unsigned kind);
    void constantReads(Instruction *I);
    bool callSites(CallBase *CB, unsigned &openFrom);
    Value *reserve(Instruction *at, unsigned words, Value **b, Value **n, AllocaInst *cnt);
    void emitGroup(unsigned first, unsigned end, GlobalVariable *table, const std::string &comdat, int blk,
                   GlobalVariable *blockTable);
    void emitBlockWord(const Block &bk, unsigned index, GlobalVariable *blockTable, AllocaInst *cnt);
    GlobalVariable *makeLoopTable(Function &F, GlobalVariable *blockTable);
    void fillBlocks(GlobalVariable *blockTable, GlobalVariable *loopTable);
    void emitEntryExit(BasicBlock *entry);
    void emitCallWord(CallBase *CB, unsigned block, GlobalVariable *blockTable, AllocaInst *cnt);
    AllocaInst *emitRepeatWord(BasicBlock *BB, Instruction *first, unsigned index, GlobalVariable *blockTable,
                               AllocaInst *ctr);
    void addToCounter(Instruction *at, AllocaInst *ctr, GlobalVariable *blockTable, unsigned index, Value *value);
    void emitCountersEntry(AllocaInst *ctr, BasicBlock *entry);
    void makeCopies(Function &F, ValueToValueMapTy &plain, ValueToValueMapTy &count,
                    std::vector<BasicBlock *> &countBlocks);
    void addConstructor();
    bool routable(Instruction *I);
    void routeAtomic(Instruction *I);
};

/* collect.cc (each defined with its comment). */
int c11_order(AtomicOrdering o);
unsigned storeSize(const DataLayout &DL, Type *ty);
/* emit.cc (each defined with its comment). */
InlineAsm *pcLabel(LLVMContext &C, const char *section, const std::string &table, unsigned byteOffset,
                   const std::string &comdat, bool nop = true);
DebugLoc lineFor(Instruction *I);
Constant *taggedAddress(GlobalVariable *table, unsigned index, uint64_t tag);

} // namespace memspy_llvm

#endif
