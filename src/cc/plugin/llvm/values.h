/* memspy's LLVM pass plugin: what a pointer value and a DWARF type are (values.cc), for the
 * destination records (dests.cc) and the parts they name (parts.cc): casts stripped, the debug
 * variable describing a value, a parameter, a slot that no variable or field names. */
#ifndef MEMSPY_LLVM_VALUES_H
#define MEMSPY_LLVM_VALUES_H
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Value.h"

/* t without typedefs and qualifiers. */
const llvm::DIType *memspyStripType(const llvm::DIType *t);

/* What a pointer (or reference) of type t points to, null if t is neither. */
const llvm::DIType *memspyPointee(const llvm::DIType *t);

/* Whether t (typedefs and qualifiers aside) is a pointer type. */
bool memspyIsPointer(const llvm::DIType *t);

/* The member of composite type t (typedefs and qualifiers aside) at bit offset bits, null if
 * none starts there. */
const llvm::DIDerivedType *memspyMemberAt(const llvm::DIType *t, uint64_t bits);

/* Whether t (typedefs and qualifiers aside) is an array type. */
bool memspyIsArray(const llvm::DIType *t);

/* p without bitcasts and address-space casts (not stripPointerCasts: a GEP of zeros is a
 * member or an element). */
llvm::Value *memspyStripCasts(llvm::Value *p);

/* The variable llvm.dbg.declare or llvm.dbg.value describes v with, null if none (a local in
 * memory also by a dbg.value of its address with DW_OP_deref). */
const llvm::DILocalVariable *memspyVarOf(llvm::Value *v);

/* memspyVarOf for a pointer value that typed-pointer IR may hold in several casts of one
 * value: orig as written, p (orig without casts), or a cast of p. */
const llvm::DILocalVariable *memspyVarOfCasts(llvm::Value *orig, llvm::Value *p);

/* Whether a store to p puts the value in a slot that no variable or field names (memory
 * through a cursor, a pointer computed by pointer arithmetic, an interpreter's stack top). */
bool memspySlotStore(llvm::Value *p);

/* The index of the function's parameter that pointer p is (the argument, or at -O0 a load of
 * the slot it is spilled to); -1 if none. */
int memspyParamIndex(llvm::Value *p);

/* The parameter variable of pointer p (memspyParamIndex's), null if none. */
const llvm::DILocalVariable *memspyParamVar(llvm::Value *p);

#endif
