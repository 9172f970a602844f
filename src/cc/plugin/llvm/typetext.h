/* memspy's LLVM pass plugin: types as the destination records write them (typetext.cc). */
#ifndef MEMSPY_LLVM_TYPETEXT_H
#define MEMSPY_LLVM_TYPETEXT_H
#include "llvm/IR/DebugInfoMetadata.h"

#include <string>

/* The type as written: "double *", "S *" (typedefs by name, qualifiers dropped, C++ template
 * arguments that are defaults left out: "vector<double>", as g++ writes it). */
std::string memspyTypeText(const llvm::DIType *t, int depth = 0);

#endif
