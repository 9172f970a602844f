/* The model's multiprocessor parts on a hand-built 2-processor run (mp_fixture.h): derived
 * counters, pattern names, selections merging causes of invalidations, the order of the
 * per-reference rows, and combining bins (cells, causes and reference rows merge). */
#include <stdlib.h>

#include "check.h"
#include "mp_fixture.h"

static void test_derived(const ms_model *m)
{
    CHECK_EQ(ms_counters_refs(&m->totals), 330);
    CHECK_EQ(ms_counters_misses(&m->totals, 0), 62);
    CHECK_EQ(ms_counters_coherence_misses(&m->totals), 38);
    CHECK_EQ(ms_counters_communication(&m->totals), 38);
    CHECK_EQ(m->totals.inval.received, 60);
    CHECK_STR(ms_pattern_name(MS_PAT_SPSC), "single-producer/single-consumer");
    CHECK_STR(ms_pattern_name(MS_PAT_SPMC), "single-producer/multiple-consumer");
    CHECK_STR(ms_pattern_name(MS_PAT_MPSC), "multiple-producer/single-consumer");
    CHECK_STR(ms_pattern_name(MS_PAT_MPMC), "multiple-producer/multiple-consumer");
    CHECK_STR(ms_pattern_name(MS_PAT_MIGRATORY), "migratory");
    CHECK_STR(ms_pattern_name(MS_PAT_COLD_START), "cold-start");
    CHECK_STR(ms_pattern_name(MS_NPATTERNS), "unknown");
}

static void test_sum(const ms_model *m)
{
    ms_selection_sum s;
    CHECK_EQ(ms_model_sum(m, NULL, 0, NULL, 0, &s), 0);
    CHECK_EQ(s.ncells, 4);
    CHECK_EQ(s.c.inval.received, 60);
    CHECK_EQ(s.c.inval.true_in, 30);
    CHECK_EQ(s.c.inval.false_in, 19);
    CHECK_EQ(s.c.inval.with_lock, 25);
    CHECK_EQ(s.c.pattern[MS_PAT_MIGRATORY], 15);
    CHECK_EQ(s.ninval_by, 4);
    if (s.ninval_by == 4) {
        /* count descending; the two tens ordered by cpu */
        CHECK_EQ(s.inval_by[0].count, 25);
        CHECK_EQ(s.inval_by[0].cpu, 1);
        CHECK_EQ(s.inval_by[1].count, 15);
        CHECK_EQ(s.inval_by[2].data, MP_COUNTERS);
        CHECK_EQ(s.inval_by[2].cpu, 0);
        CHECK_EQ(s.inval_by[3].cpu, 1);
    }
    ms_selection_sum_free(&s);
    uint32_t data = MP_COUNTERS;
    CHECK_EQ(ms_model_sum(m, NULL, 0, &data, 1, &s), 0);
    CHECK_EQ(s.ninval_by, 2);
    CHECK_EQ(s.c.inval.received, 20);
    CHECK_EQ(s.c.inval.false_across, 4);
    ms_selection_sum_free(&s);
}

/* R1, R5, R6, R2, R3, R7, R4, R8: L1 coherence misses, then misses, then the key. */
static void test_reference_order(const ms_model *m)
{
    static const int want_line[] = { 141, 150, 150, 141, 141, 30, 141, 141 };
    static const uint32_t want_cpu[] = { 0, 0, 1, 1, 0, 0, 1, 0 };
    static const uint32_t want_data[] = { MP_F, MP_COUNTERS, MP_COUNTERS, MP_F, MP_F, MP_F, MP_F, MP_G };
    CHECK_EQ(m->nrefs, 8);
    for (size_t i = 0; i < m->nrefs && i < 8; i++) {
        CHECK_EQ(m->refs[i].line, want_line[i]);
        CHECK_EQ(m->refs[i].cpu, want_cpu[i]);
        CHECK_EQ(m->refs[i].data, want_data[i]);
    }
}

static const ms_cell *find_cell(const ms_model *m, uint32_t code, uint32_t data)
{
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].code == code && m->cells[i].data == data) return &m->cells[i];
    return NULL;
}

static void test_combine_data(void)
{
    ms_model m;
    mp_fixture_build(&m);
    uint32_t idx[] = { MP_F, MP_G };
    CHECK_EQ(ms_model_combine_bins(&m, false, idx, 2, "fg"), 0);
    CHECK_EQ(m.ndata, 2);
    CHECK_EQ(m.ncells, 3);
    const ms_cell *c = find_cell(&m, MP_WORKER, 0);
    CHECK(c != NULL);
    if (c) {
        CHECK_EQ(c->c.reads, 110);
        CHECK_EQ(c->ninval_by, 2);
        if (c->ninval_by == 2) CHECK_EQ(c->inval_by[0].data, 0);
    }
    /* R1 and R8 share line 141, Read, cpu 0 once f and g are one bin. */
    CHECK_EQ(m.nrefs, 7);
    size_t merged = 0;
    for (size_t i = 0; i < m.nrefs; i++)
        if (m.refs[i].line == 141 && m.refs[i].cpu == 0 && m.refs[i].kind == MS_REF_READ) {
            merged++;
            CHECK_EQ(m.refs[i].c.reads, 70);
            CHECK_EQ(m.refs[i].c.inval.received, 20);
        }
    CHECK_EQ(merged, 1);
    CHECK_EQ(m.refs[0].c.reads, 70); /* the merged row leads: 10 coherence misses */
    CHECK_EQ(m.nprocs_stat, 2);
    CHECK_EQ(ms_counters_refs(&m.procs[0].c), 190);
    ms_model_free(&m);
}

static void test_combine_sharers(void)
{
    ms_model m;
    mp_fixture_build(&m);
    uint32_t idx[] = { MP_COUNTERS, MP_F };
    CHECK_EQ(ms_model_combine_bins(&m, false, idx, 2, "shared"), 0);
    const ms_cell *c = find_cell(&m, MP_WORKER, 0);
    CHECK(c != NULL);
    if (c && c->ninval_by == 2) {
        CHECK_EQ(c->inval_by[0].cpu, 1);
        CHECK_EQ(c->inval_by[0].count, 35);
        CHECK_EQ(c->inval_by[1].cpu, 0);
        CHECK_EQ(c->inval_by[1].count, 25);
        CHECK_EQ(c->c.inval.received, 60);
    } else {
        CHECK(!"(worker, shared) has 2 invalidation causes");
    }
    CHECK_EQ(m.nrefs, 8);
    uint32_t code_idx[] = { MP_WORKER, MP_MAIN };
    CHECK_EQ(ms_model_combine_bins(&m, true, code_idx, 2, "all"), 0);
    CHECK_EQ(m.ncells, 2);
    CHECK_EQ(m.nrefs, 8); /* main's line 30 is its own row */
    ms_selection_sum s;
    CHECK_EQ(ms_model_sum(&m, NULL, 0, NULL, 0, &s), 0);
    CHECK_EQ(s.ninval_by, 2);
    CHECK_EQ(s.c.inval.received, 60);
    ms_selection_sum_free(&s);
    ms_model_free(&m);
}

int main(void)
{
    ms_model m;
    mp_fixture_build(&m);
    test_derived(&m);
    test_sum(&m);
    test_reference_order(&m);
    ms_model_free(&m);
    test_combine_data();
    test_combine_sharers();
    return check_result();
}
