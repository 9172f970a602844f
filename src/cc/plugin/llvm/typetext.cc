/* memspy's LLVM pass plugin: types as the destination records write them (typetext.h), from
 * the debug information: g++'s spelling, the standard library's default template arguments
 * left out. */
#include "typetext.h"

#include <vector>

using namespace llvm;

namespace
{

/* name ("vector<double, std::allocator<double> >") without its last n template arguments
 * ("vector<double>"), as g++ writes a type whose arguments are defaults. */
std::string dropTemplateArgs(const std::string &name, unsigned n)
{
    size_t open = name.find('<');
    if (n == 0 || open == std::string::npos || name.back() != '>') return name;
    std::vector<size_t> commas; /* the top-level commas between the arguments */
    int depth = 0;
    for (size_t i = open + 1; i + 1 < name.size(); i++) {
        char c = name[i];
        if (c == '<' || c == '(' || c == '[') depth++;
        if (c == '>' || c == ')' || c == ']') depth--;
        if (c == ',' && depth == 0) commas.push_back(i);
    }
    if (n > commas.size()) return name.substr(0, open); /* every argument a default */
    std::string out = name.substr(0, commas[commas.size() - n]);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + ">";
}

/* Whether t is one of the standard library's default template arguments (clang 14 marks
 * defaults only for DWARF 5 when asked): std::allocator<T>, std::char_traits<T>,
 * std::less<T>, std::hash<T>, std::equal_to<T>, std::default_delete<T>. */
bool isDefaultArgument(const DIType *t)
{
    static const char *const names[] = {
        "allocator<", "char_traits<", "less<", "hash<", "equal_to<", "default_delete<"
    };
    auto *c = dyn_cast_or_null<DICompositeType>(t);
    auto *ns = c ? dyn_cast_or_null<DINamespace>(c->getScope()) : nullptr;
    if (!ns) return false;
    while (ns->getScope() && isa<DINamespace>(ns->getScope()) && ns->getName() != "std") /* std::__1, ... */
        ns = cast<DINamespace>(ns->getScope());
    if (ns->getName() != "std") return false;
    for (const char *n : names)
        if (c->getName().startswith(n)) return true;
    return false;
}

} // namespace

std::string memspyTypeText(const DIType *t, int depth)
{
    if (!t) return "void";
    if (depth > 8) return "";
    if (auto *d = dyn_cast<DIDerivedType>(t)) {
        switch (d->getTag()) {
        case dwarf::DW_TAG_pointer_type: return memspyTypeText(d->getBaseType(), depth + 1) + " *";
        case dwarf::DW_TAG_reference_type: return memspyTypeText(d->getBaseType(), depth + 1) + " &";
        case dwarf::DW_TAG_typedef: return d->getName().str();
        default: return memspyTypeText(d->getBaseType(), depth + 1); /* const, volatile, restrict, member */
        }
    }
    unsigned defaults = 0;
    if (auto *c = dyn_cast<DICompositeType>(t)) {
        DITemplateParameterArray params = c->getTemplateParams();
        for (unsigned i = params.size(); i > 0; i--) {
            auto *tp = dyn_cast_or_null<DITemplateTypeParameter>(params[i - 1]);
            if (!tp || !(tp->isDefault() || isDefaultArgument(tp->getType()))) break;
            defaults++;
        }
    }
    return dropTemplateArgs(t->getName().str(), defaults);
}
