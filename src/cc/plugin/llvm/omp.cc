/* memspy's LLVM pass plugin: OpenMP region records (src/rt/msplug_abi.h, MSPLUG_OMP_RECORD),
 * the same as the GCC plugin's.
 *
 * clang outlines a region in its front end: `__kmpc_fork_call(loc, n, @.omp_outlined., ...)`
 * (parallel), `__kmpc_fork_teams` (teams), `__kmpc_omp_task_alloc(..., @.omp_task_entry.)`
 * (task). At the pipeline's start, before any inlining, each such call gives the region's
 * function (and the .omp_outlined._debug__ function that holds its body under -g), the
 * function the programmer wrote the construct in (a nested region's too), the pragma's line
 * (the call's location, else the line of the ident's ";file;function;line;column;;" string)
 * and the construct: "parallel for" / "parallel sections" when the region's worksharing
 * loop starts on the parallel's own line (the combined construct), else "parallel". */
#include "dests.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"

#include <map>

#define MSPLUG_NO_DECLS
#include "../../../rt/msplug_abi.h"

using namespace llvm;

namespace
{

struct Region {
    Function *caller = nullptr, *fn = nullptr;
    std::vector<Function *> bodies; /* fn and the _debug__ functions it calls */
    std::string kind, file;
    unsigned line = 0;
};

std::map<std::string, std::string> records; /* function name -> its record */

/* The ident's flags and its psource's file and line (";file;function;line;column;;"). */
bool identInfo(Value *v, unsigned &flags, std::string &file, unsigned &line)
{
    auto *g = dyn_cast<GlobalVariable>(v->stripPointerCasts());
    auto *init = g && g->hasInitializer() ? dyn_cast<ConstantStruct>(g->getInitializer()) : nullptr;
    if (!init || init->getNumOperands() < 5) return false;
    auto *f = dyn_cast<ConstantInt>(init->getOperand(1));
    flags = f ? (unsigned)f->getZExtValue() : 0;
    auto *s = dyn_cast<GlobalVariable>(init->getOperand(4)->stripPointerCasts());
    auto *data = s && s->hasInitializer() ? dyn_cast<ConstantDataSequential>(s->getInitializer()) : nullptr;
    if (!data || !data->isCString()) return true;
    StringRef p = data->getAsCString(); /* ;file;function;line;column;; */
    SmallVector<StringRef, 6> parts;
    p.split(parts, ';');
    if (parts.size() >= 4) {
        file = parts[1].str();
        if (parts[3].getAsInteger(10, line)) line = 0;
    }
    return true;
}

/* "for" / "sections" if body starts a worksharing construct on line (clang's loc flags:
 * KMP_IDENT_WORK_LOOP 0x200, KMP_IDENT_WORK_SECTIONS 0x400), else "". */
std::string combined(Function *body, unsigned line)
{
    for (BasicBlock &BB : *body)
        for (Instruction &I : BB) {
            auto *CB = dyn_cast<CallBase>(&I);
            Function *callee = CB ? CB->getCalledFunction() : nullptr;
            if (!callee || CB->arg_size() < 1) continue;
            StringRef n = callee->getName();
            if (!n.startswith("__kmpc_for_static_init") && !n.startswith("__kmpc_dispatch_init") &&
                !n.startswith("__kmpc_dist_for_static_init"))
                continue;
            unsigned flags = 0, l = 0;
            std::string file;
            if (!identInfo(CB->getArgOperand(0), flags, file, l) || l != line) continue;
            if (flags & 0x400) return "sections";
            if (flags & 0x200) return "for";
        }
    return "";
}

std::string displayName(const Function *F)
{
    if (const DISubprogram *sp = F->getSubprogram())
        if (!sp->getName().empty()) return sp->getName().str();
    return F->getName().str();
}

} // namespace

void memspyEarlyOmp(Module &M)
{
    records.clear();
    std::vector<Region> regions;
    for (Function &F : M)
        for (BasicBlock &BB : F)
            for (Instruction &I : BB) {
                auto *CB = dyn_cast<CallBase>(&I);
                Function *callee = CB ? CB->getCalledFunction() : nullptr;
                if (!callee) continue;
                StringRef n = callee->getName();
                Region r;
                unsigned fnArg;
                if (n == "__kmpc_fork_call" || n == "__kmpc_fork_teams") {
                    r.kind = n == "__kmpc_fork_call" ? "parallel" : "teams";
                    fnArg = 2;
                } else if (n == "__kmpc_omp_task_alloc") {
                    r.kind = "task";
                    fnArg = 5;
                } else {
                    continue;
                }
                if (CB->arg_size() <= fnArg) continue;
                r.fn = dyn_cast<Function>(CB->getArgOperand(fnArg)->stripPointerCasts());
                if (!r.fn || r.fn->isDeclaration()) continue;
                r.caller = &F;
                unsigned flags = 0;
                identInfo(CB->getArgOperand(0), flags, r.file, r.line);
                if (const DebugLoc &dl = CB->getDebugLoc()) {
                    if (dl.getLine()) r.line = dl.getLine();
                    if (auto *scope = dyn_cast<DIScope>(dl.getScope())) r.file = scope->getFilename().str();
                }
                r.bodies.push_back(r.fn);
                for (BasicBlock &B2 : *r.fn) /* the body (-g), or a task entry's outlined body */
                    for (Instruction &I2 : B2)
                        if (auto *C2 = dyn_cast<CallBase>(&I2))
                            if (Function *g = C2->getCalledFunction())
                                if (!g->isDeclaration() && g->getName().startswith(".omp_outlined."))
                                    r.bodies.push_back(g);
                if (r.kind == "parallel")
                    for (Function *b : r.bodies) {
                        std::string ws = combined(b, r.line);
                        if (!ws.empty()) {
                            r.kind += " " + ws;
                            break;
                        }
                    }
                regions.push_back(r);
            }
    /* a nested region's caller is another region's body: the outer one's caller, outwards */
    for (Region &r : regions) {
        Function *parent = r.caller;
        for (unsigned guard = 0; guard < regions.size(); guard++) {
            const Region *outer = nullptr;
            for (const Region &o : regions)
                for (Function *b : o.bodies)
                    if (b == parent) outer = &o;
            if (!outer) break;
            parent = outer->caller;
        }
        std::string rec = MSPLUG_OMP_RECORD "\t" + r.file + "\t" + parent->getName().str() + "\t" + r.kind + "\t" +
                          std::to_string(r.line);
        for (Function *b : r.bodies) rec += "\t" + displayName(b);
        for (Function *b : r.bodies) records[b->getName().str()] = rec;
    }
}

const std::string *memspyOmpRecord(const Function &F)
{
    auto it = records.find(F.getName().str());
    return it == records.end() ? nullptr : &it->second;
}
