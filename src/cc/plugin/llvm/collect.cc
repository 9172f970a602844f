/* memspy's LLVM pass plugin: the sites of a function's accesses, their groups and its counted
 * blocks (see memspy_llvm.cc's header). */
#include "instrument.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"

#include <algorithm>

using namespace llvm;

namespace memspy_llvm
{

/* C11's memory order (relaxed 0 ... seq_cst 5) of an LLVM atomic ordering. */
int c11_order(AtomicOrdering o)
{
    switch (o) {
    case AtomicOrdering::Acquire: return 2;
    case AtomicOrdering::Release: return 3;
    case AtomicOrdering::AcquireRelease: return 4;
    case AtomicOrdering::SequentiallyConsistent: return 5;
    default: return 0; /* unordered, monotonic */
    }
}

/* Store size of ty in bytes, 0 if it is not a fixed size that fits a site. */
unsigned storeSize(const DataLayout &DL, Type *ty)
{
    if (isa<ScalableVectorType>(ty) || !ty->isSized()) return 0;
    uint64_t s = DL.getTypeStoreSize(ty).getFixedSize();
    return s > 0 && s <= 0x7fffffffu ? (unsigned)s : 0;
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

} // namespace memspy_llvm
