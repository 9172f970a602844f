/* Which source paths are system sources (no name is ever read from a source file). */
#include "source.h"

#include <string.h>

bool ms_source_is_system(const char *path)
{
    static const char *const prefixes[] = { "/usr/include/", "/usr/local/include/", "/usr/src/debug/", "/build/glibc",
                                            "./csu/",        "../sysdeps/" };
    /* Compilers also spell headers through their own directories, e.g. clang's
     * "/usr/bin/../lib/gcc/x86_64-linux-gnu/12/../../../../include/c++/12/bits/vector.tcc". */
    static const char *const parts[] = { "/include/c++/", "/lib/gcc/", "/lib/llvm", "/lib/clang/" };
    if (!path) return false;
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0) return true;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
        if (strstr(path, parts[i])) return true;
    return false;
}
