/* memspy's LLVM pass plugin: what a pointer value and a DWARF type are, for the destination
 * records (values.h). */
#include "values.h"
#include "parts.h"

#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Operator.h"

using namespace llvm;

/* t without typedefs and qualifiers. */
const DIType *memspyStripType(const DIType *t)
{
    for (int i = 0; t && i < 16; i++) {
        auto *d = dyn_cast<DIDerivedType>(t);
        if (!d || d->getTag() == dwarf::DW_TAG_pointer_type || d->getTag() == dwarf::DW_TAG_reference_type) break;
        t = d->getBaseType();
    }
    return t;
}

/* What a pointer of type t points to. */
const DIType *memspyPointee(const DIType *t)
{
    auto *d = dyn_cast_or_null<DIDerivedType>(memspyStripType(t));
    return d && (d->getTag() == dwarf::DW_TAG_pointer_type || d->getTag() == dwarf::DW_TAG_reference_type)
               ? d->getBaseType()
               : nullptr;
}

/* Whether t (typedefs and qualifiers aside) is a pointer type. */
bool memspyIsPointer(const DIType *t)
{
    auto *d = dyn_cast_or_null<DIDerivedType>(memspyStripType(t));
    return d && d->getTag() == dwarf::DW_TAG_pointer_type;
}

/* The member of composite type t (typedefs and qualifiers aside) at bit offset bits, null if
 * none starts there. */
const DIDerivedType *memspyMemberAt(const DIType *t, uint64_t bits)
{
    auto *st = dyn_cast_or_null<DICompositeType>(memspyStripType(t));
    if (!st || st->getTag() == dwarf::DW_TAG_array_type) return nullptr;
    for (DINode *e : st->getElements())
        if (auto *m = dyn_cast<DIDerivedType>(e))
            if (m->getTag() == dwarf::DW_TAG_member && m->getOffsetInBits() == bits && !m->getName().empty()) return m;
    return nullptr;
}

bool memspyIsArray(const DIType *t)
{
    auto *c = dyn_cast_or_null<DICompositeType>(memspyStripType(t));
    return c && c->getTag() == dwarf::DW_TAG_array_type;
}

/* p without bitcasts (not stripPointerCasts: a GEP of zeros is a member or an element). */
Value *memspyStripCasts(Value *p)
{
    for (int i = 0; i < 8; i++) {
        if (auto *op = dyn_cast<Operator>(p);
            op && (op->getOpcode() == Instruction::BitCast || op->getOpcode() == Instruction::AddrSpaceCast))
            p = op->getOperand(0);
        else
            break;
    }
    return p;
}

/* The variable llvm.dbg.declare or llvm.dbg.value describes v with, null if none; a local
 * in memory also by a dbg.value of its address with DW_OP_deref (what clang -O2 keeps for
 * `double *buf` whose address goes to posix_memalign). */
const DILocalVariable *memspyVarOf(Value *v)
{
    for (DbgVariableIntrinsic *d : FindDbgAddrUses(v))
        if (d->getExpression()->getNumElements() == 0) return d->getVariable();
    SmallVector<DbgValueInst *, 4> values;
    findDbgValues(values, v);
    for (DbgValueInst *d : values)
        if (d->getExpression()->getNumElements() == 0) return d->getVariable();
    if (isa<AllocaInst>(v))
        for (DbgValueInst *d : values)
            if (d->getExpression()->getNumElements() == 1 && d->getExpression()->getElement(0) == dwarf::DW_OP_deref)
                return d->getVariable();
    return nullptr;
}

/* memspyVarOf for a pointer value that typed-pointer IR may hold in several casts of one value
 * (`%s = bitcast i8* %call to %struct.soa*` is what dbg.value binds, the stores go through
 * `%call` or another cast of it): p as written, p without casts, or a cast of that. */
const DILocalVariable *memspyVarOfCasts(Value *orig, Value *p)
{
    if (const DILocalVariable *v = memspyVarOf(orig)) return v;
    if (p != orig)
        if (const DILocalVariable *v = memspyVarOf(p)) return v;
    for (User *u : p->users())
        if (isa<BitCastInst>(u) || isa<AddrSpaceCastInst>(u))
            if (const DILocalVariable *v = memspyVarOf(u)) return v;
    return nullptr;
}

/* Whether pointer p is (at an offset from: `L->top - n`) a value loaded from field f, through
 * phis. */
static bool loadedFrom(Value *p, Value *f, int depth)
{
    if (depth > 6) return false;
    p = memspyStripCasts(p);
    if (auto *gep = dyn_cast<GEPOperator>(p)) return loadedFrom(gep->getPointerOperand(), f, depth + 1);
    if (auto *phi = dyn_cast<PHINode>(p)) {
        for (Value *in : phi->incoming_values())
            if (in != p && loadedFrom(in, f, depth + 1)) return true;
        return false;
    }
    auto *ld = dyn_cast<LoadInst>(p);
    return ld && memspySameField(ld->getPointerOperand(), f);
}

/* Whether field f (a GEP of a member) is a cursor in its function: assigned a pointer computed
 * from its own value (`L->top++`, `api_incr_top(L)`), an interpreter's stack top. */
static bool cursorField(Value *f)
{
    auto *in = dyn_cast<Instruction>(memspyStripCasts(f));
    if (!in || !memspySameField(f, f)) return false;
    for (BasicBlock &bb : *in->getFunction())
        for (Instruction &I : bb) {
            auto *st = dyn_cast<StoreInst>(&I);
            if (!st || !memspySameField(st->getPointerOperand(), f)) continue;
            auto *gep = dyn_cast<GEPOperator>(memspyStripCasts(st->getValueOperand()));
            if (gep && loadedFrom(gep->getPointerOperand(), f, 0)) return true;
        }
    return false;
}

static bool computedElement(Value *p, int depth);

/* Whether local variable a (an alloca, -O0) is assigned an element's address computed with
 * a variable offset. */
static bool assignedElement(AllocaInst *a, int depth)
{
    for (User *u : a->users())
        if (auto *st = dyn_cast<StoreInst>(u); st && st->getPointerOperand() == a)
            if (computedElement(st->getValueOperand(), depth + 1)) return true;
    return false;
}

/* Whether pointer p is an element's address computed with a variable offset (`base + a`,
 * `&tb->hash[h]`), through casts, phis, constant offsets and the local variables it is read
 * from. */
static bool computedElement(Value *p, int depth)
{
    if (depth > 6) return false;
    p = memspyStripCasts(p);
    if (auto *gep = dyn_cast<GEPOperator>(p))
        return !gep->hasAllConstantIndices() || computedElement(gep->getPointerOperand(), depth + 1);
    if (auto *phi = dyn_cast<PHINode>(p)) {
        for (Value *in : phi->incoming_values())
            if (in != p && computedElement(in, depth + 1)) return true;
        return false;
    }
    if (auto *ld = dyn_cast<LoadInst>(p)) {
        if (auto *a = dyn_cast<AllocaInst>(memspyStripCasts(ld->getPointerOperand()))) return assignedElement(a, depth);
        return cursorField(ld->getPointerOperand()); /* a slot of a stack top (`L->top`) */
    }
    return false;
}

/* Whether pointer p is at an offset from a value loaded from a stack top (`L->top - n`),
 * through phis. */
static bool stackTopSlot(Value *p, int depth)
{
    if (depth > 6) return false;
    p = memspyStripCasts(p);
    if (auto *gep = dyn_cast<GEPOperator>(p)) return stackTopSlot(gep->getPointerOperand(), depth + 1);
    if (auto *phi = dyn_cast<PHINode>(p)) {
        for (Value *in : phi->incoming_values())
            if (in != p && stackTopSlot(in, depth + 1)) return true;
        return false;
    }
    auto *ld = dyn_cast<LoadInst>(p);
    return ld && !isa<AllocaInst>(memspyStripCasts(ld->getPointerOperand())) && cursorField(ld->getPointerOperand());
}

/* Whether a store to p puts the value in a slot that no variable or field names: memory
 * through a cursor, a local pointer variable computed by pointer arithmetic (`ra->gc = t` with
 * ra = base + a; `*list = ts` with list = &tb->hash[h]), or a field the function moves as a
 * stack top (`setobj(L->top, t); L->top++`), not an element named by its array (`m->rows[i]`). */
bool memspySlotStore(Value *p)
{
    Value *q = memspyStripCasts(p);
    if (stackTopSlot(q, 0)) return true;
    for (int d = 0; d < 8; d++) { /* the members of the object the cursor points to */
        auto *gep = dyn_cast<GEPOperator>(q);
        if (!gep || !gep->hasAllConstantIndices()) break;
        q = memspyStripCasts(gep->getPointerOperand());
    }
    if (auto *ld = dyn_cast<LoadInst>(q)) { /* -O0: the cursor read from its variable */
        auto *a = dyn_cast<AllocaInst>(memspyStripCasts(ld->getPointerOperand()));
        return a && memspyVarOf(a) && assignedElement(a, 0);
    }
    const DILocalVariable *v = memspyVarOf(q);
    return v && !v->isParameter() && computedElement(q, 0);
}

/* The index of the function's parameter that pointer p is: the argument itself, or at -O0 a
 * load of the slot the argument is spilled to; -1 if none. */
int memspyParamIndex(Value *p)
{
    p = memspyStripCasts(p);
    if (auto *a = dyn_cast<Argument>(p)) return (int)a->getArgNo();
    auto *ld = dyn_cast<LoadInst>(p);
    auto *slot = ld ? dyn_cast<AllocaInst>(memspyStripCasts(ld->getPointerOperand())) : nullptr;
    int index = -1;
    if (!slot) return -1;
    for (User *u : slot->users())
        if (auto *st = dyn_cast<StoreInst>(u)) {
            auto *a = dyn_cast<Argument>(memspyStripCasts(st->getValueOperand()));
            if (!a || (index >= 0 && index != (int)a->getArgNo())) return -1; /* assigned otherwise too */
            index = (int)a->getArgNo();
        }
    return index;
}

/* The parameter variable of pointer p (memspyParamIndex's), null if none. */
const DILocalVariable *memspyParamVar(Value *p)
{
    p = memspyStripCasts(p);
    if (auto *ld = dyn_cast<LoadInst>(p)) return memspyVarOf(memspyStripCasts(ld->getPointerOperand()));
    return memspyVarOf(p);
}