/* Tests of the row strides (analysis/strides.h): a blocked walk of a matrix (pieces of 64
 * doubles in 32-byte references, rows 2360 bytes apart, 64 rows a block) gives the row and
 * the piece; a column walk gives the row and one element; an unordered walk and contexts not
 * followed give nothing; another processor's references start a piece of their own. */
#include "analysis/strides.h"
#include "check.h"

#define ROW 2360

/* blocks x 64 rows of pieces of `piece` bytes from base, in 32-byte references, on ctx 1 */
static void blocked(ms_strides *s, uint64_t base, int blocks, uint64_t piece)
{
    for (int b = 0; b < blocks; b++)
        for (int k = 0; k < 64; k++)
            for (uint64_t j = 0; j < piece; j += 32)
                ms_strides_observe(s, 0, 1, base + (uint64_t)k * ROW + j + 512u * b, 32);
}

static void test_blocked(void)
{
    ms_strides s;
    uint64_t row, width;
    CHECK_EQ_INT(ms_strides_init(&s, 4), 0);
    CHECK_EQ_INT(ms_strides_add(&s, 7), 0);
    ms_strides_bind(&s, 1, 0);
    blocked(&s, 0x7ffff7084010, 4, 512);
    ms_strides_observe(&s, 0, 2, 0x1000, 8); /* not followed */
    ms_strides_result(&s, 0, &row, &width);
    CHECK_EQ(row, ROW);
    CHECK_EQ(width, 512);
    CHECK_EQ(s.bins[0].id, 7);
    ms_strides_free(&s);
}

static void test_columns(void)
{
    ms_strides s;
    uint64_t row, width;
    CHECK_EQ_INT(ms_strides_init(&s, 4), 0);
    CHECK_EQ_INT(ms_strides_add(&s, 1), 0);
    ms_strides_bind(&s, 3, 0);
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 256; i++) ms_strides_observe(&s, 0, 3, 0x555555558000 + (uint64_t)i * 2048 + 8u * j, 8);
    ms_strides_result(&s, 0, &row, &width);
    CHECK_EQ(row, 2048);
    CHECK_EQ(width, 8);
    ms_strides_free(&s);
}

static void test_nothing(void)
{
    ms_strides s;
    uint64_t row, width;
    CHECK_EQ_INT(ms_strides_init(&s, 4), 0);
    CHECK_EQ_INT(ms_strides_add(&s, 1), 0);
    ms_strides_bind(&s, 1, 0);
    uint64_t x = 12345;
    for (int i = 0; i < 1000; i++) { /* an unordered walk: no stride dominates */
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        ms_strides_observe(&s, 0, 1, 0x10000 + ((x >> 33) % 100000) * 8, 8);
    }
    ms_strides_result(&s, 0, &row, &width);
    CHECK_EQ(row, 0);
    /* two processors interleaved: each piece is its own */
    ms_strides_free(&s);
    CHECK_EQ_INT(ms_strides_init(&s, 4), 0);
    CHECK_EQ_INT(ms_strides_add(&s, 1), 0);
    ms_strides_bind(&s, 1, 0);
    for (int k = 0; k < 64; k++) {
        ms_strides_observe(&s, 0, 1, 0x10000 + (uint64_t)k * ROW, 8);
        ms_strides_observe(&s, 1, 1, 0x90000 + (uint64_t)k * ROW, 8);
    }
    ms_strides_result(&s, 0, &row, &width);
    CHECK_EQ(row, 0); /* a new processor starts a piece without a stride: none counted */
    ms_strides_free(&s);
}

int main(void)
{
    test_blocked();
    test_columns();
    test_nothing();
    return check_result();
}
