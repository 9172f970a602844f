/* memspy's LLVM pass plugin: an allocation's pointer as a part of something else (parts.h):
 * a member of the aggregate the function returns by value (clang -O0 keeps `buffer` in memory
 * and returns it by loading it whole, or builds it in the sret argument), an element of a
 * container it is passed to by reference (`v.push_back(new T)`) or whose element accessor it
 * is stored through (`m[k] = new T`). */
#include "parts.h"
#include "values.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

#include <algorithm>
#include <cstdlib>
#include <string>

using namespace llvm;

namespace
{

/* v without bitcasts. */
Value *uncast(Value *v)
{
    for (int i = 0; i < 8; i++) {
        auto *op = dyn_cast<Operator>(v);
        if (!op || op->getOpcode() != Instruction::BitCast) break;
        v = op->getOperand(0);
    }
    return v;
}

/* Whether the function returns local a by value: a load of it (any type: clang coerces a small
 * struct to `{ i8*, i64 }`) that is the return value, or a copy of it into the sret argument. */
bool returnedLocal(AllocaInst *a)
{
    SmallVector<Value *, 8> work = { a };
    for (unsigned i = 0; i < work.size() && i < 16; i++)
        for (User *u : work[i]->users()) {
            if (isa<BitCastInst>(u)) {
                work.push_back(u);
            } else if (auto *ld = dyn_cast<LoadInst>(u)) {
                for (User *r : ld->users())
                    if (isa<ReturnInst>(r)) return true;
            } else if (auto *mc = dyn_cast<MemCpyInst>(u)) {
                auto *to = dyn_cast<Argument>(uncast(mc->getDest()));
                if (uncast(mc->getSource()) == a && to && to->hasStructRetAttr()) return true;
            }
        }
    return false;
}

} // namespace

Value *memspyReturnedAggregate(Value *p, const DataLayout &DL, uint64_t *bits)
{
    if (!p->getType()->isPointerTy()) return nullptr;
    APInt off(DL.getIndexTypeSizeInBits(p->getType()), 0);
    Value *base = p->stripAndAccumulateConstantOffsets(DL, off, true);
    if (off.isNegative()) return nullptr;
    *bits = off.getZExtValue() * 8;
    if (auto *arg = dyn_cast<Argument>(base)) return arg->hasStructRetAttr() ? arg : nullptr;
    auto *a = dyn_cast<AllocaInst>(base);
    return a && a->getAllocatedType()->isAggregateType() && returnedLocal(a) ? a : nullptr;
}

bool memspyReturnedInsert(InsertValueInst *iv, const DataLayout &DL, uint64_t *bits)
{
    uint64_t off = 0;
    Type *t = iv->getAggregateOperand()->getType();
    for (unsigned idx : iv->indices()) {
        if (auto *st = dyn_cast<StructType>(t)) {
            off += DL.getStructLayout(st)->getElementOffsetInBits(idx);
            t = st->getElementType(idx);
        } else if (auto *at = dyn_cast<ArrayType>(t)) {
            off += idx * DL.getTypeAllocSizeInBits(at->getElementType());
            t = at->getElementType();
        } else {
            return false;
        }
    }
    *bits = off;
    Value *v = iv;
    for (int i = 0; i < 16; i++) {
        InsertValueInst *next = nullptr;
        for (User *u : v->users()) {
            if (isa<ReturnInst>(u)) return true;
            if (auto *n = dyn_cast<InsertValueInst>(u); n && n->getAggregateOperand() == v) next = n;
        }
        if (!next) return false;
        v = next;
    }
    return false;
}

bool memspyHoldsPointer(Type *t, int depth)
{
    auto *st = dyn_cast_or_null<StructType>(t);
    if (!st || depth > 8) return false;
    for (Type *e : st->elements())
        if (e->isPointerTy() || memspyHoldsPointer(e, depth + 1)) return true;
    return false;
}

namespace
{

/* The call of a member function (not a constructor nor a destructor) that takes addr as an
 * argument other than its first; null if none. *assign: an assignment operator. */
CallBase *methodTaking(Value *addr, bool *assign)
{
    for (User *u : addr->users()) {
        auto *call = dyn_cast<CallBase>(u);
        auto *f = call ? dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases()) : nullptr;
        if (!f || f->isIntrinsic() || call->arg_size() < 2 || call->getArgOperand(0) == addr) continue;
        ItaniumPartialDemangler d;
        if (!f->getName().startswith("_Z") || d.partialDemangle(f->getName().str().c_str()) || d.isCtorOrDtor())
            continue;
        size_t n = 0;
        char *base = d.getFunctionBaseName(nullptr, &n);
        *assign = base && std::string(base) == "operator=";
        std::free(base);
        for (unsigned i = 1; i < call->arg_size(); i++)
            if (call->getArgOperand(i) == addr) return call;
    }
    return nullptr;
}

/* Whether call calls std::move. */
bool stdMove(CallBase *call)
{
    auto *f = dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases());
    ItaniumPartialDemangler d;
    if (!f || !f->getName().startswith("_ZSt4move") || d.partialDemangle(f->getName().str().c_str())) return false;
    return d.isFunction();
}

} // namespace

CallBase *memspyTemporaryPassed(AllocaInst *tmp, bool *assign)
{
    SmallVector<Value *, 4> addrs = { tmp };
    for (User *u : tmp->users())
        if (isa<BitCastInst>(u)) addrs.push_back(u);
    for (Value *addr : addrs)
        if (CallBase *call = methodTaking(addr, assign)) return call;
    return nullptr;
}

CallBase *memspyMovedInto(AllocaInst *var, bool *assign)
{
    SmallVector<Value *, 4> addrs = { var };
    for (User *u : var->users())
        if (isa<BitCastInst>(u)) addrs.push_back(u);
    for (Value *addr : addrs)
        for (User *u : addr->users())
            if (auto *mv = dyn_cast<CallBase>(u);
                mv && mv->arg_size() == 1 && mv->getArgOperand(0) == addr && stdMove(mv))
                if (CallBase *call = methodTaking(mv, assign)) return call;
    return nullptr;
}

Value *memspyAccessedContainer(Value *p)
{
    auto *call = dyn_cast<CallBase>(p);
    auto *f = call ? dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases()) : nullptr;
    if (!f || f->isIntrinsic() || call->arg_size() < 1 || !call->getType()->isPointerTy()) return nullptr;
    ItaniumPartialDemangler d;
    if (!f->getName().startswith("_Z") || d.partialDemangle(f->getName().str().c_str()) || d.isCtorOrDtor())
        return nullptr;
    size_t n = 0;
    char *base = d.getFunctionBaseName(nullptr, &n);
    bool accessor = false;
    for (const char *a : { "operator[]", "at", "front", "back" }) accessor |= base && std::string(base) == a;
    std::free(base);
    return accessor ? call->getArgOperand(0) : nullptr;
}

bool memspyReturnsReference(const Function *f)
{
    const DISubprogram *sp = f ? f->getSubprogram() : nullptr;
    DITypeRefArray types = sp && sp->getType() ? sp->getType()->getTypeArray() : DITypeRefArray();
    auto *ret = types.size() > 0 ? dyn_cast_or_null<DIDerivedType>(types[0]) : nullptr;
    return ret &&
           (ret->getTag() == dwarf::DW_TAG_reference_type || ret->getTag() == dwarf::DW_TAG_rvalue_reference_type);
}

bool memspySystemVar(const DILocalVariable *v)
{
    const DIFile *f = v ? v->getFile() : nullptr;
    if (!f) return false;
    std::string path = (f->getFilename().startswith("/") ? "" : f->getDirectory().str() + "/") + f->getFilename().str();
    return path.find("/include/c++/") != std::string::npos || StringRef(path).startswith("/usr/include/");
}

const DIDerivedType *memspyMemberHolding(const DIType *t, uint64_t bits)
{
    auto *st = dyn_cast_or_null<DICompositeType>(memspyStripType(t));
    if (!st || st->getTag() == dwarf::DW_TAG_array_type) return nullptr;
    for (DINode *e : st->getElements())
        if (auto *m = dyn_cast<DIDerivedType>(e))
            if (m->getTag() == dwarf::DW_TAG_member && !m->getName().empty() && m->getOffsetInBits() <= bits &&
                bits < m->getOffsetInBits() + m->getSizeInBits())
                return m;
    return nullptr;
}

bool memspySameField(Value *p, Value *q)
{
    auto *a = dyn_cast<GEPOperator>(memspyStripCasts(p)), *b = dyn_cast<GEPOperator>(memspyStripCasts(q));
    if (!a || !b || !a->hasAllConstantIndices() || !b->hasAllConstantIndices() || a->getNumIndices() < 2 ||
        a->getSourceElementType() != b->getSourceElementType() || a->getNumIndices() != b->getNumIndices())
        return false;
    for (unsigned i = 1; i < a->getNumOperands(); i++) {
        auto *x = dyn_cast<ConstantInt>(a->getOperand(i)), *y = dyn_cast<ConstantInt>(b->getOperand(i));
        if (!x || !y || x->getSExtValue() != y->getSExtValue()) return false;
    }
    return true;
}

bool memspyUnionView(const DIType *t, const DIDerivedType *m)
{
    auto *c = dyn_cast_or_null<DICompositeType>(memspyStripType(t));
    auto *b = dyn_cast_or_null<DICompositeType>(memspyStripType(m->getBaseType()));
    return (c && c->getTag() == dwarf::DW_TAG_union_type) || (b && b->getTag() == dwarf::DW_TAG_union_type);
}

bool memspySelfStore(Value *p, const std::vector<Value *> &work, const std::vector<Value *> &held)
{
    Value *base = p->stripInBoundsConstantOffsets();
    if (std::find(work.begin(), work.end(), base) != work.end()) return true;
    auto *ld = dyn_cast<LoadInst>(base);
    return ld && std::find(held.begin(), held.end(), ld->getPointerOperand()->stripPointerCasts()) != held.end();
}

bool memspyListHead(Value *p, Function *f, const std::vector<Value *> &work, const std::vector<Value *> &held)
{
    for (Instruction &I : instructions(*f)) {
        auto *st = dyn_cast<StoreInst>(&I);
        auto *ld = st ? dyn_cast<LoadInst>(memspyStripCasts(st->getValueOperand())) : nullptr;
        if (!ld || !memspySelfStore(memspyStripCasts(st->getPointerOperand()), work, held)) continue;
        Value *q = memspyStripCasts(ld->getPointerOperand());
        if (q == p || memspySameField(q, p)) return true;
    }
    return false;
}

bool memspyReferenceArgument(CallBase *call, AllocaInst *a)
{
    auto *f = dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases());
    const DISubprogram *sp = f ? f->getSubprogram() : nullptr;
    DITypeRefArray types = sp && sp->getType() ? sp->getType()->getTypeArray() : DITypeRefArray();
    for (unsigned i = 1; i < call->arg_size() && i + 1 < types.size(); i++) {
        auto *t = dyn_cast_or_null<DIDerivedType>(types[i + 1]);
        if (memspyStripCasts(call->getArgOperand(i)) == a && t &&
            (t->getTag() == dwarf::DW_TAG_reference_type || t->getTag() == dwarf::DW_TAG_rvalue_reference_type))
            return true;
    }
    return false;
}
