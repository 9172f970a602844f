/* The bin edits the run database replays (src/model/transform.c), on the blocked-matrix
 * fixture: renames by full name, and combinations whose cells, lines and replacement causes
 * are exact sums of the combined bins'. */
#define _GNU_SOURCE
#include "check.h"
#include "model_fixture.h"
#include "store_testutil.h"

static const ms_cell *find_cell(const ms_model *m, uint32_t code, uint32_t data)
{
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].code == code && m->cells[i].data == data) return &m->cells[i];
    return NULL;
}

static uint64_t evicted(const ms_cell *c, uint32_t code, uint32_t data, uint32_t level)
{
    for (size_t i = 0; c && i < c->nevicted_by; i++)
        if (c->evicted_by[i].code == code && c->evicted_by[i].data == data && c->evicted_by[i].level == level)
            return c->evicted_by[i].count;
    return 0;
}

static void test_rename(void)
{
    ms_model m;
    fixture_build(&m);
    CHECK_EQ_INT(ms_model_rename_bin(&m, "main:12>NewMatrix:30>Matrix.Y", "Y"), 1);
    CHECK_STR(m.data[FX_Y].name, "Y");
    CHECK_STR(m.data[FX_Y].full_name, "main:12>NewMatrix:30>Matrix.Y");
    CHECK_EQ_INT(ms_model_rename_bin(&m, "BlkMultiply", "Multiply"), 1);
    CHECK_STR(m.code[FX_BLK].name, "Multiply");
    CHECK_STR(ms_model_bin_full_name(&m, true, FX_BLK), "Multiply");
    CHECK_EQ_INT(ms_model_rename_bin(&m, "Matrix.Y", "Z2"), 0); /* short names do not match */
    ms_model_free(&m);
}

static void test_combine_data(void)
{
    ms_model m, orig;
    fixture_build(&m);
    fixture_build(&orig);
    ms_selection_sum want, got;
    uint32_t xz[] = { FX_Z, FX_X };
    CHECK_EQ_INT(ms_model_sum(&orig, NULL, 0, xz, 2, &want), 0);

    CHECK_EQ_INT(ms_model_combine_bins(&m, false, xz, 2, "XZ"), 0);
    /* X (index 0) takes the combined bin; Y and unused close up. */
    CHECK_EQ(m.ndata, 3);
    CHECK_STR(m.data[0].name, "XZ");
    CHECK_STR(m.data[0].full_name, "XZ");
    CHECK_STR(m.data[0].site, "mm.c:30");
    CHECK_EQ(m.data[0].objects, 2);
    CHECK_EQ(m.data[0].bytes, 2 * 295 * 295 * 8);
    CHECK_STR(m.data[1].name, "Matrix.Y");
    CHECK_STR(m.data[2].name, "unused");
    /* (BlkMultiply, X) and (BlkMultiply, Z) are one cell now: 6 cells -> 5. */
    CHECK_EQ(m.ncells, 5);
    const ms_cell *blk_xz = find_cell(&m, FX_BLK, 0), *blk_y = find_cell(&m, FX_BLK, 1);
    CHECK(blk_xz != NULL && blk_y != NULL);
    if (blk_xz && blk_y) {
        CHECK_EQ(blk_xz->c.reads, 900);
        CHECK_EQ(blk_xz->c.writes, 150);
        CHECK_EQ(blk_xz->c.stall_read + blk_xz->c.stall_write, 120);
        CHECK_EQ(blk_xz->c.level[0].cause[MS_CAUSE_COLD], 55);
        CHECK_EQ(evicted(blk_xz, FX_BLK, 1, 0), 40);   /* by Y, unchanged */
        CHECK_EQ(evicted(blk_xz, FX_CLEAR, 0, 0), 10); /* by Z -> by XZ */
        /* Y's causes: by Z (7) and by X (3) became one cause by XZ (10). */
        CHECK_EQ(evicted(blk_y, FX_BLK, 0, 0), 10);
        CHECK_EQ(evicted(blk_y, FX_BLK, 1, 0), 90);
        CHECK_EQ(evicted(blk_y, FX_BLK, 1, 1), 50);
        CHECK_EQ(blk_y->nevicted_by, 3);
        CHECK_EQ(blk_y->evicted_by[0].count, 90); /* still sorted by count */
    }
    uint32_t one = 0;
    CHECK_EQ_INT(ms_model_sum(&m, NULL, 0, &one, 1, &got), 0);
    CHECK(memcmp(&got.c, &want.c, sizeof got.c) == 0);
    CHECK_EQ(want.ncells, 4);
    CHECK_EQ(got.ncells, 3); /* (BlkMultiply, X) and (BlkMultiply, Z) merged */
    ms_selection_sum_free(&got);
    ms_selection_sum_free(&want);
    /* Totals unchanged; lines remapped. */
    CHECK(memcmp(&m.totals, &orig.totals, sizeof m.totals) == 0);
    CHECK_EQ(m.nlines, 2);
    CHECK_EQ(m.lines[1].data, 0);
    CHECK_EQ(m.lines[1].line, 43);
    /* The reader accepts what the combination produced. */
    char *json = model_json(&m), err[256];
    ms_model back;
    CHECK_EQ_INT(ms_json_read_buffer("combined", json, strlen(json), &back, err, sizeof err), 0);
    ms_model_free(&back);
    free(json);
    ms_model_free(&m);
    ms_model_free(&orig);
}

static void test_combine_code(void)
{
    ms_model m;
    fixture_build(&m);
    uint32_t codes[] = { FX_MAIN, FX_CLEAR };
    CHECK_EQ_INT(ms_model_combine_bins(&m, true, codes, 2, "setup"), 0);
    CHECK_EQ(m.ncode, 2);
    CHECK_STR(m.code[0].name, "setup");
    CHECK(m.code[0].file == NULL); /* mm.c and unknown disagree */
    CHECK_EQ_INT(m.code[0].line, 0);
    CHECK_STR(m.code[1].name, "BlkMultiply");
    /* (main, Z) did not exist: (ClearProduct, Z) becomes (setup, Z); (main, X/Y) stay. */
    CHECK_EQ(m.ncells, 6);
    const ms_cell *setup_z = find_cell(&m, 0, FX_Z);
    CHECK(setup_z && setup_z->c.writes == 200);
    /* The evictor recorded for ClearProduct is now setup's (index 0), BlkMultiply's is 1. */
    CHECK_EQ(evicted(find_cell(&m, 1, FX_Z), 0, FX_Z, 0), 10);
    uint32_t bad = 7;
    CHECK_EQ_INT(ms_model_combine_bins(&m, true, &bad, 1, "x"), -1);
    ms_model_free(&m);
}

int main(void)
{
    test_rename();
    test_combine_data();
    test_combine_code();
    return check_result();
}
