/* memspy's LLVM pass plugin: where an allocation's pointer goes as a part of something else
 * (parts.cc), for the destination records (dests.cc): a member of the aggregate a function
 * returns by value, an element of a container it is pushed into. */
#ifndef MEMSPY_LLVM_PARTS_H
#define MEMSPY_LLVM_PARTS_H
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instructions.h"

#include <vector>

/* The aggregate that address p is a part of (through casts and constant GEPs), when the
 * function returns it by value: its sret argument, or a local (alloca) it loads whole into
 * its return value or copies into the sret argument (clang -O0's `buffer.start = start;
 * return buffer;`); null if none. *bits: p's offset in it. */
llvm::Value *memspyReturnedAggregate(llvm::Value *p, const llvm::DataLayout &DL, uint64_t *bits);

/* Whether insertvalue iv builds (through further insertvalues) the value the function returns
 * (clang's `{ i8*, i64 }` for a small struct returned in registers); *bits: the offset of the
 * part it inserts. */
bool memspyReturnedInsert(llvm::InsertValueInst *iv, const llvm::DataLayout &DL, uint64_t *bits);

/* Whether t is a struct (or the sret type of a call) with a pointer member, itself or in a
 * struct member (std::unique_ptr<T>): a buffer returned by value, whose callee's record says
 * which member holds its allocation. */
bool memspyHoldsPointer(llvm::Type *t, int depth = 0);

/* The call, not of a constructor, that takes the address of temporary tmp (an alloca no
 * variable describes) as an argument other than its first (clang -O0's `v.push_back(new T)`,
 * whose parameter is a reference: the caller checks that it is a member function's); null if
 * none. *assign: the callee is an assignment operator (`head_ = std::make_unique<T>()`). */
llvm::CallBase *memspyTemporaryPassed(llvm::AllocaInst *tmp, bool *assign);

/* The same for the program's local var moved there with std::move (`auto p =
 * std::make_unique<T>(); member_ = std::move(p);`, `v.push_back(std::move(p))`): the call that
 * takes std::move(var)'s result; null if none. */
llvm::CallBase *memspyMovedInto(llvm::AllocaInst *var, bool *assign);

/* The object whose element accessor (a member function operator[], at, front or back) call
 * p is, returning a reference (`m[k] = new T` stores through std::map's operator[]): the call's
 * first argument; null if p is no such call. The caller checks that it is a member function. */
llvm::Value *memspyAccessedContainer(llvm::Value *p);

/* Whether f's debug information says it returns a reference (std::map's operator[]): a
 * part of its object, not an allocation of its own. */
bool memspyReturnsReference(const llvm::Function *f);

/* Whether variable v is declared in a system header (the C++ library's `__i`, a std::map
 * iterator that operator[] inlined into the program's code returns a part of): no name of
 * the program's. */
bool memspySystemVar(const llvm::DILocalVariable *v);

/* The member of composite type t (typedefs and qualifiers aside) whose bytes hold bit offset
 * bits, null if none (a std::vector member, whose own parts DWARF puts in base classes). */
const llvm::DIDerivedType *memspyMemberHolding(const llvm::DIType *t, uint64_t bits);

/* Whether p addresses the same field as q: GEPs with the same source type and constant
 * indices (`L->top` in any function of the module, from any `L`). */
bool memspySameField(llvm::Value *p, llvm::Value *q);

/* Whether member m of composite type t names no place of its own in a path: a member of a
 * union or a member that is a union (Lua's TValue's `value_.gc`: the view of the storage that
 * the TValue's own name, `g->l_registry`, names), as the GCC plugin's lvalue paths. */
bool memspyUnionView(const llvm::DIType *t, const llvm::DIDerivedType *m);

/* Whether a store to p puts the value into the block it points to (`r->next = r`, a ring of
 * one): p at a constant offset from the value (work) or from a load of a local it is kept in
 * (held, -O0). */
bool memspySelfStore(llvm::Value *p, const std::vector<llvm::Value *> &work, const std::vector<llvm::Value *> &held);

/* Whether a store of the value to p links it into an intrusive list: function f also stores
 * what p held into the block itself (`o->next = g->allgc; g->allgc = o;`, Lua's luaC_newobj):
 * p is the list's head, which names no block. */
bool memspyListHead(llvm::Value *p, llvm::Function *f, const std::vector<llvm::Value *> &work,
                    const std::vector<llvm::Value *> &held);

/* Whether call passes local a (its address, or a cast of it) to a parameter its callee's debug
 * information declares a reference (`push_back(const T &)`, `emplace_back(T &&)`). */
bool memspyReferenceArgument(llvm::CallBase *call, llvm::AllocaInst *a);

#endif
