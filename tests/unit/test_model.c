/* Model helpers: derived counters, selection sums (rates recomputed from the summed counters,
 * replacement causes merged per data bin), per-bin totals and name lookup. */
#include "check.h"
#include "model_fixture.h"

static void test_counters(const ms_model *m)
{
    const ms_counters *t = &m->totals;
    CHECK_EQ(ms_counters_refs(t), 2848);
    CHECK_EQ(ms_counters_misses(t, 0), 1001);
    CHECK_EQ(ms_counters_misses(t, 1), 100);
    CHECK_EQ(ms_counters_misses(t, 7), 0);
    CHECK_EQ(ms_counters_stall(t), 1000);
    CHECK_EQ(ms_counters_replacements(t, 0), 921);
}

static void test_sum_code(const ms_model *m)
{
    ms_selection_sum s;
    uint32_t codes[] = { FX_BLK };
    CHECK_EQ(ms_model_sum(m, codes, 1, NULL, 0, &s), 0);
    CHECK_EQ(s.ncells, 3);
    CHECK_EQ(ms_counters_stall(&s.c), 975);
    CHECK_EQ(ms_counters_refs(&s.c), 2338);
    CHECK_EQ(ms_counters_misses(&s.c, 0), 976);
    /* The miss rate comes from the summed counters, not an average of the cells' rates. */
    CHECK_EQ((uint64_t)(1e6 * (double)ms_counters_misses(&s.c, 0) / (double)ms_counters_refs(&s.c)), 417450);
    /* Merged per (data, level): Y/L1 90+40, Y/L2 50, Z 7 (Blk) + 10 (Clear) -> code "several", X 3. */
    CHECK_EQ(s.nevicted_by, 4);
    if (s.nevicted_by == 4) {
        CHECK_EQ(s.evicted_by[0].data, FX_Y);
        CHECK_EQ(s.evicted_by[0].level, 0);
        CHECK_EQ(s.evicted_by[0].count, 130);
        CHECK_EQ(s.evicted_by[0].code, FX_BLK);
        CHECK_EQ(s.evicted_by[1].data, FX_Y);
        CHECK_EQ(s.evicted_by[1].level, 1);
        CHECK_EQ(s.evicted_by[1].count, 50);
        CHECK_EQ(s.evicted_by[2].data, FX_Z);
        CHECK_EQ(s.evicted_by[2].count, 17);
        CHECK_EQ(s.evicted_by[2].code, UINT32_MAX);
        CHECK_EQ(s.evicted_by[3].data, FX_X);
        CHECK_EQ(s.evicted_by[3].count, 3);
    }
    ms_selection_sum_free(&s);
    CHECK(s.evicted_by == NULL && s.nevicted_by == 0);
}

static void test_sum_combinations(const ms_model *m)
{
    ms_selection_sum s;
    uint32_t codes[] = { FX_MAIN, FX_CLEAR }, datas[] = { FX_Z, FX_X };
    CHECK_EQ(ms_model_sum(m, codes, 2, datas, 2, &s), 0);
    CHECK_EQ(s.ncells, 2); /* (main, X) and (ClearProduct, Z) */
    CHECK_EQ(ms_counters_stall(&s.c), 16);
    CHECK_EQ(s.c.writes, 250);
    ms_selection_sum_free(&s);

    CHECK_EQ(ms_model_sum(m, NULL, 0, NULL, 0, &s), 0); /* everything = the totals */
    CHECK_EQ(s.ncells, 6);
    CHECK(memcmp(&s.c, &m->totals, sizeof s.c) == 0);
    ms_selection_sum_free(&s);

    uint32_t unused[] = { FX_UNUSED };
    CHECK_EQ(ms_model_sum(m, NULL, 0, unused, 1, &s), 0);
    CHECK_EQ(s.ncells, 0);
    CHECK_EQ(ms_counters_refs(&s.c), 0);
    ms_selection_sum_free(&s);
}

static void test_bin_totals(const ms_model *m)
{
    ms_counters *code = NULL, *data = NULL;
    CHECK_EQ(ms_model_code_totals(m, &code), 0);
    CHECK_EQ(ms_model_data_totals(m, &data), 0);
    CHECK_EQ(ms_counters_stall(&code[FX_MAIN]), 17);
    CHECK_EQ(ms_counters_stall(&code[FX_BLK]), 975);
    CHECK_EQ(ms_counters_stall(&code[FX_CLEAR]), 8);
    CHECK_EQ(ms_counters_stall(&data[FX_X]), 51);
    CHECK_EQ(ms_counters_stall(&data[FX_Y]), 864);
    CHECK_EQ(ms_counters_stall(&data[FX_Z]), 85);
    CHECK_EQ(ms_counters_refs(&data[FX_UNUSED]), 0);
    free(code);
    free(data);
}

static void test_find(const ms_model *m)
{
    uint32_t idx[8];
    CHECK_EQ(ms_model_find_data(m, "Matrix.Y", idx, 8), 1);
    CHECK_EQ(idx[0], FX_Y);
    /* Exact full name. */
    CHECK_EQ(ms_model_find_data(m, "main:12>NewMatrix:30>Matrix.Z", idx, 8), 1);
    CHECK_EQ(idx[0], FX_Z);
    /* Globs on the short name, in bin order. */
    CHECK_EQ(ms_model_find_data(m, "Matrix.*", idx, 8), 3);
    CHECK_EQ(idx[0], FX_X);
    CHECK_EQ(idx[1], FX_Y);
    CHECK_EQ(idx[2], FX_Z);
    CHECK_EQ(ms_model_find_data(m, "Matrix.[XZ]", idx, 8), 2);
    CHECK_EQ(idx[1], FX_Z);
    /* A glob matching only full names. */
    CHECK_EQ(ms_model_find_data(m, "*NewMatrix*unused", idx, 8), 1);
    CHECK_EQ(idx[0], FX_UNUSED);
    /* cap limits what is filled, the count is still the number of matches. */
    idx[1] = 99;
    CHECK_EQ(ms_model_find_data(m, "*", idx, 1), 4);
    CHECK_EQ(idx[1], 99);
    CHECK_EQ(ms_model_find_data(m, "Matrix", idx, 8), 0);
    CHECK_EQ(ms_model_find_code(m, "BlkMultiply", idx, 8), 1);
    CHECK_EQ(idx[0], FX_BLK);
    CHECK_EQ(ms_model_find_code(m, "*Product", idx, 8), 1);
    CHECK_EQ(idx[0], FX_CLEAR);
    CHECK_EQ(ms_model_find_code(m, "nosuch", idx, 8), 0);
}

/* An exact short name wins over a glob that would match more. */
static void test_find_exact_first(void)
{
    ms_model m;
    ms_model_init(&m);
    m.ndata = 2;
    m.data = calloc(2, sizeof *m.data);
    m.data[0].name = strdup("a*");
    m.data[1].name = strdup("ab");
    uint32_t idx[2];
    CHECK_EQ(ms_model_find_data(&m, "a*", idx, 2), 1);
    CHECK_EQ(idx[0], 0);
    CHECK_EQ(ms_model_find_data(&m, "a?", idx, 2), 2);
    ms_model_free(&m);
    CHECK_EQ(m.ndata, 0);
    CHECK(m.data == NULL);
}

int main(void)
{
    ms_model m;
    fixture_build(&m);
    test_counters(&m);
    test_sum_code(&m);
    test_sum_combinations(&m);
    test_bin_totals(&m);
    test_find(&m);
    test_find_exact_first();
    ms_model_free(&m);
    return check_result();
}
