/* memspy's LLVM pass plugin: ordered atomics as calls of the runtime's hooks __tsan_atomicN_*
 * (see memspy_llvm.cc's header). */
#include "instrument.h"

#include "llvm/IR/IRBuilder.h"

using namespace llvm;

namespace memspy_llvm
{

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

} // namespace memspy_llvm
