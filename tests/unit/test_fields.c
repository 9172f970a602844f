/* Which fields of a structure a code uses, from the bytes of L1 lines it referenced
 * (analysis/fields.c, docs/simulator.md "Spatial utilisation"): exact names for element sizes
 * that divide the line, at any phase of the array in the line, in granules for long lines. */
#include <string.h>

#include "analysis/fields.h"
#include "check.h"

/* struct rec { double x, y, z, w; char name[32]; } (64 bytes) */
static const ms_member REC[] = { { "x", 0, 8 }, { "y", 8, 8 }, { "z", 16, 8 }, { "w", 24, 8 }, { "name", 32, 32 } };
/* struct acc { double sum_x, sum_y; int n, id; double w; } (32 bytes) */
static const ms_member ACC[] = {
    { "sum_x", 0, 8 }, { "sum_y", 8, 8 }, { "n", 16, 4 }, { "id", 20, 4 }, { "w", 24, 8 }
};

/* Bits of bytes lo..hi of a 64-byte line. */
static uint64_t bytes(unsigned lo, unsigned hi) { return (~0ull >> (63 - (hi - lo))) << lo; }

int main(void)
{
    char out[96];
    /* x only, the array at the start of a line, then 16 bytes into it (a large malloc block) */
    CHECK_EQ_INT(ms_fields_touched(bytes(0, 7), 64, 0, REC, 5, 64, out, sizeof out), 1);
    CHECK(strcmp(out, "x") == 0);
    CHECK_EQ_INT(ms_fields_touched(bytes(16, 23), 64, 16, REC, 5, 64, out, sizeof out), 1);
    CHECK(strcmp(out, "x") == 0);
    /* the same bytes with the array at phase 0 are z */
    ms_fields_touched(bytes(16, 23), 64, 0, REC, 5, 64, out, sizeof out);
    CHECK(strcmp(out, "z") == 0);
    /* two 32-byte elements a line, at phase 48: sum_x at line bytes 16..23 and 48..55, n at 32..35 and 0..3 */
    uint64_t b = bytes(16, 23) | bytes(48, 55) | bytes(32, 35) | bytes(0, 3);
    CHECK_EQ_INT(ms_fields_touched(b, 64, 48, ACC, 5, 32, out, sizeof out), 2);
    CHECK(strcmp(out, "sum_x and n") == 0);
    /* three of them, part of name */
    ms_fields_touched(bytes(0, 15) | bytes(40, 41), 64, 0, REC, 5, 64, out, sizeof out);
    CHECK(strcmp(out, "x, y and name") == 0);
    /* 128-byte lines: a bit is 2 bytes; element of 64 bytes at phase 64 */
    CHECK_EQ_INT(ms_fields_touched(1ull << 32 | 1ull << 35, 128, 64, REC, 5, 64, out, sizeof out), 1);
    CHECK(strcmp(out, "x") == 0);
    /* an element size that does not divide the line, or no bits: nothing said */
    CHECK_EQ_INT(ms_fields_touched(bytes(0, 7), 64, 0, REC, 5, 48, out, sizeof out), 0);
    CHECK(out[0] == '\0');
    CHECK_EQ_INT(ms_fields_touched(0, 64, 0, REC, 5, 64, out, sizeof out), 0);
    /* too long for the buffer: cut with an ellipsis */
    char small[12];
    CHECK_EQ_INT(ms_fields_touched(~0ull, 64, 0, REC, 5, 64, small, sizeof small), 5);
    CHECK(strlen(small) < sizeof small && strstr(small, "...") != NULL);
    return check_result();
}
