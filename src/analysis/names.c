/* What a data bin's MemSpy-style name says about its data (ms_name_element_size in
 * analyze.h): "double*.Y" is an array of doubles. The names themselves come from the compiler
 * plugins' records and DWARF (dests.c, databins.c), never from the source text. */
#include "analyze.h"

#include <string.h>

/* Bytes of a C scalar type as gcc and clang lay it out on x86-64 and AArch64 (0: unknown). */
static uint64_t scalar_bytes(const char *t, size_t n)
{
    static const struct {
        const char *name;
        uint64_t bytes;
    } types[] = {
        { "char", 1 },
        { "signed char", 1 },
        { "unsigned char", 1 },
        { "int8_t", 1 },
        { "uint8_t", 1 },
        { "bool", 1 },
        { "_Bool", 1 },
        { "short", 2 },
        { "int16_t", 2 },
        { "uint16_t", 2 },
        { "int", 4 },
        { "unsigned", 4 },
        { "unsigned int", 4 },
        { "int32_t", 4 },
        { "uint32_t", 4 },
        { "float", 4 },
        { "long", 8 },
        { "unsigned long", 8 },
        { "long long", 8 },
        { "int64_t", 8 },
        { "uint64_t", 8 },
        { "size_t", 8 },
        { "ssize_t", 8 },
        { "double", 8 },
        { "long double", 16 },
        { "unsigned short", 2 },
        { "unsigned long long", 8 },
        { "intptr_t", 8 },
        { "uintptr_t", 8 },
    };
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if (strlen(types[i].name) == n && strncmp(types[i].name, t, n) == 0) return types[i].bytes;
    return 0;
}

uint64_t ms_name_element_size(const char *name)
{
    const char *dot = strstr(name, "*.");
    if (!dot || strchr(name, '>')) return 0;    /* not "TYPE*.var" (a full name has a path) */
    if (dot > name && dot[-1] == '*') return 8; /* an array of pointers */
    const char *t = name;
    size_t n = (size_t)(dot - name);
    for (int again = 1; again;) { /* qualifiers say nothing about the size */
        again = 0;
        static const char *const quals[] = { "const ", "volatile " };
        for (size_t q = 0; q < 2; q++) {
            size_t ql = strlen(quals[q]);
            if (n > ql && strncmp(t, quals[q], ql) == 0) t += ql, n -= ql, again = 1;
        }
    }
    while (n && t[n - 1] == ' ') n--;
    return scalar_bytes(t, n);
}
