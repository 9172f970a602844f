/* t_names_paths: bit_mask read by this file's copy. */
#include "unit_table.h"

__attribute__((noinline)) unsigned mask_compress(unsigned i) { return bit_mask[i & 31]; }
