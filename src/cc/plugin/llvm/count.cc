/* memspy's LLVM pass plugin: the counting copy's count register (see count.h). */
#include "count.h"

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
