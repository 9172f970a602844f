/* t_names_paths: bit_mask read by this file's copy, and by unit_compress.c's. */
#include <stdio.h>
#include <stdlib.h>

#include "unit_table.h"

__attribute__((noinline)) static unsigned mask_decompress(unsigned i) { return bit_mask[i & 31]; }

int main(int argc, char **argv)
{
    unsigned n = argc > 5 ? (unsigned)atoi(argv[1]) : 1000, s = 0;
    for (unsigned i = 0; i < n; i++) s += mask_compress(i) ^ mask_decompress(i * 7);
    printf("%u\n", s);
    return 0;
}
