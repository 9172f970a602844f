/* Tests of the model of glibc's placement (replay/allocmove.h): exact moves of the blocks
 * after a grown mapping (blkmatmul's Y padded from 2360- to 2560-byte rows: 170 to 185 pages,
 * Y and Z 61440 bytes lower, X in place, as native glibc places them), after a grown arena
 * chunk (later chunks of the same arena above it only), after an arena block that grows into
 * a mapping, after a realigned block; and what is left alone (bins of several blocks of both
 * kinds, blocks allocated before, nothing recorded). */
#include "check.h"
#include "replay/allocmove.h"

#define MAPPED(bytes) ((bytes) | MS_GLIBC_IS_MMAPPED)

static void test_sizes(void)
{
    CHECK_EQ(ms_glibc_chunk(1), 32);
    CHECK_EQ(ms_glibc_chunk(24), 32);
    CHECK_EQ(ms_glibc_chunk(25), 48);
    CHECK_EQ(ms_glibc_chunk(64), 80);
    CHECK_EQ(ms_glibc_mapping(696200, 0), 696320); /* 170 pages */
    CHECK_EQ(ms_glibc_mapping(755200, 0), 757760); /* 185 pages */
    /* memalign(4096, ...): chunk + alignment + 32 */
    CHECK_EQ(ms_glibc_mapping(696200, 4096), 700416); /* 696208 + 4096 + 32 + 8 -> 171 pages */
}

/* blkmatmul: X, Y, Z mapped top-down; Y's rows padded to 2560 bytes. */
static void test_mapped(void)
{
    ms_heap_block v[3] = {
        { .seq = 1, .addr = 0x7ffff7d25010, .request = 696200, .word = MAPPED(696320), .blocks = 1, .mapped = 1 },
        { .seq = 2, .addr = 0x7ffff7c7b010, .request = 696200, .word = MAPPED(696320), .blocks = 1, .mapped = 1 },
        { .seq = 3, .addr = 0x7ffff7bd1010, .request = 696200, .word = MAPPED(696320), .blocks = 1, .mapped = 1 },
    };
    v[1].new_request = 755200;
    ms_glibc_moves(v, 3);
    CHECK_EQ_INT(v[0].shift, 0);
    CHECK_EQ_INT(v[1].shift, -61440); /* natively: 0x7ffff7c7b010 -> 0x7ffff7c6c010 */
    CHECK_EQ_INT(v[2].shift, -61440);
    CHECK_EQ_INT(v[1].growth, 61440);
    /* X padded instead: all three move (X itself too: its end stays) */
    v[1].new_request = 0;
    v[0].new_request = 755200;
    ms_glibc_moves(v, 3);
    CHECK_EQ_INT(v[0].shift, -61440);
    CHECK_EQ_INT(v[1].shift, -61440);
    CHECK_EQ_INT(v[2].shift, -61440);
    /* both: the moves add up */
    v[1].new_request = 755200;
    ms_glibc_moves(v, 3);
    CHECK_EQ_INT(v[2].shift, -122880);
    CHECK_EQ_INT(v[1].shift, -122880);
    /* a realigned Y: one page more */
    v[0].new_request = v[1].new_request = 0;
    v[1].align = 4096;
    ms_glibc_moves(v, 3);
    CHECK_EQ_INT(v[1].shift, -4096);
    CHECK_EQ_INT(v[2].shift, -4096);
    CHECK_EQ_INT(v[0].shift, 0);
}

/* Arena chunks: a 64-byte block padded to 512 bytes moves the later chunks above it by 448;
 * one below it (a reused chunk), one of another arena and one allocated before stay. */
static void test_arena(void)
{
    ms_heap_block v[5] = {
        { .seq = 1, .addr = 0x5555555592a0, .request = 16, .word = 32 | 1, .blocks = 1 },
        { .seq = 2, .addr = 0x5555555592c0, .request = 64, .word = 80 | 1, .blocks = 1 },
        { .seq = 3, .addr = 0x555555559310, .request = 100, .word = 112 | 1, .blocks = 4 }, /* 4 blocks, all arena */
        { .seq = 4, .addr = 0x555555559000, .request = 16, .word = 32 | 1, .blocks = 1 },   /* below: reused */
        { .seq = 5, .addr = 0x7ffff0000b00, .request = 16, .word = 32 | 1 | MS_GLIBC_NON_MAIN_ARENA, .blocks = 1 },
    };
    v[1].new_request = 512;
    ms_glibc_moves(v, 5);
    CHECK_EQ_INT(v[1].growth, 448); /* 80 -> 528 */
    CHECK_EQ_INT(v[0].shift, 0);
    CHECK_EQ_INT(v[1].shift, 0);
    CHECK_EQ_INT(v[2].shift, 448);
    CHECK_EQ_INT(v[3].shift, 0);
    CHECK_EQ_INT(v[4].shift, 0);
    /* a bin of several blocks causes nothing */
    v[1].new_request = 0;
    v[2].new_request = 4096;
    ms_glibc_moves(v, 5);
    for (int i = 0; i < 5; i++) CHECK_EQ_INT(v[i].shift, 0);
}

/* An arena block grown past the threshold leaves the arena: later chunks above it move down
 * by its old chunk, later mappings down by its new mapping; a bin of both kinds stays. */
static void test_to_mapping(void)
{
    ms_heap_block v[4] = {
        { .seq = 1, .addr = 0x555555559000, .request = 100000, .word = 100016 | 1, .blocks = 1 },
        { .seq = 2, .addr = 0x55555557f6b0, .request = 1000, .word = 1008 | 1, .blocks = 1 },
        { .seq = 3, .addr = 0x7ffff7d25010, .request = 696200, .word = MAPPED(696320), .blocks = 1, .mapped = 1 },
        { .seq = 4, .addr = 0x7ffff7c7b010, .request = 696200, .word = MAPPED(696320), .blocks = 2, .mapped = 1 },
    };
    v[0].new_request = 200000;
    ms_glibc_moves(v, 4);
    CHECK(v[0].remapped);
    CHECK_EQ_INT(v[0].shift, 0);
    CHECK_EQ_INT(v[1].shift, -100016);
    CHECK_EQ_INT(v[2].shift, -200704); /* 200000 + 8 -> 200016 + 8 -> 49 pages */
    CHECK_EQ_INT(v[3].shift, 0);
    /* nothing recorded: nothing moves, nothing is moved */
    v[0].seq = 0;
    ms_glibc_moves(v, 4);
    for (int i = 0; i < 4; i++) CHECK_EQ_INT(v[i].shift, 0);
}

int main(void)
{
    test_sizes();
    test_mapped();
    test_arena();
    test_to_mapping();
    return check_result();
}
