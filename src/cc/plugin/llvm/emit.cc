/* memspy's LLVM pass plugin: the code and pc labels emitted for a function's groups, blocks,
 * calls and entry/exit (see memspy_llvm.cc's header). */
#include "instrument.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include "count.h"

using namespace llvm;

namespace memspy_llvm
{

/* The inline asm of a site's or a block's pc: a label on a 1-byte nop and (label + 1,
 * table + byteOffset) in the pairs section. The nop carries the access's source line (the asm statement's location):
 * without it the address of the label would belong to whatever instruction code generation
 * puts next, sometimes one of another line or of line 0 (merged or hoisted code). */
InlineAsm *pcLabel(LLVMContext &C, const char *section, const std::string &table, unsigned byteOffset,
                   const std::string &comdat, bool nop)
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
DebugLoc lineFor(Instruction *I)
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
Constant *taggedAddress(GlobalVariable *table, unsigned index, uint64_t tag)
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

/* ctr[blockTable[index].id] += value (null: 1) before at: the block's counter in the thread's
 * array (ABI version 5; ctr: the counting copy's local holding the array). */
void Instrumenter::addToCounter(Instruction *at, AllocaInst *ctr, GlobalVariable *blockTable, unsigned index,
                                Value *value)
{
    IRBuilder<> B(at);
    if (!value) value = ConstantInt::get(rt.i64, 1);
    Value *idp =
        B.CreateConstInBoundsGEP2_64(blockTable->getValueType(), blockTable, 0, MSPLUG_BLOCK_WORDS * index + 2);
    Value *id = B.CreateLoad(rt.i64, idp, "memspy.id");
    Value *base = B.CreateLoad(rt.i8p, ctr, "memspy.ctr");
    Value *slot = B.CreateInBoundsGEP(rt.i64, B.CreateBitCast(base, PointerType::getUnqual(rt.i64)), id);
    B.CreateStore(B.CreateAdd(B.CreateLoad(rt.i64, slot), value), slot);
}

/* At the counting copy's entry: ctr = __memspy_counts, and the first time in the thread (null)
 * ctr = __memspy_counts_init () on a cold path. */
void Instrumenter::emitCountersEntry(AllocaInst *ctr, BasicBlock *entry)
{
    Instruction *at = &*entry->getFirstInsertionPt();
    IRBuilder<> B(at);
    Value *c0 = B.CreateLoad(rt.i8p, rt.counts, "memspy.counts");
    B.CreateStore(c0, ctr);
    MDNode *weights = MDBuilder(C).createBranchWeights(1, 1 << 20);
    Instruction *thenTerm = SplitBlockAndInsertIfThen(B.CreateIsNull(c0), at, false, weights);
    IRBuilder<> T(thenTerm);
    T.CreateStore(T.CreateCall(rt.countsInit), ctr);
}

/* The counting copy's block BB (first: its first instruction; index of blockTable), a block
 * that loops to itself (memspyLoopsToItself), counted by its trip count (memspyTripCount, count.h),
 * added to the block's counter on the edge that leaves it (ctr: the counters' local; before
 * ABI 5, a repeat word pair, MSPLUG_REPEAT_TAG, which the runtime still reads). Returns the
 * trip count's local. */
AllocaInst *Instrumenter::emitRepeatWord(BasicBlock *BB, Instruction *first, unsigned index, GlobalVariable *blockTable,
                                         AllocaInst *ctr)
{
    Instruction *at;
    AllocaInst *trip = memspyTripCount(BB, first, &at);
    addToCounter(at, ctr, blockTable, index, IRBuilder<>(at).CreateLoad(rt.i64, trip));
    return trip;
}

} // namespace memspy_llvm
