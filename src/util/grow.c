/* Growable arrays for the tools (never the runtime, which must not use malloc). */
#include <stdlib.h>

#include "util.h"

int ms_grow(void **items, size_t *cap, size_t need, size_t elsize)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 4;
    while (n < need) n *= 2;
    void *p = realloc(*items, n * elsize);
    if (!p) return -1;
    *items = p;
    *cap = n;
    return 0;
}
