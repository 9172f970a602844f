/* memspy's LLVM pass plugin: the counting copy's count register (see count.h). */
#include "count.h"

#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

#include <algorithm>

using namespace llvm;

/* Whether the count must be in memory at I: a call that may reach the runtime or instrumented
 * code (not inline asm, not an intrinsic other than a memory copy or set, which may become a
 * call of libc's, interposed by the runtime), a return or a resume. */
static bool countBound(Instruction &I)
{
    if (isa<ReturnInst>(&I) || isa<ResumeInst>(&I)) return true;
    auto *CB = dyn_cast<CallBase>(&I);
    if (!CB || CB->isInlineAsm()) return false;
    return !isa<IntrinsicInst>(CB) || isa<MemIntrinsic>(CB);
}

std::vector<Instruction *> memspyCountBounds(const std::vector<BasicBlock *> &copy)
{
    std::vector<Instruction *> out;
    for (BasicBlock *BB : copy)
        for (Instruction &I : *BB)
            if (countBound(I)) out.push_back(&I);
    return out;
}

/* The buffer's count in memory: &buf[0]. */
static Value *countWord(IRBuilder<> &B, GlobalVariable *buf)
{
    return B.CreateConstInBoundsGEP2_64(buf->getValueType(), buf, 0, 0);
}

/* cnt = buf[0] at B's insertion point. */
static void loadCount(IRBuilder<> &B, AllocaInst *cnt, GlobalVariable *buf)
{
    B.CreateStore(B.CreateLoad(cnt->getAllocatedType(), countWord(B, buf), "memspy.n"), cnt);
}

void memspyCountBoundsEmit(Function &F, const std::vector<AllocaInst *> &locals, GlobalVariable *buf, BasicBlock *entry,
                           const std::vector<Instruction *> &bounds)
{
    AllocaInst *cnt = locals[0];
    IRBuilder<> B(&*entry->getFirstInsertionPt());
    loadCount(B, cnt, buf);
    std::vector<BasicBlock *> pads; /* landing pads: entered from a callee that may have appended */
    for (Instruction *I : bounds) {
        B.SetInsertPoint(I);
        B.CreateStore(B.CreateLoad(cnt->getAllocatedType(), cnt), countWord(B, buf));
        if (auto *II = dyn_cast<InvokeInst>(I)) {
            BasicBlock *next = SplitEdge(II->getParent(), II->getNormalDest());
            B.SetInsertPoint(&*next->getFirstInsertionPt());
            loadCount(B, cnt, buf);
            pads.push_back(II->getUnwindDest());
        } else if (isa<CallInst>(I) && I->getNextNode()) {
            B.SetInsertPoint(I->getNextNode());
            loadCount(B, cnt, buf);
        }
    }
    std::sort(pads.begin(), pads.end());
    pads.erase(std::unique(pads.begin(), pads.end()), pads.end());
    for (BasicBlock *pad : pads) { /* only unwind edges enter a landing pad */
        B.SetInsertPoint(&*pad->getFirstInsertionPt());
        loadCount(B, cnt, buf);
    }
    DominatorTree DT(F);
    PromoteMemToReg(locals, DT);
}

void memspyPromoteLocals(Function &F, const std::vector<AllocaInst *> &locals)
{
    DominatorTree DT(F);
    PromoteMemToReg(locals, DT);
}

bool memspyLoopsToItself(BasicBlock *BB)
{
    auto *br = dyn_cast<BranchInst>(BB->getTerminator());
    if (!br || !br->isConditional() || BB->isEHPad()) return false;
    if ((br->getSuccessor(0) == BB) == (br->getSuccessor(1) == BB)) return false;
    for (Instruction &I : *BB)
        if (countBound(I)) return false;
    for (BasicBlock *P : predecessors(BB))
        if (P != BB && !isa<BranchInst>(P->getTerminator())) return false;
    return true;
}

AllocaInst *memspyTripCount(BasicBlock *BB, Instruction *first, Instruction **exit)
{
    Function &F = *BB->getParent();
    Type *i64 = Type::getInt64Ty(F.getContext());
    AllocaInst *trip = new AllocaInst(i64, 0, "memspy.trip", &*F.getEntryBlock().getFirstInsertionPt());
    std::vector<BasicBlock *> preds;
    for (BasicBlock *P : predecessors(BB))
        if (P != BB && std::find(preds.begin(), preds.end(), P) == preds.end()) preds.push_back(P);
    for (BasicBlock *P : preds) {
        BasicBlock *at = P->getSingleSuccessor() ? P : SplitEdge(P, BB);
        IRBuilder<>(at->getTerminator()).CreateStore(ConstantInt::get(i64, 0), trip);
    }
    IRBuilder<> B(first);
    B.CreateStore(B.CreateAdd(B.CreateLoad(i64, trip), ConstantInt::get(i64, 1)), trip);
    auto *br = cast<BranchInst>(BB->getTerminator());
    *exit = SplitEdge(BB, br->getSuccessor(br->getSuccessor(0) == BB ? 1 : 0))->getTerminator();
    return trip;
}
