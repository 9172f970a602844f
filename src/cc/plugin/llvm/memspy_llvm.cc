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
 * the labels and pairs. */
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

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"
#include "count.h"
#include "dests.h"

using namespace llvm;

namespace
{

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

/* C11's memory order (relaxed 0 ... seq_cst 5) of an LLVM atomic ordering. */
static int c11_order(AtomicOrdering o)
{
    switch (o) {
    case AtomicOrdering::Acquire: return 2;
    case AtomicOrdering::Release: return 3;
    case AtomicOrdering::AcquireRelease: return 4;
    case AtomicOrdering::SequentiallyConsistent: return 5;
    default: return 0; /* unordered, monotonic */
    }
}

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
    GlobalVariable *buf = nullptr, *plain = nullptr;
    FunctionCallee flush, entry, exit;
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

    void declareRuntime();
    bool instrumentFunction(Function &F);
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
                               AllocaInst *cnt);
    void makeCopies(Function &F, ValueToValueMapTy &plain, ValueToValueMapTy &count,
                    std::vector<BasicBlock *> &countBlocks);
    void addConstructor();
    bool routable(Instruction *I);
    void routeAtomic(Instruction *I);
};

/* Store size of ty in bytes, 0 if it is not a fixed size that fits a site. */
static unsigned storeSize(const DataLayout &DL, Type *ty)
{
    if (isa<ScalableVectorType>(ty) || !ty->isSized()) return 0;
    uint64_t s = DL.getTypeStoreSize(ty).getFixedSize();
    return s > 0 && s <= 0x7fffffffu ? (unsigned)s : 0;
}

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
    rt.plain = dyn_cast_or_null<GlobalVariable>(M.getNamedValue(MSPLUG_SYM_PLAIN));
    if (!rt.plain)
        rt.plain =
            new GlobalVariable(M, Type::getInt32Ty(C), false, GlobalValue::ExternalLinkage, nullptr, MSPLUG_SYM_PLAIN);
    for (FunctionCallee fc : { rt.entry, rt.exit })
        if (Function *f = dyn_cast<Function>(fc.getCallee())) f->addFnAttr(Attribute::NoUnwind);
}

void Instrumenter::closeGroup(unsigned &openFrom)
{
    if (openFrom < sites.size()) groupStart.push_back(openFrom);
    openFrom = sites.size();
}

/* A plain access of type ty at ptr by I. Returns false if it cannot be recorded. An access
 * that code generation splits is recorded as its pieces, as the binary makes them: a vector
 * wider than the target's vector registers (vecBytes), an integer wider than 8 bytes. */
bool Instrumenter::addAccess(Instruction *I, Value *ptr, Type *ty, unsigned kind)
{
    if (!ptr->getType()->isPointerTy() || ptr->getType()->getPointerAddressSpace() != 0) return false;
    unsigned size = storeSize(DL, ty);
    if (!size) return false;
    unsigned piece = size;
    bool plain = kind == MSPLUG_K_READ || kind == MSPLUG_K_WRITE;
    if (plain && ty->isVectorTy() && vecBytes >= 16 && size > vecBytes && size % vecBytes == 0)
        piece = vecBytes;
    else if (plain && ty->isIntegerTy() && size > 8 && size % 8 == 0)
        piece = 8;
    for (unsigned offset = 0; offset < size; offset += piece)
        sites.push_back(Site{ I, { ptr, nullptr, nullptr }, kind, piece, offset, -1, nullptr });
    return true;
}

/* At -O0 (optnone) code generation loads every floating-point operand but +0.0 from the
 * constant pool at each use (optimised code hoists these loads out of loops): a read per such
 * operand of I, recorded at the constant's own copy in .rodata (the same count of reads as the
 * binary's, to a neighbouring line). */
void Instrumenter::constantReads(Instruction *I)
{
    if (!unoptimised || isa<PHINode>(I) || isa<DbgInfoIntrinsic>(I)) return;
    for (Value *op : I->operands()) {
        auto *fp = dyn_cast<ConstantFP>(op);
        if (!fp || (fp->isZero() && !fp->isNegative())) continue;
        unsigned size = storeSize(DL, fp->getType());
        if (!size || size > 16) continue;
        GlobalVariable *&g = fpConstants[fp];
        if (!g) {
            g = new GlobalVariable(M, fp->getType(), true, GlobalValue::PrivateLinkage, fp, "__memspy_fpconst");
            g->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
        }
        sites.push_back(Site{ I, { g, nullptr, nullptr }, MSPLUG_K_READ, size, 0, -1, nullptr });
    }
}

/* Whether a call can run instrumented code or the runtime (it then ends a group): every call
 * but intrinsics (the memory intrinsics are handled by callSites). */
static bool mayEnterRuntime(CallBase *CB)
{
    if (CB->isInlineAsm()) return true;
    Function *f = CB->getCalledFunction();
    return !(f && f->isIntrinsic());
}

/* Sites of a call. Returns true if the call ends the current group. */
bool Instrumenter::callSites(CallBase *CB, unsigned &openFrom)
{
    if (auto *MI = dyn_cast<MemIntrinsic>(CB)) {
        closeGroup(openFrom);
        Value *dst = MI->getDest(), *len = MI->getLength();
        if (dst->getType()->getPointerAddressSpace() != 0) return true;
        auto *clen = dyn_cast<ConstantInt>(len);
        bool fixed = clen && clen->getZExtValue() <= 0x7fffffffu;
        if (fixed && clen->getZExtValue() == 0) return true;
        unsigned size = fixed ? (unsigned)clen->getZExtValue() : 0;
        if (auto *MT = dyn_cast<MemTransferInst>(MI)) {
            Value *src = MT->getSource();
            if (src->getType()->getPointerAddressSpace() != 0) return true;
            sites.push_back(Site{ CB,
                                  { dst, src, fixed ? nullptr : len },
                                  fixed ? MSPLUG_K_COPY : MSPLUG_K_COPY_VAR,
                                  size,
                                  0,
                                  -1,
                                  nullptr });
        } else {
            sites.push_back(Site{ CB,
                                  { dst, fixed ? nullptr : len, nullptr },
                                  fixed ? MSPLUG_K_SET : MSPLUG_K_SET_VAR,
                                  size,
                                  0,
                                  -1,
                                  nullptr });
        }
        closeGroup(openFrom);
        return true;
    }
    if (auto *II = dyn_cast<IntrinsicInst>(CB)) {
        switch (II->getIntrinsicID()) {
        case Intrinsic::masked_load: addAccess(II, II->getArgOperand(0), II->getType(), MSPLUG_K_READ); break;
        case Intrinsic::masked_store:
            addAccess(II, II->getArgOperand(1), II->getArgOperand(0)->getType(), MSPLUG_K_WRITE);
            break;
        case Intrinsic::masked_expandload: addAccess(II, II->getArgOperand(0), II->getType(), MSPLUG_K_READ); break;
        case Intrinsic::masked_compressstore:
            addAccess(II, II->getArgOperand(1), II->getArgOperand(0)->getType(), MSPLUG_K_WRITE);
            break;
        case Intrinsic::masked_gather:
        case Intrinsic::masked_scatter: {
            bool gather = II->getIntrinsicID() == Intrinsic::masked_gather;
            Value *ptrs = II->getArgOperand(gather ? 0 : 1), *mask = II->getArgOperand(gather ? 2 : 3);
            auto *vt = dyn_cast<FixedVectorType>(ptrs->getType());
            auto *dt = dyn_cast<FixedVectorType>(gather ? II->getType() : II->getArgOperand(0)->getType());
            if (!vt || !dt || vt->getElementType()->getPointerAddressSpace() != 0) break;
            unsigned size = storeSize(DL, dt->getElementType());
            if (!size) break;
            for (unsigned j = 0; j < vt->getNumElements(); j++)
                sites.push_back(Site{
                    II, { ptrs, nullptr, nullptr }, gather ? MSPLUG_K_READ : MSPLUG_K_WRITE, size, 0, (int)j, mask });
            break;
        }
        default: break;
        }
        return false;
    }
    if (!mayEnterRuntime(CB)) return false;
    calls++;
    return true;
}

/* Collect the sites of BB, split them into groups, and describe BB as a counted block if it
 * has code of its own (header: it heads a loop). */
void Instrumenter::collectBlock(BasicBlock &BB, bool header)
{
    unsigned openFrom = sites.size();
    unsigned firstSite = openFrom, firstGroup = groupStart.size(), stmts = 0;
    bool callFirst = false; /* a call precedes the block's first group */
    unsigned firstLine = 0, lastLine = 0;
    for (Instruction &I : BB) {
        if (isa<PHINode>(&I) || isa<DbgInfoIntrinsic>(&I)) continue;
        if (auto *br = dyn_cast<BranchInst>(&I))
            if (br->isUnconditional()) continue;
        stmts++;
        if (const DebugLoc &dl = I.getDebugLoc())
            if (dl.getLine() && !dl.getInlinedAt()) { /* not a line of an inlined callee */
                firstLine = firstLine ? std::min(firstLine, dl.getLine()) : dl.getLine();
                lastLine = std::max(lastLine, dl.getLine());
            }
        constantReads(&I);
        if (routable(&I)) { /* a call of the runtime's hook: ends the group, as a call does */
            closeGroup(openFrom);
            atomics.push_back(&I);
            if (groupStart.size() == firstGroup && openFrom == firstSite) callFirst = true;
            calls++;
        } else if (auto *L = dyn_cast<LoadInst>(&I)) {
            if (addAccess(L, L->getPointerOperand(), L->getType(),
                          L->isAtomic() ? MSPLUG_K_ATOMIC_LOAD : MSPLUG_K_READ) &&
                L->isAtomic())
                sites.back().order = c11_order(L->getOrdering());
        } else if (auto *S = dyn_cast<StoreInst>(&I)) {
            if (addAccess(S, S->getPointerOperand(), S->getValueOperand()->getType(),
                          S->isAtomic() ? MSPLUG_K_ATOMIC_STORE : MSPLUG_K_WRITE) &&
                S->isAtomic())
                sites.back().order = c11_order(S->getOrdering());
        } else if (auto *R = dyn_cast<AtomicRMWInst>(&I)) {
            if (addAccess(R, R->getPointerOperand(), R->getValOperand()->getType(), MSPLUG_K_ATOMIC_RMW))
                sites.back().order = c11_order(R->getOrdering());
        } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I)) {
            if (addAccess(X, X->getPointerOperand(), X->getCompareOperand()->getType(), MSPLUG_K_ATOMIC_RMW))
                sites.back().order = c11_order(X->getSuccessOrdering());
        } else if (auto *CB = dyn_cast<CallBase>(&I)) {
            unsigned before = calls;
            if (callSites(CB, openFrom)) closeGroup(openFrom);
            if (calls != before && groupStart.size() == firstGroup && openFrom == firstSite) callFirst = true;
            if (calls != before && !CB->isInlineAsm()) callInsts.push_back({ CB, &BB });
        } else if (auto *R = dyn_cast<ReturnInst>(&I)) {
            returns.push_back(R);
        }
        /* a group's words must fit its reservation */
        unsigned words = 1;
        for (unsigned i = openFrom; i < sites.size(); i++) words += msplug_site_words(sites[i].kind);
        if (words + 3 > MSPLUG_GROUP_MAX_WORDS) closeGroup(openFrom);
    }
    closeGroup(openFrom);
    groupBlock.resize(groupStart.size(), -1);
    if (!stmts && !header) return; /* an empty forwarder: no code of its own to count */
    BasicBlock::iterator first = BB.getFirstInsertionPt();
    if (BB.isEntryBlock()) /* the static allocas stay in the entry block, before any split */
        while (first != BB.end() && isa<AllocaInst>(&*first)) ++first;
    if (first == BB.end()) return; /* a funclet pad: nothing can go there */
    bool merged = !callFirst && groupStart.size() > firstGroup;
    Block b = {
        &BB,       &*first, merged ? (int)firstGroup : -1, (unsigned)(sites.size() - firstSite), stmts, MSPLUG_NO_LOOP,
        firstLine, lastLine
    };
    if (merged) groupBlock[firstGroup] = (int)blocks.size();
    blocks.push_back(b);
}

/* The inline asm of a site's or a block's pc: a label on a 1-byte nop and (label + 1,
 * table + byteOffset) in the pairs section. The nop carries the access's source line (the asm statement's location):
 * without it the address of the label would belong to whatever instruction code generation
 * puts next, sometimes one of another line or of line 0 (merged or hoisted code). */
static InlineAsm *pcLabel(LLVMContext &C, const char *section, const std::string &table, unsigned byteOffset,
                          const std::string &comdat, bool nop = true)
{
    std::string text = std::string(nop ? "1: nop" : "1:") + "\n\t.pushsection " + section;
    text += comdat.empty() ? ",\"aw\",@progbits" : ",\"awG\",@progbits," + comdat + ",comdat";
    text += "\n\t.balign 8\n\t.quad 1b+1, " + table + "+" + std::to_string(byteOffset) + "\n\t.popsection";
    return InlineAsm::get(FunctionType::get(Type::getVoidTy(C), false), text, "", true);
}

/* Whether lane of mask is a constant true. */
static bool match_all_ones(Value *mask, int lane)
{
    auto *c = dyn_cast<Constant>(mask);
    if (!c) return false;
    if (c->isAllOnesValue()) return true;
    Constant *e = c->getAggregateElement((unsigned)lane);
    return e && e->isOneValue();
}

/* A source location for an access that has none (line 0: hoisted or merged by the optimizer),
 * so that its site's pc symbolizes to a line: the nearest earlier instruction's in its block,
 * else a later one's, else the function's first line. Returns an empty location if the
 * function has no debug information. */
static DebugLoc lineFor(Instruction *I)
{
    DISubprogram *sp = I->getFunction()->getSubprogram();
    if (!sp) return DebugLoc();
    for (Instruction *p = I->getPrevNode(); p; p = p->getPrevNode())
        if (p->getDebugLoc() && p->getDebugLoc().getLine()) return p->getDebugLoc();
    for (Instruction *n = I->getNextNode(); n; n = n->getNextNode())
        if (n->getDebugLoc() && n->getDebugLoc().getLine()) return n->getDebugLoc();
    return DILocation::get(I->getContext(), sp->getLine(), 0, sp);
}

/* (u64)&table[index] | tag, a constant. */
static Constant *taggedAddress(GlobalVariable *table, unsigned index, uint64_t tag)
{
    Type *i64 = Type::getInt64Ty(table->getContext());
    Constant *elt = ConstantExpr::getInBoundsGetElementPtr(
        table->getValueType(), table, ArrayRef<Constant *>{ ConstantInt::get(i64, 0), ConstantInt::get(i64, index) });
    Constant *addr = ConstantExpr::getPtrToInt(elt, i64);
    return tag ? ConstantExpr::getOr(addr, ConstantInt::get(i64, tag)) : addr;
}

/* Reserve words in the thread's buffer before at: b = &__memspy_buf[0]; n = b[0], or 0 after
 * a flush when fewer than words are free. Returns p = b + n (the records go to p[1..words]).
 * With the counting copy's count local cnt (count.h), n = cnt, stored into b[0] before a
 * flush. */
Value *Instrumenter::reserve(Instruction *at, unsigned words, Value **b, Value **n, AllocaInst *cnt)
{
    Type *i64 = rt.i64;
    IRBuilder<> B(at);
    *b = B.CreateConstInBoundsGEP2_64(rt.buf->getValueType(), rt.buf, 0, 0);
    Value *n0 = B.CreateLoad(i64, cnt ? (Value *)cnt : *b, "memspy.n0");
    Value *full = B.CreateICmpUGT(n0, ConstantInt::get(i64, MSPLUG_BUF_WORDS - words));
    BasicBlock *condBB = at->getParent();
    MDNode *weights = MDBuilder(C).createBranchWeights(1, 1 << 20);
    Instruction *thenTerm = SplitBlockAndInsertIfThen(full, at, false, weights);
    if (cnt) IRBuilder<>(thenTerm).CreateStore(n0, *b);
    IRBuilder<>(thenTerm).CreateCall(rt.flush);
    BasicBlock *tail = at->getParent();
    PHINode *phi = PHINode::Create(i64, 2, "memspy.n", &tail->front());
    phi->addIncoming(n0, condBB);
    phi->addIncoming(ConstantInt::get(i64, 0), thenTerm->getParent());
    *n = phi;
    B.SetInsertPoint(at);
    return B.CreateInBoundsGEP(i64, *b, phi);
}

/* A block word in a reservation of its own, just before the block's first instruction (cnt:
 * the counting copy's count local, null for the count in memory). */
void Instrumenter::emitBlockWord(const Block &bk, unsigned index, GlobalVariable *blockTable, AllocaInst *cnt)
{
    Value *b, *n;
    Value *p = reserve(bk.first, 1, &b, &n, cnt);
    IRBuilder<> B(bk.first);
    B.CreateStore(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * index, MSPLUG_BLOCK_TAG),
                  B.CreateConstInBoundsGEP1_64(rt.i64, p, 1));
    B.CreateStore(B.CreateAdd(n, ConstantInt::get(rt.i64, 1)), cnt ? (Value *)cnt : b);
}

/* Emit the group of sites [first, end) of the function's table; blk: the index of the block
 * whose word the group carries first (-1 none). */
void Instrumenter::emitGroup(unsigned first, unsigned end, GlobalVariable *table, const std::string &comdat, int blk,
                             GlobalVariable *blockTable)
{
    unsigned words = 1 + (blk >= 0);
    for (unsigned i = first; i < end; i++) words += msplug_site_words(sites[i].kind);
    Instruction *s0 = sites[first].at;
    Type *i64 = rt.i64;
    Value *b, *n;
    Value *p = reserve(s0, words, &b, &n, nullptr);

    /* p[1] = block word (if any), then the header (first site, bit 63 set) */
    IRBuilder<> B(s0);
    unsigned w = 1;
    if (blk >= 0)
        B.CreateStore(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * (unsigned)blk, MSPLUG_BLOCK_TAG),
                      B.CreateConstInBoundsGEP1_64(i64, p, w++));
    B.CreateStore(taggedAddress(table, 2 * first, 1ull << 63), B.CreateConstInBoundsGEP1_64(i64, p, w++));

    for (unsigned i = first; i < end; i++) {
        Site &s = sites[i];
        if (!s.at->getDebugLoc() || !s.at->getDebugLoc().getLine()) /* its label's nop takes its location */
            if (DebugLoc loc = lineFor(s.at)) s.at->setDebugLoc(loc);
        B.SetInsertPoint(s.at);
        unsigned nw = msplug_site_words(s.kind);
        for (unsigned j = 0; j < nw; j++) {
            Value *v = s.ops[j];
            if (j == 0 && s.lane >= 0) { /* a lane of a gather/scatter: 0 when masked off */
                Value *ptr = B.CreateExtractElement(v, (uint64_t)s.lane);
                v = B.CreatePtrToInt(ptr, i64);
                if (s.mask && !match_all_ones(s.mask, s.lane))
                    v = B.CreateSelect(B.CreateExtractElement(s.mask, (uint64_t)s.lane), v, ConstantInt::get(i64, 0));
            } else {
                v = v->getType()->isPointerTy() ? B.CreatePtrToInt(v, i64) : B.CreateZExtOrTrunc(v, i64);
                if (j == 0 && s.offset) v = B.CreateAdd(v, ConstantInt::get(i64, s.offset));
            }
            B.CreateStore(v, B.CreateConstInBoundsGEP1_64(i64, p, w++));
        }
        if (i + 1 == end) B.CreateStore(B.CreateAdd(n, ConstantInt::get(i64, words)), b); /* commit */
        B.CreateCall(pcLabel(C, MSPLUG_PCS_SECTION, table->getName().str(), 16 * i, comdat));
    }
}

/* __memspy_func_entry(return address) at the body's entry, __memspy_func_exit() before each of
 * the body's returns (collected before any code was emitted: the copies have none of them). */
void Instrumenter::emitEntryExit(BasicBlock *entry)
{
    BasicBlock::iterator it = entry->getFirstInsertionPt();
    while (it != entry->end() && isa<AllocaInst>(&*it)) ++it;
    IRBuilder<> B(entry, it);
    Function *ra = Intrinsic::getDeclaration(&M, Intrinsic::returnaddress);
    B.CreateCall(rt.entry, { B.CreateCall(ra, { B.getInt32(0) }) });
    for (ReturnInst *ret : returns) IRBuilder<>(ret).CreateCall(rt.exit);
}

/* A call word before CB in a two-word reservation: the caller block's descriptor with the
 * call tag, then the callee's address (the pointer's value for an indirect call); cnt as for
 * emitBlockWord. */
void Instrumenter::emitCallWord(CallBase *CB, unsigned block, GlobalVariable *blockTable, AllocaInst *cnt)
{
    Value *b, *n;
    Value *p = reserve(CB, 2, &b, &n, cnt);
    IRBuilder<> B(CB);
    B.CreateStore(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * block, MSPLUG_CALL_TAG),
                  B.CreateConstInBoundsGEP1_64(rt.i64, p, 1));
    B.CreateStore(B.CreatePtrToInt(CB->getCalledOperand(), rt.i64), B.CreateConstInBoundsGEP1_64(rt.i64, p, 2));
    B.CreateStore(B.CreateAdd(n, ConstantInt::get(rt.i64, 2)), cnt ? (Value *)cnt : b);
}

/* The counting copy's block BB (first: its first instruction; index of blockTable), a block
 * that loops to itself (memspyLoopsToItself), counted by its trip count (memspyTripCount, count.h)
 * and on the edge that leaves it the pair (the repeat word MSPLUG_REPEAT_TAG, the trip count)
 * in a reservation of two words (cnt: the count local). Returns the trip count's local. */
AllocaInst *Instrumenter::emitRepeatWord(BasicBlock *BB, Instruction *first, unsigned index, GlobalVariable *blockTable,
                                         AllocaInst *cnt)
{
    Instruction *at;
    AllocaInst *trip = memspyTripCount(BB, first, &at);
    Value *b, *n;
    Value *p = reserve(at, 2, &b, &n, cnt);
    IRBuilder<> B(at);
    B.CreateStore(taggedAddress(blockTable, MSPLUG_BLOCK_WORDS * index, MSPLUG_REPEAT_TAG),
                  B.CreateConstInBoundsGEP1_64(rt.i64, p, 1));
    B.CreateStore(B.CreateLoad(rt.i64, trip), B.CreateConstInBoundsGEP1_64(rt.i64, p, 2));
    B.CreateStore(B.CreateAdd(n, ConstantInt::get(rt.i64, 2)), cnt);
    return trip;
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

bool Instrumenter::instrumentFunction(Function &F)
{
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage() || F.hasFnAttribute(Attribute::Naked) ||
        F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation) || F.getName().startswith("__memspy"))
        return false;
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *CI = dyn_cast<CallInst>(&I))
                if (CI->isMustTailCall()) return false;
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
    if (versioned) {
        makeCopies(F, plainMap, countMap, countBlocks);
        countBounds = memspyCountBounds(countBlocks);
        /* not at -O0: the count's values would be spilled into the frame the body shares */
        if (!unoptimised) cnt = new AllocaInst(rt.i64, 0, "memspy.cnt", &*F.getEntryBlock().getFirstInsertionPt());
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
        emitCallWord(c.first, at->second, blockTable, nullptr);
        if (versioned) emitCallWord(cast<CallBase>(countMap[c.first]), at->second, blockTable, cnt);
    }
    std::vector<unsigned> repeats; /* the counting copy's blocks counted by their trip counts */
    if (versioned)                 /* the counting copy: a block word per counted block */
        for (unsigned i = 0; i < blocks.size(); i++) {
            Block copy = blocks[i];
            copy.first = cast<Instruction>(countMap[blocks[i].first]);
            if (cnt && memspyLoopsToItself(copy.first->getParent()))
                repeats.push_back(i); /* after every other word: its edges are final then */
            else
                emitBlockWord(copy, i, blockTable, cnt);
            /* the plain copy's label (no nop: nothing added to the code the timing run runs;
             * no location: no line-table row of its own for the copy's pcs) */
            IRBuilder<>(cast<Instruction>(plainMap[blocks[i].first]))
                .CreateCall(pcLabel(C, MSPLUG_PLAIN_PCS_SECTION, blockTable->getName().str(),
                                    8 * MSPLUG_BLOCK_WORDS * i, comdat, false))
                ->setDebugLoc(DebugLoc());
        }
    std::vector<AllocaInst *> locals; /* the count and the trip counts: promoted together */
    if (cnt) locals.push_back(cnt);
    for (unsigned i : repeats) {
        Instruction *first = cast<Instruction>(countMap[blocks[i].first]);
        if (memspyLoopsToItself(first->getParent())) {
            locals.push_back(emitRepeatWord(first->getParent(), first, i, blockTable, cnt));
        } else { /* another word's code changed its edges */
            Block copy = blocks[i];
            copy.first = first;
            emitBlockWord(copy, i, blockTable, cnt);
        }
    }
    if (cnt) memspyCountBoundsEmit(F, locals, rt.buf, cast<BasicBlock>(countMap[bodyEntry]), countBounds);
    if (blockTable) fillBlocks(blockTable, loopTable);
    for (auto &d : dests) {                     /* in the body only: the copies match records by position */
        bool endLabel = isa<CallInst>(d.first); /* an invoke ends its block */
        IRBuilder<>(d.first)
            .CreateCall(memspyDestAsm(C, d.second, comdat, endLabel))
            ->setDebugLoc(d.first->getDebugLoc());
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

/* The ordered atomics that become calls of the runtime's hooks: loads, stores, the atomicrmw
 * operations the hooks have, cmpxchg; 1-8 bytes of an integer, pointer or floating type; an
 * order stronger than monotonic. The others stay inline sites. */
bool Instrumenter::routable(Instruction *I)
{
    Value *ptr;
    Type *ty;
    AtomicOrdering order;
    if (auto *L = dyn_cast<LoadInst>(I)) {
        if (!L->isAtomic()) return false;
        ptr = L->getPointerOperand(), ty = L->getType(), order = L->getOrdering();
    } else if (auto *S = dyn_cast<StoreInst>(I)) {
        if (!S->isAtomic()) return false;
        ptr = S->getPointerOperand(), ty = S->getValueOperand()->getType(), order = S->getOrdering();
    } else if (auto *R = dyn_cast<AtomicRMWInst>(I)) {
        switch (R->getOperation()) {
        case AtomicRMWInst::Xchg:
        case AtomicRMWInst::Add:
        case AtomicRMWInst::Sub:
        case AtomicRMWInst::And:
        case AtomicRMWInst::Or:
        case AtomicRMWInst::Xor:
        case AtomicRMWInst::Nand: break;
        default: return false;
        }
        ptr = R->getPointerOperand(), ty = R->getValOperand()->getType(), order = R->getOrdering();
        if (!ty->isIntegerTy() && R->getOperation() != AtomicRMWInst::Xchg) return false;
    } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(I)) {
        ptr = X->getPointerOperand(), ty = X->getCompareOperand()->getType(), order = X->getSuccessOrdering();
    } else
        return false;
    if (c11_order(order) == 0 || ptr->getType()->getPointerAddressSpace() != 0) return false;
    if (!ty->isIntegerTy() && !ty->isPointerTy() && !ty->isFloatingPointTy()) return false;
    unsigned size = storeSize(DL, ty);
    return (size == 1 || size == 2 || size == 4 || size == 8) && DL.getTypeSizeInBits(ty) == 8 * size;
}

/* Replace atomic I (routable) by a call of its hook: __tsan_atomicN_load(p, order),
 * _store(p, v, order), _exchange / _fetch_OP(p, v, order), _compare_exchange_val(p, expected,
 * desired, success, failure) -> old (the pair {old, old == expected} rebuilt). */
void Instrumenter::routeAtomic(Instruction *I)
{
    IRBuilder<> B(I);
    Type *voidTy = Type::getVoidTy(C), *i32 = B.getInt32Ty();
    auto hook = [&](const char *op, Type *t, Type *ret, ArrayRef<Type *> params) {
        std::string name = "__tsan_atomic" + std::to_string(t->getIntegerBitWidth()) + "_" + op;
        FunctionCallee fc = M.getOrInsertFunction(name, FunctionType::get(ret, params, false));
        if (Function *f = dyn_cast<Function>(fc.getCallee())) f->addFnAttr(Attribute::NoUnwind);
        return fc;
    };
    auto intOf = [&](Type *ty) { return B.getIntNTy((unsigned)DL.getTypeSizeInBits(ty)); };
    auto ord = [&](AtomicOrdering o) { return B.getInt32(c11_order(o)); };
    Value *result = nullptr;
    if (auto *L = dyn_cast<LoadInst>(I)) {
        Type *t = intOf(L->getType());
        Value *p = B.CreatePointerCast(L->getPointerOperand(), rt.i8p);
        Value *v = B.CreateCall(hook("load", t, t, { rt.i8p, i32 }), { p, ord(L->getOrdering()) });
        result = B.CreateBitOrPointerCast(v, L->getType());
    } else if (auto *S = dyn_cast<StoreInst>(I)) {
        Type *t = intOf(S->getValueOperand()->getType());
        Value *p = B.CreatePointerCast(S->getPointerOperand(), rt.i8p);
        B.CreateCall(hook("store", t, voidTy, { rt.i8p, t, i32 }),
                     { p, B.CreateBitOrPointerCast(S->getValueOperand(), t), ord(S->getOrdering()) });
    } else if (auto *R = dyn_cast<AtomicRMWInst>(I)) {
        static const std::map<AtomicRMWInst::BinOp, const char *> ops = {
            { AtomicRMWInst::Xchg, "exchange" },   { AtomicRMWInst::Add, "fetch_add" },
            { AtomicRMWInst::Sub, "fetch_sub" },   { AtomicRMWInst::And, "fetch_and" },
            { AtomicRMWInst::Or, "fetch_or" },     { AtomicRMWInst::Xor, "fetch_xor" },
            { AtomicRMWInst::Nand, "fetch_nand" },
        };
        Type *t = intOf(R->getType());
        Value *p = B.CreatePointerCast(R->getPointerOperand(), rt.i8p);
        Value *v = B.CreateCall(hook(ops.at(R->getOperation()), t, t, { rt.i8p, t, i32 }),
                                { p, B.CreateBitOrPointerCast(R->getValOperand(), t), ord(R->getOrdering()) });
        result = B.CreateBitOrPointerCast(v, R->getType());
    } else if (auto *X = dyn_cast<AtomicCmpXchgInst>(I)) {
        Type *vt = X->getCompareOperand()->getType(), *t = intOf(vt);
        Value *p = B.CreatePointerCast(X->getPointerOperand(), rt.i8p);
        Value *cmp = B.CreateBitOrPointerCast(X->getCompareOperand(), t);
        Value *old = B.CreateCall(hook("compare_exchange_val", t, t, { rt.i8p, t, t, i32, i32 }),
                                  { p, cmp, B.CreateBitOrPointerCast(X->getNewValOperand(), t),
                                    ord(X->getSuccessOrdering()), ord(X->getFailureOrdering()) });
        Value *pair = B.CreateInsertValue(UndefValue::get(X->getType()), B.CreateBitOrPointerCast(old, vt), 0);
        result = B.CreateInsertValue(pair, B.CreateICmpEQ(old, cmp), 1);
    }
    if (result) I->replaceAllUsesWith(result);
    I->eraseFromParent();
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
    FunctionType *regTy = FunctionType::get(Type::getVoidTy(C), { rt.i8p, rt.i8p }, false);
    FunctionCallee reg = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_LLVM, regTy);
    FunctionCallee regBlocks = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_BLOCKS, regTy);
    FunctionCallee regPlain = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_PLAIN, regTy);
    FunctionCallee regDests = M.getOrInsertFunction(MSPLUG_SYM_REGISTER_DESTS, regTy);
    Function *ctor = Function::Create(FunctionType::get(Type::getVoidTy(C), false), GlobalValue::InternalLinkage,
                                      "__memspy_module_ctor", M);
    ctor->addFnAttr(Attribute::NoUnwind);
    IRBuilder<> B(BasicBlock::Create(C, "", ctor));
    B.CreateCall(reg, { start, stop });
    B.CreateCall(regBlocks, { bstart, bstop });
    B.CreateCall(regPlain, { pstart, pstop });
    B.CreateCall(regDests, { dstart, dstop });
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
    bool any = false;
    for (Function *F : fns) any |= instrumentFunction(*F);
    if (any) addConstructor();
    return any;
}

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
