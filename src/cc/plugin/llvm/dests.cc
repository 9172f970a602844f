/* memspy's LLVM pass plugin: allocation destinations, the same records as the GCC plugin's
 * (src/rt/msplug_abi.h, MSPLUG_DESTS_SECTION; docs/plugin.md "Allocation destinations").
 *
 * For each call of a function returning a pointer (intrinsics excepted) this follows the
 * result through casts and phis: the variables llvm.dbg.value binds it to, the memory it is
 * stored in (an alloca or global named by its debug information, a member found by its
 * offset in the DWARF type, an element), whether it reaches a return, and which inline
 * levels (the call's DILocation and its inlinedAt chain) use it otherwise. */
#include "dests.h"
#include "parts.h"
#include "typetext.h"
#include "values.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"

#include <map>
#include <tuple>

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"

using namespace llvm;

namespace
{

struct Level {
    unsigned line = 0, col = 0;
    const DISubprogram *fn = nullptr;
    char kind = '-'; /* '-', 'v', 'm', 'o' as in msplug_abi.h */
    bool decl = false, used = false;
    bool autov = false; /* kind 'v': an automatic variable or a parameter, not a global ("l") */
    bool local = false; /* a local variable (or a volatile place), which a store into a named place outranks */
    bool slot = false;  /* also stored in a slot no variable or field names (msplug_abi.h's "s") */
    int outp = -1;      /* the pointer parameter the value is stored through (msplug_abi.h's "pN") */
    bool ret = false;   /* path: a part of the aggregate the function returns by value ("r") */
    bool part = false;  /* path: a member of a variable SROA split (dbg.value of a fragment) */
    std::string type, path;
};

/* Text cut to what a record holds (MSPLUG_DEST_TEXT_MAX, as the GCC plugin's). */
std::string capped(const std::string &t)
{
    return t.size() < MSPLUG_DEST_TEXT_MAX ? t : t.substr(0, MSPLUG_DEST_TEXT_MAX - 1);
}

Function *calleeOf(CallBase *call);
bool isMethod(const Function *f);

class Dests
{
  public:
    Dests(const DataLayout &dl) : DL(dl) {}
    std::string record(CallBase *call, bool &any);
    std::string argRecord(CallBase *call, unsigned i);
    void early(CallBase *call);

  private:
    const DataLayout &DL;
    std::vector<Level> lv;
    bool object = false; /* the levels name the object the call works on (a C++ member function) */

    int levelOf(const DISubprogram *sp)
    {
        for (unsigned k = 0; sp && k < lv.size(); k++)
            if (lv[k].fn == sp) return (int)k;
        return -1;
    }
    int levelOf(const Instruction *I)
    {
        const DILocation *L = I->getDebugLoc().get();
        return L ? levelOf(L->getScope()->getSubprogram()) : -1;
    }
    bool objPath(Value *p, std::string &path, const DIType *&ty, Value *&root, int depth = 0);
    bool untypedSlot(Value *p);
    void note(int k, char kind, const std::string &path, const DIType *ty, unsigned declLine, bool local = false,
              bool autoVar = false);
    void noteVariable(Value *root, const Instruction *at, char kind);
    void noteArgument(Value *arg, const Instruction *call, char kindOfVar);
    bool levels(CallBase *call, bool &returned);
    void makeLevels(const DILocation *L);
    bool follow(Value *v);
    void noteOutParam(Value *param, int index);
    void noteReturnedPart(Value *agg, uint64_t bits);
    bool noteContainer(AllocaInst *tmp, const Instruction *at);
    bool noteContainerStore(StoreInst *st);
    void noteStructDest(CallBase *call, int sret);
    std::string text(CallBase *call, bool returned, int arg);
};

/* The object at address p: its path ("s", "s.x", "p.next", "rows[]") and its DWARF type;
 * root: the declared variable (alloca or global) the path starts at when it reaches p through
 * members and elements only (not through a pointer), else null. */
bool Dests::objPath(Value *p, std::string &path, const DIType *&ty, Value *&root, int depth)
{
    root = nullptr;
    if (depth > 8) return false;
    Value *orig = p;
    p = memspyStripCasts(p);
    if (isa<GlobalVariable>(p) || isa<AllocaInst>(p)) root = p;
    if (auto *g = dyn_cast<GlobalVariable>(p)) {
        SmallVector<DIGlobalVariableExpression *, 1> gves;
        g->getDebugInfo(gves);
        path = gves.empty() ? g->getName().str() : gves[0]->getVariable()->getName().str();
        ty = gves.empty() ? nullptr : gves[0]->getVariable()->getType();
        return !path.empty();
    }
    if (isa<AllocaInst>(p)) {
        const DILocalVariable *v = memspyVarOf(p);
        if (!v || v->getName().empty()) return false;
        path = v->getName().str();
        ty = v->getType();
        return true;
    }
    if (auto *ld = dyn_cast<LoadInst>(p)) { /* *q: the pointer variable's pointee */
        if (!objPath(ld->getPointerOperand(), path, ty, root, depth + 1)) return false;
        ty = memspyPointee(ty);
        root = nullptr;
        return true;
    }
    if (auto *gep = dyn_cast<GEPOperator>(p)) {
        if (!objPath(gep->getPointerOperand(), path, ty, root, depth + 1)) return false;
        APInt off(DL.getIndexTypeSizeInBits(gep->getType()), 0);
        if (gep->accumulateConstantOffset(DL, off))
            if (const DIDerivedType *m = memspyMemberAt(ty, off.getZExtValue() * 8)) {
                if (!memspyUnionView(ty, m)) path += "." + m->getName().str();
                ty = m->getBaseType();
                return true;
            }
        path += "[]"; /* an element, or a place no member starts at */
        ty = nullptr;
        return true;
    }
    if (Value *obj = memspyAccessedContainer(p); obj && isMethod(calleeOf(cast<CallBase>(p)))) { /* m[k] */
        bool found = objPath(obj, path, ty, root, depth + 1);
        path += "[]", ty = nullptr, root = nullptr;
        return found;
    }
    if (const DILocalVariable *v = memspyVarOfCasts(orig, p); v && !memspySystemVar(v)) { /* a pointer in a register */
        path = v->getName().str();
        ty = memspyPointee(v->getType());
        return !path.empty();
    }
    return false;
}

/* At the function's own level (the outermost), that the value is stored through its pointer
 * parameter number index (`*coder_ptr = v`): the caller's argument names it; it wins over a
 * local that only carried the value there. */
void Dests::noteOutParam(Value *param, int index)
{
    const DILocalVariable *var = memspyParamVar(param);
    if (!var || var->getName().empty() || lv.empty()) return;
    Level &l = lv.back();
    l.kind = 'm';
    l.decl = l.autov = false;
    l.outp = index;
    l.path = var->getName().str();
    l.type = memspyTypeText(memspyPointee(var->getType()));
}

/* Whether slot p is declared `void *` or `char *` (xz's `thr->in`, thr = &coder->threads[i]):
 * no type names the block there, its path does. */
bool Dests::untypedSlot(Value *p)
{
    std::string path;
    const DIType *ty = nullptr;
    Value *root = nullptr;
    if (!objPath(p, path, ty, root) || !memspyIsPointer(ty)) return false;
    auto *b = dyn_cast_or_null<DIBasicType>(memspyStripType(memspyPointee(ty)));
    return !memspyPointee(ty) ||
           (b && (b->getEncoding() == dwarf::DW_ATE_signed_char || b->getEncoding() == dwarf::DW_ATE_unsigned_char));
}

/* The rank of what a level names, as the GCC plugin's: 0 nothing, 1 a local variable or a
 * member of one (or a volatile place: `char *volatile sink` only keeps the block alive), 2 a
 * named place (a field, an element, a container, a global). */
int rankOf(char kind, bool local) { return kind == '-' ? 0 : local ? 1 : 2; }

/* At level k, what the value is stored in or bound to (local: a local variable or a volatile
 * place), where it
 * ranks above what the level names (a store into a named place wins over the local that held
 * the value on the way: `T *p = new T; v.push_back(p)` is v[]), or ranks as high and is a
 * variable declared on the level's line, which wins as in the source, as in the GCC plugin; a
 * declared object that holds the value ('o') never does: the member noted before says more. */
void Dests::note(int k, char kind, const std::string &path, const DIType *ty, unsigned declLine, bool local,
                 bool autoVar)
{
    if (k < 0 || path.empty()) return;
    Level &l = lv[k];
    bool decl = kind != 'm' && declLine && declLine == l.line;
    if (kind == 'm' && path.find('.') == std::string::npos && path.find("[]") == std::string::npos)
        local = true; /* `*obj = v` (a union's member left out): no member or element names it */
    int r = rankOf(kind, local), was = rankOf(l.kind, l.local);
    if (l.outp >= 0 || l.ret || r < was || (r == was && l.kind != '-' && !(decl && !l.decl && kind != 'o'))) return;
    l.kind = kind;
    l.decl = decl;
    l.autov = kind == 'v' && autoVar;
    l.local = local;
    l.path = path;
    l.type = memspyTypeText(ty);
}

/* The declared variable root (an alloca or a global), at its own level (a global: at's), as
 * kind: 'v' the value is stored in it, 'o' in one of its members or built by its constructor. */
void Dests::noteVariable(Value *root, const Instruction *at, char kind)
{
    if (auto *g = dyn_cast<GlobalVariable>(root)) {
        SmallVector<DIGlobalVariableExpression *, 1> gves;
        g->getDebugInfo(gves);
        if (gves.empty()) return;
        const DIGlobalVariable *var = gves[0]->getVariable();
        note(levelOf(at), kind, var->getName().str(), var->getType(), var->getLine());
    } else if (const DILocalVariable *var = memspyVarOf(root)) {
        note(levelOf(var->getScope()->getSubprogram()), kind, var->getName().str(), var->getType(), var->getLine(),
             true, true);
    }
}

/* A call that puts its allocation where its pointer argument arg points (posix_memalign's
 * first argument: kindOfVar 'v') or works on the object there (a C++ constructor or member
 * function: 'o'): a declared variable at its level, a member (`this->cells_`) at the call's
 * and, of a declared object (`g.edges`), at the object's too. */
void Dests::noteArgument(Value *arg, const Instruction *call, char kindOfVar)
{
    std::string path;
    const DIType *ty = nullptr;
    Value *root = nullptr;
    if (!objPath(arg, path, ty, root)) return;
    if (root && memspyStripCasts(arg) == root) {
        noteVariable(root, call, kindOfVar);
    } else if (root || path.find('.') != std::string::npos) {
        note(levelOf(call), 'm', path, ty, 0);
        const DILocalVariable *var = root ? memspyVarOf(root) : nullptr;
        if (var) note(levelOf(var->getScope()->getSubprogram()), 'm', path, ty, 0);
    }
}

/* Follow v through casts and phis; returns whether it reaches a return. */
bool Dests::follow(Value *start)
{
    std::vector<Value *> work = { start };
    std::vector<Value *> held; /* the locals in memory it is kept in */
    bool returned = false;
    for (unsigned i = 0; i < work.size() && i < 16; i++) {
        Value *v = work[i];
        SmallVector<DbgValueInst *, 4> values;
        findDbgValues(values, v);
        for (DbgValueInst *d : values) {
            const DILocalVariable *var = d->getVariable();
            int k = levelOf(var->getScope()->getSubprogram());
            auto frag = d->getExpression()->getFragmentInfo();
            if (d->getExpression()->getNumElements() == 0) {
                note(k, 'v', var->getName().str(), var->getType(), var->getLine(), true, true);
            } else if (frag && d->getExpression()->getNumElements() == 3) { /* a member of a split aggregate */
                if (const DIDerivedType *m = memspyMemberAt(var->getType(), frag->OffsetInBits)) {
                    note(k, 'm', var->getName().str() + "." + m->getName().str(), m->getBaseType(), 0, true);
                    if (k >= 0 && lv[k].path == var->getName().str() + "." + m->getName().str()) lv[k].part = true;
                }
                /* the declared object (a std::vector's storage: a part of its base class) */
                note(k, 'o', var->getName().str(), var->getType(), var->getLine(), true);
            }
        }
        for (User *u : v->users()) {
            auto *I = dyn_cast<Instruction>(u);
            if (!I || isa<DbgInfoIntrinsic>(I)) continue;
            if (isa<ReturnInst>(I)) {
                returned = true;
            } else if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) || isa<PHINode>(I) || isa<SelectInst>(I) ||
                       (isa<GetElementPtrInst>(I) && cast<GetElementPtrInst>(I)->hasAllZeroIndices() &&
                        cast<GetElementPtrInst>(I)->getPointerOperand() == v)) { /* a union's member (gco2t) */
                if (std::find(work.begin(), work.end(), I) == work.end()) work.push_back(I);
            } else if (auto *st = dyn_cast<StoreInst>(I); st && st->getValueOperand() == v) {
                std::string path;
                const DIType *ty = nullptr;
                Value *root = nullptr;
                Value *p = memspyStripCasts(st->getPointerOperand());
                if (memspySelfStore(p, work, held)) { /* r->next = r: its own address names nothing */
                    int k = levelOf(I);
                    if (k >= 0) lv[k].used = true;
                    continue;
                }
                if (auto *a = dyn_cast<AllocaInst>(p)) /* a local in memory (-O0): its loads are copies */
                    held.push_back(a);
                if (auto *a = dyn_cast<AllocaInst>(p))
                    for (User *au : a->users())
                        if (isa<LoadInst>(au) && work.size() < 16 &&
                            std::find(work.begin(), work.end(), au) == work.end())
                            work.push_back(au);
                if (int pi = memspyParamIndex(p); pi >= 0 && levelOf(I) == (int)lv.size() - 1) {
                    noteOutParam(p, pi); /* *param = v: the caller's argument names it */
                    continue;
                }
                uint64_t bits = 0; /* carried out in the aggregate the function returns by value */
                Value *agg = levelOf(I) == (int)lv.size() - 1
                                 ? memspyReturnedAggregate(st->getPointerOperand(), DL, &bits)
                                 : nullptr;
                if (agg) {
                    noteReturnedPart(agg, bits);
                    returned = true;
                    continue;
                }
                if (auto *a = dyn_cast<AllocaInst>(p); a && noteContainer(a, I)) continue; /* v.push_back(new T) */
                if (levelOf(I) < 0 && noteContainerStore(st)) continue;                    /* push_back inlined */
                if (memspySlotStore(p) &&
                    !untypedSlot(p)) { /* named by the value's type, where nothing else names it */
                    int k = levelOf(I);
                    if (k >= 0) lv[k].slot = true;
                    continue;
                }
                if (!isa<AllocaInst>(p) && memspyListHead(p, I->getFunction(), work, held)) continue; /* g->allgc = o */
                if (!objPath(p, path, ty, root)) continue;
                /* a pointer stored at the start of a struct is its first member (`q.buffer = ...`
                 * stores to q itself once the zero offset is folded) */
                bool member = false;
                for (int d = 0; d < 8; d++) {
                    const DIDerivedType *m = memspyMemberAt(ty, 0);
                    if (!m) break;
                    if (!memspyUnionView(ty, m)) path += "." + m->getName().str();
                    ty = m->getBaseType();
                    member = true;
                }
                /* `char *volatile sink = p` keeps it alive, a local struct's member carries it: both
                 * rank as a local */
                bool vol = st->isVolatile() || isa_and_nonnull<AllocaInst>(root);
                if (memspyIsArray(ty)) { /* its first element */
                    note(levelOf(I), 'm', path + "[]", nullptr, 0, vol);
                } else if (member) {
                    note(levelOf(I), 'm', path, ty, 0, vol);
                    if (root) noteVariable(root, I, 'o'); /* the declared object, at its own level */
                } else if (isa<AllocaInst>(p)) {
                    const DILocalVariable *var = memspyVarOf(p);
                    note(levelOf(var->getScope()->getSubprogram()), 'v', path, ty, var->getLine(), true, true);
                } else if (auto *g = dyn_cast<GlobalVariable>(p)) {
                    SmallVector<DIGlobalVariableExpression *, 1> gves;
                    g->getDebugInfo(gves);
                    note(levelOf(I), 'v', path, ty, gves.empty() ? 0 : gves[0]->getVariable()->getLine(), vol);
                } else {
                    note(levelOf(I), 'm', path, ty, 0, vol);
                    if (root && root != p) noteVariable(root, I, 'o');
                }
            } else if (uint64_t bits = 0;
                       isa<InsertValueInst>(I) && cast<InsertValueInst>(I)->getInsertedValueOperand() == v &&
                       levelOf(I) == (int)lv.size() - 1 && memspyReturnedInsert(cast<InsertValueInst>(I), DL, &bits)) {
                noteReturnedPart(nullptr, bits); /* a part of the struct returned in registers */
                returned = true;
            } else if (!isa<ICmpInst>(I)) {
                int k = levelOf(I);
                if (k >= 0) lv[k].used = true;
            }
        }
    }
    /* a member of the function's local struct that it returns (clang -O2 returns the pointer
     * alone where no caller uses the rest): a local that only carries the value out */
    if (returned && !lv.empty() && lv.back().part && lv.back().kind == 'm') lv.back().kind = 'v';
    return returned;
}

/* At the function's own level, that the value is stored at bit offset bits of the aggregate
 * agg that the function returns by value (null: the struct it returns in registers): the part
 * wins over a local that only carried the value there ("buffer.start"; the member alone where
 * no variable is the aggregate). */
void Dests::noteReturnedPart(Value *agg, uint64_t bits)
{
    const DILocalVariable *var = agg ? memspyVarOf(agg) : nullptr;
    const DISubprogram *sp = lv.back().fn;
    DITypeRefArray types = sp && sp->getType() ? sp->getType()->getTypeArray() : DITypeRefArray();
    const DIType *ty = var ? var->getType() : types.size() > 0 ? types[0] : nullptr;
    const DIDerivedType *m = memspyMemberAt(ty, bits);
    if (!m) return;
    Level &l = lv.back();
    l.kind = 'm';
    l.decl = l.autov = false;
    l.ret = true;
    l.path = (var ? var->getName().str() + "." : "") + m->getName().str();
    l.type = memspyTypeText(m->getBaseType());
}

/* Where tmp is a temporary (an alloca no variable describes) that a member function takes by
 * reference (`v.push_back(new T)`), or a local the program declared that one takes by a
 * reference parameter (`T *p = new T; v.push_back(p)`): at the level of statement at (the
 * local's), an element of the object the function is called on ("v[]"), or the object itself
 * that an assignment operator sets (`head_ = std::make_unique<T>()`); the same where tmp is a
 * local the function takes through std::move (`member_ = std::move(p)`). Returns whether it is one. */
bool Dests::noteContainer(AllocaInst *tmp, const Instruction *at)
{
    bool assign = false;
    const DILocalVariable *var = memspyVarOf(tmp);
    CallBase *c = var ? memspyMovedInto(tmp, &assign) : nullptr;
    if (!c) {
        c = memspyTemporaryPassed(tmp, &assign);
        if (c && var && !memspyReferenceArgument(c, tmp)) c = nullptr;
    }
    if (!c || !isMethod(calleeOf(c))) return false;
    std::string path;
    const DIType *ty = nullptr;
    Value *root = nullptr;
    int k = var ? levelOf(var->getScope()->getSubprogram()) : levelOf(at);
    if (objPath(c->getArgOperand(0), path, ty, root)) note(k, 'm', assign ? path : path + "[]", nullptr, 0);
    return true;
}

/* A store of the value in code inlined from a function off the call's inline chain (a
 * std::vector's push_back, its `*_M_finish = v`) through a pointer held in a part of a
 * declared object: a part SROA split off (`nodes`, bound by a fragment) or a member it is
 * loaded from (`pool.items_`): an element of that object or member, at the level of the
 * innermost function of the store's inline chain that is a level. Returns whether noted. */
bool Dests::noteContainerStore(StoreInst *st)
{
    Value *p = memspyStripCasts(st->getPointerOperand());
    SmallVector<DbgValueInst *, 4> values;
    findDbgValues(values, p);
    for (DbgValueInst *d : values) {
        auto frag = d->getExpression()->getFragmentInfo();
        const DILocalVariable *var = d->getVariable();
        int k = levelOf(var->getScope()->getSubprogram());
        if (!frag || d->getExpression()->getNumElements() != 3 || k < 0 ||
            memspyMemberAt(var->getType(), frag->OffsetInBits))
            continue;
        note(k, 'm', var->getName().str() + "[]", nullptr, 0);
        return true;
    }
    auto *ld = dyn_cast<LoadInst>(p);
    APInt off(64, 0);
    Value *base = ld ? ld->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, off, true) : nullptr;
    std::string path;
    const DIType *ty = nullptr;
    Value *root = nullptr;
    const DIDerivedType *m = nullptr;
    if (!base || off.getBitWidth() != 64 || !objPath(base, path, ty, root) ||
        !(m = memspyMemberHolding(ty, off.getZExtValue() * 8)) || off.getZExtValue() * 8 == m->getOffsetInBits())
        return false; /* (a pointer member itself: no container's) */
    int k = -1;
    for (const DILocation *at = st->getDebugLoc().get(); at && k < 0; at = at->getInlinedAt())
        k = levelOf(at->getScope()->getSubprogram());
    note(k, 'm', path + "." + m->getName().str() + "[]", nullptr, 0);
    return k >= 0;
}

/* A call that returns a struct with a pointer member (in registers, or in its sret argument
 * number sret): where the caller keeps the struct (`dstBuff`, `job.dstBuff`), which the
 * callee's record ("r": the member that holds the allocation) completes. */
void Dests::noteStructDest(CallBase *call, int sret)
{
    if (sret >= 0) {
        auto *tmp = dyn_cast<AllocaInst>(memspyStripCasts(call->getArgOperand(sret)));
        if (tmp && memspyVarOf(tmp) && noteContainer(tmp, call)) return; /* a local moved into a member */
        if (tmp && !memspyVarOf(tmp) && !noteContainer(tmp, call))       /* a temporary moved into a container */
            for (User *u : tmp->users())
                for (User *w : (isa<BitCastInst>(u) ? u : tmp)->users())
                    if (auto *ld = dyn_cast<LoadInst>(w))
                        for (User *x : ld->users())
                            if (auto *st = dyn_cast<StoreInst>(x);
                                st && st->getValueOperand() == ld && levelOf(st) < 0 && noteContainerStore(st))
                                return;
        if (!tmp || memspyVarOf(tmp)) noteArgument(call->getArgOperand(sret), call, 'v');
        return;
    }
    for (User *u : call->users()) {
        auto *ev = dyn_cast<ExtractValueInst>(u);
        if (!ev) continue;
        SmallVector<DbgValueInst *, 4> values; /* a part of a variable SROA split */
        findDbgValues(values, ev);
        for (DbgValueInst *d : values)
            if (d->getExpression()->getFragmentInfo()) {
                const DILocalVariable *var = d->getVariable();
                note(levelOf(var->getScope()->getSubprogram()), 'v', var->getName().str(), var->getType(),
                     var->getLine());
                return;
            }
        for (User *w : ev->users())
            if (auto *st = dyn_cast<StoreInst>(w); st && st->getValueOperand() == ev) {
                APInt off(64, 0);
                noteArgument(st->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, off, true), call, 'v');
                return;
            }
    }
}

/* The function call calls, through an alias too (clang makes a complete-object constructor
 * an alias of the base-object one); null if indirect. */
Function *calleeOf(CallBase *call)
{
    return dyn_cast<Function>(call->getCalledOperand()->stripPointerCastsAndAliases());
}

/* The class or namespace a demangled function name is declared in, without its template
 * argument lists ("std::__cxx11::basic_string<char, ...>::append(char const*, unsigned long)"
 * -> "std::__cxx11::basic_string"), as LLVM names a class's struct type; "" if none. (The
 * partial demangler's getFunctionDeclContextName gives "std::" inside clang 14.) */
std::string declContext(const std::string &full)
{
    std::string out;
    size_t scope = 0; /* out's length at the last "::" outside template arguments */
    int depth = 0;
    for (size_t i = 0; i < full.size(); i++) {
        char c = full[i];
        if (depth == 0 && c == '(') break;
        depth += c == '<';
        if (depth == 0) {
            if (c == ':' && i + 1 < full.size() && full[i + 1] == ':') scope = out.size();
            out += c;
        }
        depth -= c == '>' && depth > 0;
    }
    return out.substr(0, scope);
}

/* Whether declaration f (no debug information: a member function of a class the library
 * instantiates itself, `std::string::append` in libstdc++) takes an object of the class that
 * its mangled name scopes it in as its first parameter (typed-pointer IR:
 * `%"class.std::__cxx11::basic_string"*`). */
bool declaredMethod(const Function *f)
{
    auto *self = dyn_cast<PointerType>(f->getFunctionType()->getParamType(0));
    auto *st = self && !self->isOpaque() ? dyn_cast<StructType>(self->getNonOpaquePointerElementType()) : nullptr;
    if (!st || !st->hasName()) return false;
    StringRef ty = st->getName();
    if (!ty.consume_front("class.") && !ty.consume_front("struct.")) return false;
    size_t dot = ty.rfind('.'); /* "basic_string.12": a renamed duplicate */
    if (dot != StringRef::npos && dot + 1 < ty.size() &&
        ty.substr(dot + 1).find_first_not_of("0123456789") == StringRef::npos)
        ty = ty.substr(0, dot);
    return declContext(demangle(f->getName().str())) == ty;
}

/* Whether f is a C++ constructor (by its Itanium mangled name) or another member function
 * (its debug information's first parameter is the object pointer; a declaration's, its
 * class's pointer), not a destructor. */
bool isMethod(const Function *f)
{
    if (!f || !f->getName().startswith("_Z") || f->arg_size() < 1) return false;
    ItaniumPartialDemangler d;
    if (d.partialDemangle(f->getName().str().c_str())) return false;
    size_t n = 0;
    char *base = d.getFunctionBaseName(nullptr, &n);
    bool dtor = base && base[0] == '~', ctor = !dtor && d.isCtorOrDtor();
    free(base);
    if (ctor || dtor) return ctor;
    const DISubprogram *sp = f->getSubprogram();
    if (!sp && f->isDeclaration()) return declaredMethod(f);
    DITypeRefArray types = sp && sp->getType() ? sp->getType()->getTypeArray() : DITypeRefArray();
    auto *self = types.size() > 1 ? dyn_cast_or_null<DIDerivedType>(types[1]) : nullptr;
    return self && self->isObjectPointer();
}

/* What the early pass found at one call's own level, before the optimisers (dead stores,
 * dropped debug bindings) could lose it, keyed by the call's function, position and callee
 * (for an inlined call: the function it was inlined into, where, and the inlined function). */
struct EarlyKey {
    const DISubprogram *fn;
    unsigned line, col;
    std::string callee; /* the callee's name */
    bool operator<(const EarlyKey &o) const
    {
        return std::tie(fn, line, col, callee) < std::tie(o.fn, o.line, o.col, o.callee);
    }
};
struct Early {
    Level l;
    const DISubprogram *calleeFn;
    bool ambiguous; /* several calls there found different things */
};
std::map<EarlyKey, Early> earlyDests;

/* The call's levels (nothing named yet): its position, then where each function it is in
 * was inlined. */
void Dests::makeLevels(const DILocation *L)
{
    lv.clear();
    for (const DILocation *at = L; at; at = at->getInlinedAt()) {
        Level l;
        l.line = at->getLine();
        l.col = at->getColumn();
        l.fn = at->getScope()->getSubprogram();
        lv.push_back(l);
    }
}

/* Whether call gets a record; if so its levels in lv and what each names, returned whether
 * the value reaches a return. */
bool Dests::levels(CallBase *call, bool &returned)
{
    returned = false;
    object = false;
    Function *callee = calleeOf(call);
    const DILocation *L = call->getDebugLoc().get();
    if (!L || (callee && callee->isIntrinsic())) return false;
    /* posix_memalign (&p, ...): the pointer argument's target; a constructor: its object */
    Value *destArg = nullptr;
    char argKind = 'v';
    bool aggregate = false; /* a struct with a pointer member returned (in sret argument sret) */
    int sret = -1;
    if (callee && callee->getName() == "posix_memalign" && call->arg_size() == 3) {
        destArg = call->getArgOperand(0);
    } else if ((!call->getType()->isPointerTy() || call->use_empty() || memspyReturnsReference(callee)) &&
               isMethod(callee)) {
        /* a member function whose result, if any, is unused (`s.append(t)` returns s) or is a
         * reference to a part of its object (std::map's operator[]): its object */
        destArg = call->getArgOperand(0);
        argKind = 'o';
        object = true;
    } else if (!call->getType()->isPointerTy()) {
        sret = -1;
        for (unsigned i = 0; i < call->arg_size() && i < 2; i++)
            if (call->paramHasAttr(i, Attribute::StructRet)) sret = (int)i;
        if (sret < 0 ? !memspyHoldsPointer(call->getType())
                     : !memspyHoldsPointer(call->getParamAttr(sret, Attribute::StructRet).getValueAsType()))
            return false;
        aggregate = true;
    }
    makeLevels(L);
    if (destArg)
        noteArgument(destArg, call, argKind);
    else if (aggregate)
        noteStructDest(call, sret);
    else
        returned = follow(call);
    return true;
}

void Dests::early(CallBase *call)
{
    bool returned;
    if (!levels(call, returned) || (lv[0].kind == '-' && !lv[0].slot) || !lv[0].fn) return;
    Function *callee = calleeOf(call);
    EarlyKey key{ lv[0].fn, lv[0].line, lv[0].col, callee ? callee->getName().str() : "" };
    auto it = earlyDests.find(key);
    if (it == earlyDests.end()) {
        earlyDests[key] = Early{ lv[0], callee ? callee->getSubprogram() : nullptr, false };
    } else {
        const Level &o = it->second.l;
        it->second.ambiguous |= o.kind != lv[0].kind || o.path != lv[0].path || o.type != lv[0].type;
    }
}

std::string Dests::record(CallBase *call, bool &any)
{
    any = false;
    bool returned;
    if (!levels(call, returned)) return "";
    Function *callee = calleeOf(call);
    for (unsigned k = 0; k < lv.size(); k++) { /* what the optimisers lost on the way */
        bool bare = lv[k].kind == 'm' && lv[k].path.size() >= 2 && !lv[k].path.compare(lv[k].path.size() - 2, 2, "[]");
        bool local = rankOf(lv[k].kind, lv[k].local) == 1; /* a store the optimisers folded away outranks it */
        if ((lv[k].kind != '-' && !bare && !local) || !lv[k].fn) continue; /* bare: `coder[]`, a member folded away */
        const Early *e = nullptr;
        if (k == 0) {
            auto it =
                earlyDests.find(EarlyKey{ lv[0].fn, lv[0].line, lv[0].col, callee ? callee->getName().str() : "" });
            if (it != earlyDests.end()) e = &it->second;
        } else { /* the inlined call of lv[k - 1]'s function */
            for (auto it = earlyDests.lower_bound(EarlyKey{ lv[k].fn, lv[k].line, lv[k].col, "" });
                 it != earlyDests.end() && it->first.fn == lv[k].fn && it->first.line == lv[k].line &&
                 it->first.col == lv[k].col;
                 ++it)
                if (it->second.calleeFn == lv[k - 1].fn) e = &it->second;
        }
        if (!e || e->ambiguous) continue;
        if (bare && (e->l.kind != 'm' || e->l.path.size() < 2 || !e->l.path.compare(e->l.path.size() - 2, 2, "[]")))
            continue;
        if (local && (rankOf(e->l.kind, e->l.local) < 2 || e->l.ret || e->l.outp >= 0)) continue; /* a store only */
        bool used = lv[k].used, slot = lv[k].slot;
        const DISubprogram *fn = lv[k].fn;
        unsigned line = lv[k].line, col = lv[k].col;
        lv[k] = e->l;
        lv[k].used |= used;
        lv[k].slot |= slot;
        lv[k].fn = fn;
        lv[k].line = line;
        lv[k].col = col;
    }
    any = returned;
    for (unsigned k = 0; k < lv.size(); k++) { /* a slot's level that names nothing: the value's type */
        if (!lv[k].slot || lv[k].kind != '-' || !lv[k].type.empty()) continue;
        const DISubprogram *from = k ? lv[k - 1].fn : callee ? callee->getSubprogram() : nullptr;
        DITypeRefArray types = from && from->getType() ? from->getType()->getTypeArray() : DITypeRefArray();
        if (types.size() > 0 && types[0]) lv[k].type = memspyTypeText(types[0]);
    }
    for (const Level &l : lv) any |= l.kind != '-' || l.slot;
    return any ? text(call, returned, -1) : "";
}

/* The record text of call with levels lv: arg -1, or the argument (a pointer to a pointer)
 * whose target the levels name. */
std::string Dests::text(CallBase *call, bool returned, int arg)
{
    Function *callee = calleeOf(call);
    const DILocation *L = call->getDebugLoc().get();
    const DISubprogram *sp = call->getFunction()->getSubprogram();
    unsigned lang = sp && sp->getUnit() ? sp->getUnit()->getSourceLanguage() : 0;
    bool cxx = lang == dwarf::DW_LANG_C_plus_plus || lang == dwarf::DW_LANG_C_plus_plus_03 ||
               lang == dwarf::DW_LANG_C_plus_plus_11 || lang == dwarf::DW_LANG_C_plus_plus_14;
    std::string r = MSPLUG_DEST_RECORD_VERSION "\t";
    r += cxx ? "c++" : "c";
    r += "\t" + L->getFilename().str() + "\t" + (callee ? callee->getName().str() : "*");
    if (arg >= 0)
        r += "\ta" + std::to_string(arg) + "\t";
    else
        r += returned && object ? "\tro\t" : returned ? "\tr\t" : object ? "\to\t" : "\t-\t";
    r += std::to_string(lv.size());
    for (const Level &l : lv) {
        std::string flags = std::string(l.decl ? "d" : "") + (l.kind == 'v' && l.autov ? "l" : "") +
                            (l.used ? "u" : "") + (l.ret ? "r" : "") + (l.slot ? "s" : "") +
                            (l.outp >= 0 ? "p" + std::to_string(l.outp) : "");
        r += "\t" + std::to_string(l.line) + "\t" + std::to_string(l.col) + "\t" + std::string(1, l.kind) + "\t" +
             (flags.empty() ? "-" : flags) + "\t" + capped(l.type) + "\t" + capped(l.path);
    }
    return r;
}

/* The record of argument i of call, a pointer to a pointer (`create(&lz->coder)`, where the
 * callee may store an allocation: `*coder_ptr = malloc(...)`), "" if it names nothing: what it
 * points to (noteArgument), or the caller's own pointer parameter passed on (an out-parameter
 * again: its caller names it). */
std::string Dests::argRecord(CallBase *call, unsigned i)
{
    Function *callee = calleeOf(call);
    const DILocation *L = call->getDebugLoc().get();
    Value *a = call->getArgOperand(i);
    if (!L || (callee && callee->isIntrinsic()) || !a->getType()->isPointerTy()) return "";
    makeLevels(L);
    object = false;
    if (int pi = memspyParamIndex(a); pi >= 0) {
        const DILocalVariable *var = memspyParamVar(a);
        if (var && memspyIsPointer(memspyPointee(var->getType()))) noteOutParam(a, pi);
    } else {
        std::string path;
        const DIType *ty = nullptr;
        Value *root = nullptr;
        if (objPath(a, path, ty, root) && memspyIsPointer(ty)) noteArgument(a, call, 'v');
    }
    bool any = false;
    for (const Level &l : lv) any |= l.kind != '-';
    return any ? text(call, false, (int)i) : "";
}

/* Text into an asm string literal. */
std::string escaped(const std::string &s)
{
    std::string out;
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += (char)c;
        } else if (c < 32 || c >= 127 || c == '$' || c == '{' || c == '|' || c == '}') { /* LLVM asm syntax */
            char b[8];
            snprintf(b, sizeof b, "\\%03o", c);
            out += b;
        } else {
            out += (char)c;
        }
    }
    return out;
}

} // namespace

void memspyEarlyDests(Module &M)
{
    earlyDests.clear(); /* a module of its own */
    Dests d(M.getDataLayout());
    for (Function &F : M)
        for (BasicBlock &BB : F)
            for (Instruction &I : BB)
                if (auto *CB = dyn_cast<CallBase>(&I)) d.early(CB);
}

std::vector<std::pair<CallBase *, std::string>> memspyCollectDests(Function &F)
{
    std::vector<std::pair<CallBase *, std::string>> out;
    Dests d(F.getParent()->getDataLayout());
    for (BasicBlock &BB : F)
        for (Instruction &I : BB)
            if (auto *CB = dyn_cast<CallBase>(&I)) {
                bool any;
                std::string r = d.record(CB, any);
                if (any) out.emplace_back(CB, r);
                for (unsigned i = 0; i < CB->arg_size(); i++)
                    if (std::string a = d.argRecord(CB, i); !a.empty()) out.emplace_back(CB, a);
            }
    return out;
}

InlineAsm *memspyDestAsm(LLVMContext &C, const std::string &record, const std::string &comdat, bool endLabel)
{
    std::string text = "\t.pushsection " MSPLUG_DESTS_SECTION;
    text += comdat.empty() ? ",\"aw\",@progbits" : ",\"awG\",@progbits," + comdat + ",comdat";
    text += endLabel ? "\n\t.balign 8\n\t.quad 1f, 2f\n\t.asciz \"" : "\n\t.balign 8\n\t.quad 1f, 0\n\t.asciz \"";
    text += escaped(record) + "\"\n\t.popsection\n1:";
    return InlineAsm::get(FunctionType::get(Type::getVoidTy(C), false), text, "", true);
}

InlineAsm *memspyDestEndAsm(LLVMContext &C)
{
    /* a text of its own (a number in a comment): tail merging joins identical instructions,
     * and a call with its `2:` shared by several records' paths leaves their `2f` to a later
     * record's label (the GCC plugin's emit_dests says more) */
    static unsigned serial;
    return InlineAsm::get(FunctionType::get(Type::getVoidTy(C), false), "2:\t# memspy " + std::to_string(serial++), "",
                          true);
}
