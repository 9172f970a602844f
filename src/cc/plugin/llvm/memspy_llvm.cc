/* memspy's LLVM pass plugin (LLVM/clang 14, new pass manager): inline capture of the memory
 * accesses of the optimised code, emitting the same ABI as the GCC plugin (src/rt/msplug_abi.h).
 *
 * Loaded with `clang -fpass-plugin=memspy_llvm.so` (memspy-cc does it). One module pass,
 * registered at the optimizer's last extension point (registerOptimizerLastEPCallback; at -O0
 * too): after vectorisation, loop-invariant motion, SROA and register promotion, so the loads
 * and stores seen are those the binary makes. Only code generation's own memory traffic
 * (register spills, callee-saved saves, arguments passed on the stack) is not seen.
 *
 * What is instrumented, per instruction:
 *   - load/store of any type and width (scalars, 16/32/64-byte vectors, aggregates): one
 *     access of the type's store size, or the pieces code generation splits it into (a vector
 *     wider than the target's vector registers, an integer wider than 8 bytes); atomic
 *     load/store: kinds ATOMIC_LOAD/ATOMIC_STORE;
 *   - atomicrmw and cmpxchg: ATOMIC_RMW (a compare-exchange whether it succeeds or not);
 *   - but atomics of 1-8 bytes with an order stronger than monotonic become calls of the
 *     runtime's hooks __tsan_atomicN_* (as ThreadSanitizer's pass makes them), which perform
 *     them and record their ATOMIC synchronisation events (src/rt/atomics.c; docs/plugin.md,
 *     "Atomics' memory order"), in the instrumented body only;
 *   - llvm.masked.load/store, expandload/compressstore: one access covering the whole vector,
 *     masked-off lanes included (as the GCC plugin does);
 *   - llvm.masked.gather/scatter: one access per lane; a masked-off lane's address word is 0,
 *     which the runtime skips;
 *   - llvm.memcpy/memmove/memset (constant or variable length; clang's loop-idiom pass makes
 *     these from loops, struct copies too): one range per operand, in a group of its own
 *     committed just before the call, so that the runtime's interposed memcpy/memset, when the
 *     intrinsic becomes a libc call, recognise it and do not count it twice.
 * Accesses through non-zero address spaces (%fs/%gs-relative) are not seen.
 *
 * Code emitted: accesses of a basic block with no call between them form a group (at most
 * MSPLUG_GROUP_MAX_WORDS words): one bounds check on __memspy_buf[0] (a cold call to
 * __memspy_flush when full), a header word (the address of the group's first site, bit 63
 * set), one word per address, the count published once at the last site. Intrinsics other
 * than the memory ones do not end a group (they call no instrumented code). Each function
 * gets a static site table {pc = 0, info}; before each access an inline-asm statement
 * defines a local label on a 1-byte nop (which carries the access's source line) and emits
 * (label + 1, &site) into section __memspy_pcs (in the function's COMDAT group if it has one). A constructor per module passes the section's
 * bounds to __memspy_register_llvm. __memspy_func_entry(return address) at entry and
 * __memspy_func_exit before each return keep the runtime's shadow call stack (tail calls are
 * turned into ordinary calls; a function with a musttail call is left uninstrumented).
 *
 * Blocks and loops (ABI version 2): every basic block with code of its own (or heading a loop)
 * gets a descriptor in a per-function block table and appends a block word on each execution
 * (in its first group's reservation when no call precedes that group, else in a one-word
 * reservation of its own); its pc label goes into __memspy_bpcs. Loops come from LoopInfo
 * (outermost first), in a per-function loop table the block descriptors point to. The
 * constructor also passes __memspy_bpcs to __memspy_register_blocks.
 *
 * Versions (as the GCC plugin's, docs/plugin.md "Versioning"): once its sites and blocks are
 * collected, every function that can be is given two copies of its blocks, made before any
 * instrumentation: a plain copy (the optimised code as it was) and a counting copy (a block
 * word per counted block and a call word per call, naming the body's descriptors); a new
 * entry block holding the static allocas dispatches once per call on __memspy_plain. The body
 * alone gets the records, labels and entry/exit calls. Call words (call tag | the caller
 * block's descriptor, then the callee's address) precede every call that is not an intrinsic,
 * in the body and in the counting copy.
 *
 * Allocation destinations (ABI version 3, dests.cc): a record of where each pointer-returning
 * call's result goes, before the call in the body, registered by the constructor too.
 *
 * Environment: MEMSPY_LLVM_VERBOSE=1 prints the sites, groups, blocks and loops of each
 * function on stderr; MEMSPY_LLVM_NOVERSION=1 makes no copies.
 * Debugging: `clang -fpass-plugin=... -S -emit-llvm` shows the IR after the pass; `-S` shows
 * the labels and pairs.
 *
 * Files: this one (the pass, the tables, the copies, the constructor), collect.cc (sites, groups,
 * blocks), emit.cc (the code emitted for them), atomics.cc (hook calls), count.cc, dests.cc,
 * omp.cc; instrument.h declares what they share. */
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "count.h"
#include "dests.h"
#include "instrument.h"

using namespace llvm;

namespace memspy_llvm
{

void Instrumenter::declareRuntime()
{
    rt.i64 = Type::getInt64Ty(C);
    rt.i8p = Type::getInt8PtrTy(C);
    ArrayType *bufTy = ArrayType::get(rt.i64, 1 + MSPLUG_BUF_WORDS);
    rt.buf = dyn_cast_or_null<GlobalVariable>(M.getNamedValue(MSPLUG_SYM_BUF));
    if (!rt.buf)
        rt.buf = new GlobalVariable(M, bufTy, false, GlobalValue::ExternalLinkage, nullptr, MSPLUG_SYM_BUF, nullptr,
                                    GlobalValue::InitialExecTLSModel);
    Type *voidTy = Type::getVoidTy(C);
    rt.flush = M.getOrInsertFunction(MSPLUG_SYM_FLUSH, FunctionType::get(voidTy, false));
    if (Function *f = dyn_cast<Function>(rt.flush.getCallee())) {
        f->addFnAttr(Attribute::Cold);
        f->addFnAttr(Attribute::NoUnwind);
    }
    rt.entry = M.getOrInsertFunction(MSPLUG_SYM_ENTRY, FunctionType::get(voidTy, { rt.i8p }, false));
    rt.exit = M.getOrInsertFunction(MSPLUG_SYM_EXIT, FunctionType::get(voidTy, false));
    rt.counts = dyn_cast_or_null<GlobalVariable>(M.getNamedValue(MSPLUG_SYM_COUNTS));
    if (!rt.counts)
        rt.counts = new GlobalVariable(M, rt.i8p, false, GlobalValue::ExternalLinkage, nullptr, MSPLUG_SYM_COUNTS,
                                       nullptr, GlobalValue::InitialExecTLSModel);
    rt.countsInit = M.getOrInsertFunction(MSPLUG_SYM_COUNTS_INIT, FunctionType::get(rt.i8p, false));
    if (Function *f = dyn_cast<Function>(rt.countsInit.getCallee())) {
        f->addFnAttr(Attribute::Cold);
        f->addFnAttr(Attribute::NoUnwind);
    }
    rt.plain = dyn_cast_or_null<GlobalVariable>(M.getNamedValue(MSPLUG_SYM_PLAIN));
    if (!rt.plain)
        rt.plain =
            new GlobalVariable(M, Type::getInt32Ty(C), false, GlobalValue::ExternalLinkage, nullptr, MSPLUG_SYM_PLAIN);
    for (FunctionCallee fc : { rt.entry, rt.exit })
        if (Function *f = dyn_cast<Function>(fc.getCallee())) f->addFnAttr(Attribute::NoUnwind);
}

/* Whether F's blocks can be copied within F: no block whose address is taken, no indirectbr or
 * callbr, no call that returns twice (setjmp), no funclet (Windows EH) pad. */
static bool versionable(Function &F)
{
    for (BasicBlock &BB : F) {
        if (BB.hasAddressTaken()) return false;
        if (BB.isEHPad() && !BB.isLandingPad()) return false;
        for (Instruction &I : BB) {
            if (isa<IndirectBrInst>(&I) || isa<CallBrInst>(&I)) return false;
            if (auto *CB = dyn_cast<CallBase>(&I))
                if (CB->hasFnAttr(Attribute::ReturnsTwice)) return false;
        }
    }
    return true;
}

/* The plain and the counting copies of F's blocks (into the maps, blocks included), and a new
 * entry block: F's static allocas, then a switch on __memspy_plain to the body's entry
 * (capture, the default), the plain copy's (MSPLUG_RUN_PLAIN) or the counting copy's. */
void Instrumenter::makeCopies(Function &F, ValueToValueMapTy &plain, ValueToValueMapTy &count,
                              std::vector<BasicBlock *> &countBlocks)
{
    BasicBlock *entry = &F.getEntryBlock();
    BasicBlock *dispatch = BasicBlock::Create(C, "memspy.dispatch", &F, entry);
    std::vector<Instruction *> allocas;
    for (Instruction &I : *entry)
        if (auto *A = dyn_cast<AllocaInst>(&I))
            if (A->isStaticAlloca()) allocas.push_back(A);
    for (Instruction *A : allocas) A->moveBefore(*dispatch, dispatch->end());
    std::vector<BasicBlock *> body;
    for (BasicBlock &BB : F)
        if (&BB != dispatch) body.push_back(&BB);
    for (ValueToValueMapTy *map : { &plain, &count }) {
        SmallVector<BasicBlock *, 32> copies;
        for (BasicBlock *BB : body) {
            BasicBlock *copy = CloneBasicBlock(BB, *map, map == &plain ? ".plain" : ".count", &F);
            (*map)[BB] = copy;
            copies.push_back(copy);
        }
        remapInstructionsInBlocks(copies, *map);
        if (map == &count) countBlocks.assign(copies.begin(), copies.end());
    }
    IRBuilder<> B(dispatch);
    Value *mode = B.CreateLoad(Type::getInt32Ty(C), rt.plain, "memspy.mode");
    SwitchInst *sw = B.CreateSwitch(mode, entry, 2);
    sw->addCase(B.getInt32(MSPLUG_RUN_PLAIN), cast<BasicBlock>(plain[entry]));
    sw->addCase(B.getInt32(MSPLUG_RUN_COUNT), cast<BasicBlock>(count[entry]));
}

/* A static table of n 64-bit words (filled later), named prefix.N. */
static GlobalVariable *makeTable(Module &M, const char *prefix, unsigned n, unsigned counter)
{
    Type *i64 = Type::getInt64Ty(M.getContext());
    ArrayType *ty = ArrayType::get(i64, n);
    auto *t = new GlobalVariable(M, ty, false, GlobalValue::InternalLinkage, ConstantAggregateZero::get(ty),
                                 std::string(prefix) + "." + std::to_string(counter));
    t->setAlignment(Align(16));
    appendToCompilerUsed(M, { t });
    return t;
}

/* Give the function's blocks their innermost loops and make its loop table (if it has loops):
 * {nloops, 0}, then {&header block, MSPLUG_LOOP_INFO(parent, depth)} per loop, outermost
 * first. Returns the table or null. Called before the CFG changes. */
GlobalVariable *Instrumenter::makeLoopTable(Function &F, GlobalVariable *blockTable)
{
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
    SmallVector<Loop *, 4> preorder = LI.getLoopsInPreorder();
    std::vector<Loop *> loops(preorder.begin(), preorder.end());
    if (loops.empty()) return nullptr;
    std::stable_sort(loops.begin(), loops.end(),
                     [](const Loop *a, const Loop *b) { return a->getLoopDepth() < b->getLoopDepth(); });
    if (loops.size() > MSPLUG_NO_LOOP - 1) loops.resize(MSPLUG_NO_LOOP - 1);
    std::map<const Loop *, unsigned> indexOf;
    for (unsigned i = 0; i < loops.size(); i++) indexOf[loops[i]] = i;
    std::map<const BasicBlock *, unsigned> blockOf;
    for (unsigned i = 0; i < blocks.size(); i++) blockOf[blocks[i].bb] = i;
    Type *i64 = rt.i64;
    std::vector<Constant *> init = { ConstantInt::get(i64, loops.size()), ConstantInt::get(i64, 0) };
    for (Loop *lp : loops) {
        unsigned parent = MSPLUG_NO_LOOP;
        if (Loop *o = lp->getParentLoop())
            if (indexOf.count(o)) parent = indexOf[o];
        init.push_back(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * blockOf[lp->getHeader()], 0));
        init.push_back(ConstantInt::get(i64, MSPLUG_LOOP_INFO(parent, lp->getLoopDepth())));
    }
    for (Block &bk : blocks)
        for (Loop *o = LI.getLoopFor(bk.bb); o; o = o->getParentLoop())
            if (indexOf.count(o)) {
                bk.loop = indexOf[o];
                break;
            }
    GlobalVariable *t = makeTable(M, "__memspy_loops", init.size(), tables++);
    t->setInitializer(ConstantArray::get(cast<ArrayType>(t->getValueType()), init));
    return t;
}

/* Fill the block table: {0, MSPLUG_BLOCK_INFO, 0, &loop table or 0, MSPLUG_BLOCK_LINES} per
 * block. */
void Instrumenter::fillBlocks(GlobalVariable *blockTable, GlobalVariable *loopTable)
{
    Type *i64 = rt.i64;
    std::vector<Constant *> init;
    for (const Block &bk : blocks) {
        unsigned stmts = bk.stmts > 0xffffu ? 0xffffu : bk.stmts;
        init.push_back(ConstantInt::get(i64, 0));
        init.push_back(ConstantInt::get(i64, MSPLUG_BLOCK_INFO(bk.loop, bk.memops, stmts)));
        init.push_back(ConstantInt::get(i64, 0));
        init.push_back(loopTable ? taggedAddress(loopTable, 0, 0) : ConstantInt::get(i64, 0));
        init.push_back(ConstantInt::get(i64, MSPLUG_BLOCK_LINES(bk.firstLine, bk.lastLine)));
    }
    blockTable->setInitializer(ConstantArray::get(cast<ArrayType>(blockTable->getValueType()), init));
}

/* Whether the pass leaves F alone (a declaration, naked, our own, a musttail call in it). */
static bool skipped(Function &F)
{
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage() || F.hasFnAttribute(Attribute::Naked) ||
        F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) || F.getName().startswith("__memspy"))
        return true;
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (CI->isMustTailCall()) return true;
    return false;
}

/* Whether F is only called directly, by functions the pass instruments (their call edges are
 * counted): local, every use a call of it, from a function not skipped. Decided before any
 * function is instrumented (the tables of direct call sites take the callees' addresses). */
static bool onlyCalledDirectly(Function &F)
{
    if (!F.hasLocalLinkage() || F.hasOptNone() || skipped(F)) return false;
    for (Use &U : F.uses()) {
        auto *CB = dyn_cast<CallBase>(U.getUser());
        if (!CB || !CB->isCallee(&U) || skipped(*CB->getFunction())) return false;
    }
    return true;
}

/* The block of F whose count is its calls' (ABI 7), or -1: its entry block (entry), when F is
 * only called directly (onlyCalledDirectly) and the block has a descriptor and no call. */
int Instrumenter::derivedEntry(Function &F, BasicBlock *entry)
{
    if (!calledDirectly.count(&F)) return -1;
    for (auto &c : callInsts)
        if (c.second == entry) return -1;
    for (unsigned i = 0; i < blocks.size(); i++)
        if (blocks[i].bb == entry) return (int)i;
    return -1;
}

bool Instrumenter::instrumentFunction(Function &F)
{
    if (skipped(F)) return false;
    unoptimised = F.hasOptNone();
    sites.clear();
    groupStart.clear();
    groupBlock.clear();
    blocks.clear();
    callInsts.clear();
    returns.clear();
    atomics.clear();
    calls = 0;
    vecBytes = (unsigned)(FAM.getResult<TargetIRAnalysis>(F)
                              .getRegisterBitWidth(TargetTransformInfo::RGK_FixedWidthVector)
                              .getFixedSize() /
                          8);
    LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
    std::vector<BasicBlock *> bbs;
    for (BasicBlock &BB : F) bbs.push_back(&BB);
    for (BasicBlock *BB : bbs) collectBlock(*BB, LI.isLoopHeader(BB));
    if (sites.empty() && calls == 0 && blocks.empty()) return false;
    std::vector<std::pair<CallBase *, std::string>> dests = memspyCollectDests(F); /* before the copies */
    if (!rt.buf) declareRuntime();
    std::string comdat = F.hasComdat() ? F.getComdat()->getName().str() : "";
    GlobalVariable *blockTable = nullptr, *loopTable = nullptr;
    if (!blocks.empty()) {
        blockTable = makeTable(M, "__memspy_blocks", MSPLUG_BLOCK_WORDS * blocks.size(), tables++);
        loopTable = makeLoopTable(F, blockTable); /* before the CFG changes */
    }
    /* the copies, before any code is emitted (the counting copy's block and call words come
     * after the body's emission, from the maps) */
    BasicBlock *bodyEntry = &F.getEntryBlock();
    ValueToValueMapTy plainMap, countMap;
    bool versioned = !noversion && blockTable && versionable(F);
    std::vector<BasicBlock *> countBlocks;
    std::vector<Instruction *> countBounds;
    AllocaInst *cnt = nullptr; /* the counting copy's count (count.h) */
    AllocaInst *ctr = nullptr; /* its block counters, the thread's array (ABI 5) */
    /* the direct call sites (ABI 6): a block's first call with a constant callee (no intrinsic)
     * has no call word in any version; its count is its block's */
    std::map<CallBase *, unsigned> direct; /* call -> its block's index */
    std::vector<Constant *> sitesInit;     /* their table: {&block descriptor, callee} each */
    {
        std::map<const BasicBlock *, unsigned> blockOf;
        for (unsigned i = 0; i < blocks.size(); i++) blockOf[blocks[i].bb] = i;
        const BasicBlock *prev = nullptr;
        for (auto &c : callInsts) {
            bool first = c.second != prev;
            prev = c.second;
            auto at = blockOf.find(c.second);
            auto *callee = dyn_cast<Constant>(c.first->getCalledOperand()->stripPointerCasts());
            auto *fn = dyn_cast_or_null<Function>(callee);
            if (!first || at == blockOf.end() || !callee || (fn && fn->isIntrinsic())) continue;
            direct[c.first] = at->second;
            sitesInit.push_back(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * at->second, 0));
            sitesInit.push_back(ConstantExpr::getPtrToInt(callee, rt.i64));
        }
    }
    bool copyCallWords = direct.size() < callInsts.size();
    /* the entry block counted by its function's calls (ABI 7): no counter in the counting copy */
    int derived = versioned && !unoptimised ? derivedEntry(F, bodyEntry) : -1;
    if (derived >= 0) {
        Constant *at = taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * derived, 0); /* + 1: a relocation (| is not) */
        sitesInit.push_back(ConstantExpr::getAdd(at, ConstantInt::get(rt.i64, MSPLUG_CALL_ENTRY)));
        sitesInit.push_back(ConstantExpr::getPtrToInt(&F, rt.i64));
    }
    if (versioned) {
        makeCopies(F, plainMap, countMap, countBlocks);
        countBounds = memspyCountBounds(countBlocks);
        /* not at -O0: the count's values would be spilled into the frame the body shares; only
         * for call words (the blocks have counters), and for the counters only if a block has one */
        if (!unoptimised) {
            if (copyCallWords) cnt = new AllocaInst(rt.i64, 0, "memspy.cnt", &*F.getEntryBlock().getFirstInsertionPt());
            if (blocks.size() > (derived >= 0 ? 1u : 0u))
                ctr = new AllocaInst(rt.i8p, 0, "memspy.ctr", &*F.getEntryBlock().getFirstInsertionPt());
        }
    }
    if (verbose)
        errs() << "memspy_llvm: " << F.getName() << ": " << sites.size() << " sites in " << groupStart.size()
               << " groups, " << blocks.size() << " blocks, "
               << (loopTable ? cast<ConstantInt>(loopTable->getInitializer()->getAggregateElement(0u))->getZExtValue()
                             : 0)
               << " loops" << (versioned ? ", versioned" : "") << "\n";
    /* block labels first: before the block's own records (the GCC plugin's order) */
    for (unsigned i = 0; i < blocks.size(); i++) {
        Block &bk = blocks[i];
        IRBuilder<> B(bk.first);
        if (!bk.first->getDebugLoc() || !bk.first->getDebugLoc().getLine())
            if (DebugLoc loc = lineFor(bk.first)) B.SetCurrentDebugLocation(loc);
        B.CreateCall(
            pcLabel(C, MSPLUG_BLOCK_PCS_SECTION, blockTable->getName().str(), 8 * MSPLUG_BLOCK_WORDS * i, comdat));
    }
    if (!sites.empty()) {
        std::vector<Constant *> init;
        for (unsigned g = 0; g < groupStart.size(); g++) {
            unsigned first = groupStart[g], end = g + 1 < groupStart.size() ? groupStart[g + 1] : sites.size();
            for (unsigned i = first; i < end; i++) {
                unsigned flags =
                    (i + 1 == end ? MSPLUG_F_LAST : 0) | (sites[i].order >= 0 ? MSPLUG_F_ORDER(sites[i].order) : 0);
                uint64_t info = MSPLUG_INFO(sites[i].size, sites[i].kind, flags);
                if (i == first) {
                    unsigned words = 0;
                    for (unsigned j = first; j < end; j++) words += msplug_site_words(sites[j].kind);
                    info |= MSPLUG_INFO_GROUP_WORDS(words);
                }
                init.push_back(ConstantInt::get(rt.i64, 0));
                init.push_back(ConstantInt::get(rt.i64, info));
            }
        }
        GlobalVariable *table = makeTable(M, "__memspy_sites", init.size(), tables++);
        table->setInitializer(ConstantArray::get(cast<ArrayType>(table->getValueType()), init));
        for (unsigned g = 0; g < groupStart.size(); g++) {
            unsigned first = groupStart[g], end = g + 1 < groupStart.size() ? groupStart[g + 1] : sites.size();
            emitGroup(first, end, table, comdat, groupBlock[g], blockTable);
        }
    }
    for (unsigned i = 0; i < blocks.size(); i++)
        if (blocks[i].group < 0) emitBlockWord(blocks[i], i, blockTable, nullptr);
    std::map<const BasicBlock *, unsigned> blockIndex;
    for (unsigned i = 0; i < blocks.size(); i++) blockIndex[blocks[i].bb] = i;
    for (auto &c : callInsts) {
        auto at = blockIndex.find(c.second);
        if (at == blockIndex.end()) continue; /* no descriptor: nothing to name the caller by */
        if (direct.count(c.first)) continue;
        emitCallWord(c.first, at->second, blockTable, nullptr);
        if (versioned) emitCallWord(cast<CallBase>(countMap[c.first]), at->second, blockTable, cnt);
    }
    std::vector<unsigned> repeats; /* the counting copy's blocks counted by their trip counts */
    if (versioned)                 /* the counting copy: a counter (at -O0 a block word) per counted block */
        for (unsigned i = 0; i < blocks.size(); i++) {
            Block copy = blocks[i];
            copy.first = cast<Instruction>(countMap[blocks[i].first]);
            if ((int)i == derived) {
                /* its count is its function's calls */
            } else if (ctr && memspyLoopsToItself(copy.first->getParent())) {
                repeats.push_back(i); /* after every other word: its edges are final then */
            } else if (ctr) {
                addToCounter(copy.first, ctr, blockTable, i, nullptr);
            } else {
                emitBlockWord(copy, i, blockTable, cnt);
            }
            /* the plain copy's label (no nop: nothing added to the code the timing run runs;
             * no location: no line-table row of its own for the copy's pcs) */
            IRBuilder<>(cast<Instruction>(plainMap[blocks[i].first]))
                .CreateCall(pcLabel(C, MSPLUG_PLAIN_PCS_SECTION, blockTable->getName().str(),
                                    8 * MSPLUG_BLOCK_WORDS * i, comdat, false))
                ->setDebugLoc(DebugLoc());
        }
    std::vector<AllocaInst *> locals; /* the count, the counters and the trip counts: promoted together */
    if (cnt) locals.push_back(cnt);
    if (ctr) locals.push_back(ctr);
    for (unsigned i : repeats) {
        Instruction *first = cast<Instruction>(countMap[blocks[i].first]);
        if (memspyLoopsToItself(first->getParent())) {
            locals.push_back(emitRepeatWord(first->getParent(), first, i, blockTable, ctr));
        } else { /* another word's code changed its edges */
            addToCounter(first, ctr, blockTable, i, nullptr);
        }
    }
    if (ctr) emitCountersEntry(ctr, cast<BasicBlock>(countMap[bodyEntry]));
    if (cnt) {
        memspyCountBoundsEmit(F, locals, rt.buf, cast<BasicBlock>(countMap[bodyEntry]), countBounds);
    } else if (!locals.empty()) { /* the counters and trip counts alone */
        memspyPromoteLocals(F, locals);
    }
    if (!sitesInit.empty()) { /* in the function's COMDAT group: discarded with it */
        GlobalVariable *t = makeTable(M, "__memspy_calls", sitesInit.size(), tables++);
        t->setInitializer(ConstantArray::get(cast<ArrayType>(t->getValueType()), sitesInit));
        t->setSection(MSPLUG_CALLS_SECTION);
        if (F.hasComdat()) t->setComdat(F.getComdat());
    }
    if (blockTable) fillBlocks(blockTable, loopTable);
    for (auto &d : dests) {                     /* in the body only: the copies match records by position */
        bool endLabel = isa<CallInst>(d.first); /* an invoke ends its block */
        /* no location: the integrated assembler would give the line row of a .loc before it to
         * the record's data in the other section, and the call (same location: no new .loc)
         * would have none of its own (its return address symbolized to line 0) */
        IRBuilder<>(d.first).CreateCall(memspyDestAsm(C, d.second, comdat, endLabel))->setDebugLoc(DebugLoc());
        if (endLabel)
            IRBuilder<>(d.first->getNextNode()).CreateCall(memspyDestEndAsm(C))->setDebugLoc(d.first->getDebugLoc());
    }
    if (const std::string *omp = memspyOmpRecord(F)) /* an OpenMP region's record, at the body's entry */
        IRBuilder<>(&*bodyEntry->getFirstInsertionPt()).CreateCall(memspyDestAsm(C, *omp, comdat, false));
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (CI->isTailCall()) CI->setTailCallKind(CallInst::TCK_None); /* the exit call runs after it */
    emitEntryExit(bodyEntry);
    for (Instruction *I : atomics) routeAtomic(I); /* the body's only: the copies keep theirs */
    return true;
}

/* The module's constructor: __memspy_register_llvm(&__start___memspy_pcs, &__stop___memspy_pcs)
 * (weak hidden: this module's section), which also activates the runtime before the module's
 * own constructors run (its priority comes first), and __memspy_register_blocks for the
 * section of block pcs. */
void Instrumenter::addConstructor()
{
    Type *i8 = Type::getInt8Ty(C);
    auto bound = [&](const char *name) {
        auto *g = new GlobalVariable(M, i8, false, GlobalValue::ExternalWeakLinkage, nullptr, name);
        g->setVisibility(GlobalValue::HiddenVisibility);
        return g;
    };
    GlobalVariable *start = bound("__start_" MSPLUG_PCS_SECTION), *stop = bound("__stop_" MSPLUG_PCS_SECTION);
    GlobalVariable *bstart = bound("__start_" MSPLUG_BLOCK_PCS_SECTION);
    GlobalVariable *bstop = bound("__stop_" MSPLUG_BLOCK_PCS_SECTION);
    GlobalVariable *pstart = bound("__start_" MSPLUG_PLAIN_PCS_SECTION);
    GlobalVariable *pstop = bound("__stop_" MSPLUG_PLAIN_PCS_SECTION);
    GlobalVariable *dstart = bound("__start_" MSPLUG_DESTS_SECTION);
    GlobalVariable *dstop = bound("__stop_" MSPLUG_DESTS_SECTION);
    GlobalVariable *cstart = bound("__start_" MSPLUG_CALLS_SECTION);
    GlobalVariable *cstop = bound("__stop_" MSPLUG_CALLS_SECTION);
    FunctionType *regTy = FunctionType::get(Type::getVoidTy(C), { rt.i8p, rt.i8p }, false);
    FunctionCallee reg = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_LLVM, regTy);
    FunctionCallee regBlocks = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_BLOCKS, regTy);
    FunctionCallee regPlain = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_PLAIN, regTy);
    FunctionCallee regDests = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_DESTS, regTy);
    FunctionCallee regCalls = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_CALLS, regTy);
    Function *ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false), GlobalValue::InternalLinkage,
                                      "__memspy_module_ctor", M);
    ctor->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> B(BasicBlock::Create(C, "", ctor));
    B.CreateCall(reg, { start, stop });
    B.CreateCall(regBlocks, { bstart, bstop });
    B.CreateCall(regPlain, { pstart, pstop });
    B.CreateCall(regDests, { dstart, dstop });
    B.CreateCall(regCalls, { cstart, cstop }); /* after the blocks: the dump reads their ids */
    B.CreateRetVoid();
    appendToGlobalCtors(M, ctor, 99);
}

bool Instrumenter::run()
{
    const char *v = getenv("MEMSPY_LLVM_VERBOSE"), *nv = getenv("MEMSPY_LLVM_NOVERSION");
    verbose = v && *v && std::string(v) != "0";
    noversion = nv && *nv && std::string(nv) != "0";
    std::vector<Function *> fns;
    for (Function &F : M) fns.push_back(&F);
    for (Function *F : fns)
        if (onlyCalledDirectly(*F)) calledDirectly.insert(F);
    bool any = false;
    for (Function *F : fns) any |= instrumentFunction(*F);
    if (any) addConstructor();
    return any;
}

} // namespace memspy_llvm

using namespace memspy_llvm;

namespace
{

struct MemspyPass : PassInfoMixin<MemspyPass> {
    PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM)
    {
        FunctionAnalysisManager &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
        return Instrumenter(M, FAM).run() ? PreservedAnalyses::none() : PreservedAnalyses::all();
    }
    static bool isRequired() { return true; } /* runs at -O0 and on optnone functions too */
};

/* At the pipeline's start, before any optimisation: allocation destinations as written
 * (dests.cc). Changes nothing. */
struct MemspyEarlyDests : PassInfoMixin<MemspyEarlyDests> {
    PreservedAnalyses run(Module &M, ModuleAnalysisManager &)
    {
        memspyEarlyDests(M);
        memspyEarlyOmp(M);
        return PreservedAnalyses::all();
    }
    static bool isRequired() { return true; }
};

} // namespace

/* Entry point of the pass plugin: the pass at the optimizer's last extension point, the
 * early destinations pass at the pipeline's start. */
extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo()
{
    return { LLVM_PLUGIN_API_VERSION, "memspy", "0.1", [](PassBuilder &PB) {
                PB.registerPipelineStartEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(MemspyEarlyDests()); });
                PB.registerOptimizerLastEPCallback(
                    [](ModulePassManager &MPM, OptimizationLevel) { MPM.addPass(MemspyPass()); });
            } };
}
