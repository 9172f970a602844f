/* Tests of the what-if address remapping (replay/remap.h): exact new addresses for padded
 * elements, aligned allocations found from the accesses, offsets, accesses split where they
 * cross a moved element, the fresh range's set-index arithmetic, and byte counts. */
#include <stdlib.h>

#include "check.h"
#include "replay/remap.h"

#define FRESH_SLOT (MS_REMAP_FRESH) /* the first bin's slot starts here (a 1 MiB multiple) */

/* One bin on context 1, observed over [lo, lo + len) in 8-byte accesses, then planned. */
static void setup(ms_remap *rm, const ms_remap_bin *spec, uint64_t lo, uint64_t len)
{
    CHECK_EQ_INT(ms_remap_init(rm, 3), 0);
    CHECK_EQ(ms_remap_add(rm, spec), 0);
    ms_remap_bind(rm, 1, 0);
    for (uint64_t a = lo; a < lo + len; a += 8) ms_remap_observe(rm, 1, a, 8);
    char err[128];
    CHECK_EQ_INT(ms_remap_plan(rm, err, sizeof err), 0);
}

static void test_pad_scalars(void)
{
    ms_remap rm;
    ms_remap_bin spec = { .elem = 8, .pad = 64 };
    setup(&rm, &spec, 0x5555555c52c0, 32); /* four longs */
    uint64_t to;
    CHECK_EQ(rm.bins[0].elements, 4);
    CHECK_EQ(rm.bins[0].base, FRESH_SLOT + 0xc52c0); /* the same offset in 1 MiB */
    CHECK_EQ(ms_remap_map(&rm, 1, 0x5555555c52c0 + 16, 8, &to), 8);
    CHECK_EQ(to, FRESH_SLOT + 0xc52c0 + 128); /* element 2, every 64 bytes */
    /* a 16-byte access over elements 1 and 2 is two pieces */
    CHECK_EQ(ms_remap_map(&rm, 1, 0x5555555c52c8, 16, &to), 8);
    CHECK_EQ(to, FRESH_SLOT + 0xc52c0 + 64);
    /* other contexts keep their addresses */
    CHECK_EQ(ms_remap_map(&rm, 2, 0x5555555c52c8, 16, &to), 16);
    CHECK_EQ(to, 0x5555555c52c8);
    ms_remap_free(&rm);
}

static void test_pad_rows(void)
{
    ms_remap rm;
    ms_remap_bin spec = { .elem = 2360, .pad = 2560 }; /* blkmatmul's Y: LD 295 -> 320 */
    setup(&rm, &spec, 0x7ffff716b010, 295 * 2360);
    uint64_t to;
    CHECK_EQ(rm.bins[0].elements, 295);
    CHECK_EQ(ms_remap_map(&rm, 1, 0x7ffff716b010 + 3 * 2360 + 40, 16, &to), 16);
    CHECK_EQ(to, FRESH_SLOT + 0x6b010 + 3 * 2560 + 40);
    ms_remap_free(&rm);
}

static void test_offset_keeps_colour(void)
{
    ms_remap rm;
    ms_remap_bin spec = { .offset = 1 << 20 };
    setup(&rm, &spec, 0x5555555d8000, 12288);
    uint64_t to;
    CHECK_EQ(ms_remap_map(&rm, 1, 0x5555555d8000 + 100, 8, &to), 8);
    CHECK_EQ(to % (1 << 20), (0x5555555d8000 + 100) % (1 << 20)); /* the same sets */
    ms_remap_free(&rm);
    ms_remap_bin back = { .offset = -64 };
    setup(&rm, &back, 0x1000, 64);
    CHECK_EQ(ms_remap_map(&rm, 1, 0x1000, 8, &to), 8);
    CHECK_EQ(to, FRESH_SLOT + 0x1000 - 64);
    ms_remap_free(&rm);
    setup(&rm, &back, 0x100010, 64); /* 16 bytes into 1 MiB: moved back, it would leave the slot */
    CHECK_EQ(ms_remap_map(&rm, 1, 0x100010, 8, &to), 8);
    CHECK_EQ(to, FRESH_SLOT + (1 << 20) + 0x10 - 64); /* 1 MiB further: still fresh, same sets */
    ms_remap_free(&rm);
}

static void test_align_allocations(void)
{
    ms_remap rm;
    ms_remap_bin spec = { .object = 8, .align = 64 };
    CHECK_EQ_INT(ms_remap_init(&rm, 3), 0);
    CHECK_EQ(ms_remap_add(&rm, &spec), 0);
    ms_remap_bind(&rm, 1, 0);
    ms_remap_bind(&rm, 2, 0);
    /* four 8-byte allocations, two 32 bytes apart, then a hole, then two more */
    const uint64_t at[] = { 0x4010, 0x4030, 0x4810, 0x4030, 0x4850, 0x4010 };
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) ms_remap_observe(&rm, 1 + (unsigned)(i & 1), at[i], 8);
    char err[128];
    CHECK_EQ_INT(ms_remap_plan(&rm, err, sizeof err), 0);
    CHECK_EQ(rm.bins[0].elements, 4);
    CHECK_EQ(rm.bins[0].stride, 64);
    CHECK_EQ(rm.bins[0].base, FRESH_SLOT + 0x4040); /* 0x4010 rounded up to 64 */
    uint64_t to;
    CHECK_EQ(ms_remap_map(&rm, 2, 0x4850 + 4, 4, &to), 4);
    CHECK_EQ(to, FRESH_SLOT + 0x4040 + 3 * 64 + 4);
    ms_remap_free(&rm);
}

static void test_refusals(void)
{
    ms_remap rm;
    char err[128];
    ms_remap_bin small = { .elem = 16, .pad = 8 }, odd = { .align = 48 };
    CHECK_EQ_INT(ms_remap_init(&rm, 1), 0);
    CHECK_EQ(ms_remap_add(&rm, &small), 0);
    CHECK_EQ_INT(ms_remap_plan(&rm, err, sizeof err), -1);
    CHECK_STR(err, "padding to 8 bytes is less than the element's 16");
    ms_remap_free(&rm);
    CHECK_EQ_INT(ms_remap_init(&rm, 1), 0);
    CHECK_EQ(ms_remap_add(&rm, &odd), 0);
    CHECK_EQ_INT(ms_remap_plan(&rm, err, sizeof err), -1);
    CHECK_STR(err, "alignment 48 is not a power of two");
    ms_remap_free(&rm);
}

static void test_bytes(void)
{
    int64_t v;
    CHECK_EQ_INT(ms_remap_parse_bytes("2360+64", &v), 0);
    CHECK_EQ(v, 2424);
    CHECK_EQ_INT(ms_remap_parse_bytes("16K", &v), 0);
    CHECK_EQ(v, 16384);
    CHECK_EQ_INT(ms_remap_parse_bytes("1MiB-64", &v), 0);
    CHECK_EQ(v, (1 << 20) - 64);
    CHECK_EQ_INT(ms_remap_parse_bytes("-64", &v), 0);
    CHECK_EQ_INT((int)v, -64);
    CHECK_EQ_INT(ms_remap_parse_bytes("", &v), -1);
    CHECK_EQ_INT(ms_remap_parse_bytes("12x", &v), -1);
    CHECK_EQ_INT(ms_remap_parse_bytes("4+", &v), -1);
}

int main(void)
{
    test_pad_scalars();
    test_pad_rows();
    test_offset_keeps_colour();
    test_align_allocations();
    test_refusals();
    test_bytes();
    return check_result();
}
