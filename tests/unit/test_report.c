/* Text reports on the hand-built fixture: the matrix (Figure 2) ordering, "others", exact
 * percentages and blanks, the zero-stall fallback, and the detailed display (Figure 3). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_fixture.h"
#include "report/report.h"
#include "report/text_fmt.h"

static char *matrix_text(const ms_model *m, int top_code, int top_data)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    ms_matrix_opts opts = { top_code, top_data };
    CHECK_EQ(ms_report_matrix(f, m, &opts), 0);
    fclose(f);
    return text;
}

static char *detail_text(const ms_model *m, const uint32_t *codes, size_t ncodes, const uint32_t *datas, size_t ndatas)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ(ms_report_detail(f, m, codes, ncodes, datas, ndatas), 0);
    fclose(f);
    return text;
}

static void test_matrix_others(const ms_model *m)
{
    char *t = matrix_text(m, 2, 2);
    if (getenv("SHOW")) fputs(t, stdout);
    CHECK_CONTAINS(t, "TOTAL APPLICATION STATISTICS\n");
    CHECK_CONTAINS(t, "Program: ./blkmm 295\n");
    CHECK_CONTAINS(t, "  L1: 32K, 2-way, 64-byte lines, 1 cycles, lru\n");
    CHECK_CONTAINS(t, "  L2: 1M, 8-way, 64-byte lines, 10 cycles, plru\n  memory: 50 cycles\n");
    CHECK_CONTAINS(t, "Total Memory Stall Time: 1000 cycles\n");
    CHECK_CONTAINS(t, "Overall Miss Rate (L1): 35.1%\n");
    CHECK_CONTAINS(t, "Total References: 2848\n  -Reads: 2348 (82.4%)  -Writes: 500 (17.6%)\n");
    CHECK_CONTAINS(t, "Total Misses (L1): 1001\n  -Reads: 970 (96.9%)  -Writes: 31 (3.1%)\n");
    CHECK_CONTAINS(t, "  -Causes: cold 8.0%  capacity 62.9%  conflict 29.1%  invalidation 0.0%\n");
    CHECK_CONTAINS(t, "L2 Misses: 100 (local miss rate 10.0%, 3.51% of references)\n");
    CHECK_CONTAINS(t, "Note: 3 events dropped\n");
    CHECK(strstr(t, "INCOMPLETE") == NULL);
    /* Legends by rank, the rest summarised; the never-referenced bin is not ranked. */
    CHECK_CONTAINS(t, "Data Bins:\n    0 : Matrix.Y\n    1 : Matrix.Z\n  others : 1 more data bins (5.1%)\n");
    CHECK_CONTAINS(t, "Code Segments:\n    0 : BlkMultiply\n    1 : main\n  others : 1 more code segments (0.8%)\n");
    /* The paper's Figure 2 numbers: largest top-left, Tot.% row and column, blanks for 0. */
    CHECK_CONTAINS(t, "                              Data Bins\n"
                      "Code Segments    Tot.%       0       1  others\n"
                      "         Tot.%   100.0    86.4     8.5     5.1\n"
                      "             0    97.5    85.5     7.7     4.3\n"
                      "             1     1.7     0.9             0.8\n"
                      "        others     0.8             0.8        \n");
    free(t);
}

static void test_matrix_all_shown(const ms_model *m)
{
    char *t = matrix_text(m, 0, 0); /* defaults: 8 x 6, everything fits */
    CHECK(strstr(t, "others") == NULL);
    CHECK_CONTAINS(t, "Data Bins:\n    0 : Matrix.Y\n    1 : Matrix.Z\n    2 : Matrix.X\nCode Segments:\n");
    CHECK_CONTAINS(t, "Code Segments    Tot.%       0       1       2\n"
                      "         Tot.%   100.0    86.4     8.5     5.1\n"
                      "             0    97.5    85.5     7.7     4.3\n"
                      "             1     1.7     0.9             0.8\n"
                      "             2     0.8             0.8        \n");
    free(t);
}

/* No stall at all: said so, ranked by L1 misses; no misses either: nothing to rank. */
static void test_matrix_zero_stall(ms_model *m)
{
    ms_model z;
    fixture_build(&z);
    for (size_t i = 0; i < z.ncells; i++) z.cells[i].c.stall_read = z.cells[i].c.stall_write = 0;
    z.totals.stall_read = z.totals.stall_write = 0;
    z.incomplete = true;
    z.incomplete_reason = strdup("the program called _exit");
    char *t = matrix_text(&z, 0, 0);
    CHECK_CONTAINS(t, "TOTAL APPLICATION STATISTICS\n*** INCOMPLETE: the program called _exit ***\n");
    CHECK_CONTAINS(t, "The total memory stall time is 0: ranking by L1 misses instead.\n");
    CHECK_CONTAINS(t, "Percentage of Total L1 Misses, broken down by data and code\n");
    /* BlkMultiply has 976 of 1001 misses = 97.5%; Matrix.Y 880 = 87.9%, Z 78, X 43. */
    CHECK_CONTAINS(t, "         Tot.%   100.0    87.9     7.8     4.3\n");
    CHECK_CONTAINS(t, "             0    97.5    87.0     7.0     3.5\n");
    free(t);
    for (size_t i = 0; i < z.ncells; i++) memset(&z.cells[i].c.level, 0, sizeof z.cells[i].c.level);
    memset(&z.totals.level, 0, sizeof z.totals.level);
    t = matrix_text(&z, 0, 0);
    CHECK_CONTAINS(t, "No memory stall and no misses: every reference hit in the first-level cache.\n");
    CHECK(strstr(t, "Data Bins:") == NULL);
    free(t);
    ms_model_free(&z);
    (void)m;
}

static void test_detail_cell(const ms_model *m)
{
    uint32_t code = FX_BLK, data = FX_Y;
    char *t = detail_text(m, &code, 1, &data, 1);
    if (getenv("SHOW")) fputs(t, stdout);
    CHECK_STR(t, "DETAILED OUTPUT: Matrix.Y in BlkMultiply\n"
                 "Memory Stall Time in bin: 855 cycles\n"
                 "Percentage of Total Memory Stall Time: 85.5%\n"
                 "Percentage of Total Misses: 87.0%\n"
                 "Miss Rate: 67.6%\n"
                 "Percentage of Total Refs: 45.2%\n"
                 "REFERENCES: 1288 --\n"
                 "  Reads: 1288 (100.0%)  Writes: 0 (0.0%)\n"
                 "MISSES: 871 --\n"
                 "  Read misses: 871 (100.0%)\n"
                 "  Write misses: 0 (0.0%)\n"
                 "1st Ref Miss: 0 (0.0%)\n"
                 "Inval Miss: 0 (0.0%)\n"
                 "Repl Miss: 871 (100.0%)\n"
                 "  -Capacity: 600 (68.9%)\n"
                 "  -Conflict: 271 (31.1%)\n"
                 "Memory Stall Time (Cycles):\n"
                 "  Total = 855, Avg per reference = 0.7\n"
                 "  Memory Read Stall Time = 855, Avg per read = 0.7\n"
                 "  Memory Write Stall Time = 0, Avg per write = 0.0\n"
                 "L2 MISSES: 100 (local miss rate 11.5% of L1 misses) --\n"
                 "  Read misses: 100 (100.0%)\n"
                 "  Write misses: 0 (0.0%)\n"
                 "  1st Ref Miss: 100 (100.0%)\n"
                 "  Inval Miss: 0 (0.0%)\n"
                 "  Repl Miss: 0 (0.0%)\n"
                 "    -Capacity: 0 (0.0%)\n"
                 "    -Conflict: 0 (0.0%)\n"
                 "Causes of Replacements:\n"
                 "  bin Matrix.Y: 90.0%\n"
                 "  bin Matrix.Z: 7.0%\n"
                 "  bin Matrix.X: 3.0%\n"
                 "  (100 of 871 L1 replacement misses have a known evictor)\n");
    free(t);
}

/* A whole code segment: sums of its cells, rates recomputed, evictors merged by data bin. */
static void test_detail_code(const ms_model *m)
{
    uint32_t code = FX_BLK;
    char *t = detail_text(m, &code, 1, NULL, 0);
    CHECK_CONTAINS(t, "DETAILED OUTPUT: all data in BlkMultiply\n");
    CHECK_CONTAINS(t, "Memory Stall Time in bin: 975 cycles\nPercentage of Total Memory Stall Time: 97.5%\n");
    CHECK_CONTAINS(t, "Miss Rate: 41.7%\n");
    CHECK_CONTAINS(t, "Causes of Replacements:\n  bin Matrix.Y: 86.7%\n  bin Matrix.Z: 11.3%\n  bin Matrix.X: 2.0%\n");
    free(t);
    uint32_t datas[] = { FX_X, FX_Z };
    t = detail_text(m, NULL, 0, datas, 2);
    CHECK_CONTAINS(t, "DETAILED OUTPUT: Matrix.X, Matrix.Z in all code\n");
    CHECK_CONTAINS(t, "Memory Stall Time in bin: 136 cycles\n");
    CHECK_CONTAINS(t, "Causes of Replacements:\n  bin Matrix.Y: 80.0%\n  bin Matrix.Z: 20.0%\n");
    free(t);
    uint32_t unused = FX_UNUSED;
    t = detail_text(m, NULL, 0, &unused, 1);
    CHECK_CONTAINS(t, "Miss Rate: 0.0%\n");
    CHECK_CONTAINS(t, "Causes of Replacements:\n  (no replacement miss with a known evictor)\n");
    free(t);
}

/* Findings that share their advice and check are advised once, under all their numbers. */
static void test_advice_once(ms_model *m)
{
    ms_finding f[3] = { { 0 } };
    for (int i = 0; i < 3; i++) {
        f[i].code = 0;
        f[i].data = 0;
        snprintf(f[i].text, sizeof f[i].text, "finding %d", i + 1);
    }
    snprintf(f[0].advice, sizeof f[0].advice, "block the loops");
    snprintf(f[1].advice, sizeof f[1].advice, "pad the rows");
    snprintf(f[1].whatif, sizeof f[1].whatif, "memspy whatif REC --pad 'A=8'");
    snprintf(f[2].advice, sizeof f[2].advice, "block the loops");
    size_t nsaved = m->nfindings;
    memcpy(m->findings, f, sizeof f);
    m->nfindings = 3;
    char *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    ms_fmt_findings(out, m, NULL, 0, NULL, 0);
    fclose(out);
    CHECK_STR(text, "FINDINGS\n  1. finding 1\n  2. finding 2\n  3. finding 3\n\n"
                    "ADVICE\n  1, 3. block the loops\n  2. pad the rows\n"
                    "     check it: memspy whatif REC --pad 'A=8'\n\n");
    free(text);
    /* the same advice with another check is a piece of advice of its own */
    snprintf(m->findings[2].whatif, sizeof m->findings[2].whatif, "memspy whatif REC --offset 'A=64'");
    out = open_memstream(&text, &len);
    uint32_t datas[1] = { 0 };
    ms_fmt_findings(out, m, NULL, 0, datas, 1);
    fclose(out);
    CHECK(strstr(text, "  1. block the loops\n  2. pad the rows\n") != NULL);
    CHECK(strstr(text, "  3. block the loops\n     check it: memspy whatif REC --offset 'A=64'\n") != NULL);
    free(text);
    m->nfindings = nsaved;
}

/* MTOOL's summary: where no mobject was sampled enough to be timed (a run of a few ms), a note
 * says why nothing is measured and what to do; none where one was timed. */
static void test_mtool_too_short(void)
{
    ms_mobject mo[2] = {
        { .kind = MS_MOBJ_PROCEDURE,
          .function = "main",
          .line = 3,
          .end_line = 9,
          .estimated_s = 0.002,
          .measured_s = 0.003,
          .samples = 3,
          .warnings = { MS_MOBJ_WARN_TOO_SHORT },
          .nwarnings = 1 },
        { .kind = MS_MOBJ_LOOP,
          .function = "main",
          .line = 5,
          .end_line = 6,
          .estimated_s = 0.001,
          .measured_s = 0.002,
          .samples = 2,
          .warnings = { MS_MOBJ_WARN_TOO_SHORT },
          .nwarnings = 1 },
    };
    ms_mtool_result r = { .cpu_model = "skylake",
                          .clock_hz = 3e9,
                          .period_ns = 1000000,
                          .samples = 5,
                          .predicted_s = 0.002,
                          .measured_s = 0.005,
                          .memory_overhead_s = 0.003,
                          .unexplained = 1.0,
                          .mobjects = mo,
                          .nmobjects = 2 };
    const char *note = "Note: no loop or procedure ran long enough to be timed (a sample every 1.0 ms of CPU time): "
                       "run the program on a larger input or sample more often (--period-us)\n";
    for (int timed = 0; timed < 2; timed++) {
        mo[0].timable = timed;
        char *text = NULL;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        CHECK_EQ(ms_report_mtool(f, &r, 20), 0);
        fclose(f);
        CHECK(text && (strstr(text, note) != NULL) == !timed);
        free(text);
    }
}

int main(void)
{
    ms_model m;
    fixture_build(&m);
    test_matrix_others(&m);
    test_matrix_all_shown(&m);
    test_matrix_zero_stall(&m);
    test_detail_cell(&m);
    test_detail_code(&m);
    test_advice_once(&m);
    test_mtool_too_short();
    ms_model_free(&m);
    return check_result();
}
