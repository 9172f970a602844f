/* Tests of OpenMP region names from the plugins' region records (analysis/ompnames.c), found
 * by name (without a symbolizer: t_omp_names covers the match by function start): the one of
 * the code's file where two units outline a function of one name, and the names without a
 * record. */
#include "analysis/ompnames.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void expect_name(const ms_raw *raw, const char *func, const char *file, int first, const char *want, int line)
{
    char *got = ms_omp_region_name(raw, NULL, NULL, func, file, first);
    if (!got || strcmp(got, want) != 0) {
        fprintf(stderr, "test_ompnames.c:%d: want '%s', got '%s'\n", line, want, got ? got : "NULL");
        check_failures++;
    }
    free(got);
}

int main(void)
{
    char *records[] = {
        "1\tc\t/s/a.c\tmalloc\t-\t1\t12\t5\tv\td\tdouble *\tx", /* a destination record: skipped */
        "omp\t/s/a.c\tmain\tparallel for\t15\tmain._omp_fn.0",
        "omp\t/s/a.c\tmain\tparallel\t21\t.omp_outlined.\t.omp_outlined._debug__",
        "omp\t/s/b.c\tsolve\ttask\t40\t.omp_outlined.",
        "omp\t/s/b.c\tsolve\tparallel sections\t30\t.omp_task_entry.",
    };
    ms_raw raw;
    memset(&raw, 0, sizeof raw);
    raw.dests = records;
    raw.ndests = sizeof records / sizeof *records;

    expect_name(&raw, "main._omp_fn.0", "/s/a.c", 16, "main: omp parallel for @15", __LINE__);
    expect_name(&raw, ".omp_outlined._debug__", "/s/a.c", 22, "main: omp parallel @21", __LINE__);
    /* two units outline a function of one name: the code's file picks the record */
    expect_name(&raw, ".omp_outlined.", "/build/a.c", 22, "main: omp parallel @21", __LINE__);
    expect_name(&raw, ".omp_outlined.", "b.c", 41, "solve: omp task @40", __LINE__);
    /* no record: the name says what it can */
    expect_name(&raw, "kernel._omp_fn.3", "/s/c.c", 77, "kernel: omp region @77", __LINE__);
    expect_name(&raw, ".omp_outlined..9", "/s/c.c", 78, "omp region @78", __LINE__);
    expect_name(NULL, "main._omp_fn.0", NULL, 5, "main: omp region @5", __LINE__);

    ms_omp_region r;
    CHECK(ms_omp_region_find(&raw, NULL, NULL, ".omp_task_entry.", NULL, &r));
    CHECK(strcmp(r.parent, "solve") == 0 && strcmp(r.kind, "parallel sections") == 0 && r.line == 30);
    CHECK(!ms_omp_region_find(&raw, NULL, NULL, "main", "/s/a.c", &r));
    CHECK(!ms_omp_region_find(&raw, NULL, NULL, "x", "/s/a.c", &r)); /* a destination record's path is no function */

    char fn[64];
    ms_omp_function(&raw, NULL, NULL, "main._omp_fn.0", "/s/a.c", fn, sizeof fn);
    CHECK(strcmp(fn, "main") == 0);
    ms_omp_function(&raw, NULL, NULL, "other._omp_fn.2", "/s/a.c", fn, sizeof fn);
    CHECK(strcmp(fn, "other") == 0);
    ms_omp_function(&raw, NULL, NULL, "plain", "/s/a.c", fn, sizeof fn);
    CHECK(strcmp(fn, "plain") == 0);
    return check_result();
}
