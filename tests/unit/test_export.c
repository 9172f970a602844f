/* Exports and annotated source on the hand-built fixture model: exact CSV rows and quoting,
 * callgrind events, per-line costs, the line-0 remainder of each code segment and totals,
 * and the annotated lines with their stall shares. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "model_fixture.h"
#include "report/report.h"

typedef int (*writer)(FILE *out, const ms_model *m);

/* Everything a writer prints, as a malloc'd string. */
static char *capture(writer w, const ms_model *m, int *rc)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    *rc = w(f, m);
    fclose(f);
    return buf;
}

static void test_csv(ms_model *m)
{
    free(m->code[FX_MAIN].name);
    m->code[FX_MAIN].name = strdup("f<int, \"x\">");
    int rc;
    char *csv = capture(ms_export_csv, m, &rc);
    CHECK_EQ(rc, 0);
    CHECK_CONTAINS(csv, "code,data,file,line,refs,reads,writes,L1_misses,L1_read_misses,L1_write_misses,"
                        "L2_misses,L2_read_misses,L2_write_misses,L1_cold,L1_capacity,L1_conflict,"
                        "L1_invalidation,L2_cold,L2_capacity,L2_conflict,L2_invalidation,L2_writebacks,"
                        "stall,stall_read,stall_write\n");
    CHECK_CONTAINS(
        csv, "\nBlkMultiply,Matrix.Y,mm.c,20,1288,1288,0,871,871,0,100,100,0,0,600,271,0,100,0,0,0,5,855,855,0\n");
    CHECK_CONTAINS(csv, "\n\"f<int, \"\"x\"\">\",Matrix.Y,mm.c,10,200,");
    CHECK_CONTAINS(csv, "\nClearProduct,Matrix.Z,,30,210,10,200,");
    size_t rows = 0;
    for (const char *p = csv; *p; p++) rows += *p == '\n';
    CHECK_EQ(rows, 1 + m->ncells);
    free(csv);
}

static void test_callgrind(const ms_model *m)
{
    int rc;
    char *cg = capture(ms_export_callgrind, m, &rc);
    CHECK_EQ(rc, 0);
    CHECK_CONTAINS(cg, "# callgrind format\nversion: 1\ncreator: memspy 0.1.0\npid: 4242\ncmd: ./blkmm 295\n");
    CHECK_CONTAINS(cg, "\nevent: Conflict : L1 conflict misses\n");
    CHECK_CONTAINS(cg, "\nevents: Stall Refs Rd Wr L1m L1mr L1mw L2m L2mr L2mw Cold Capacity Conflict Inval "
                       "L2Cold L2Capacity L2Conflict L2Inval L2Wb StallRd StallWr\n");
    /* Lines 42 (Y) and 43 (Z) of BlkMultiply; its X references have no line: line 0. */
    CHECK_CONTAINS(cg,
                   "\nfl=mm.c\nfn=BlkMultiply\n42 855 1288 1288 0 871 871 0 100 100 0 0 600 271 0 100 0 0 0 5 855 0\n"
                   "43 77 600 500 100 70 60 10 0 0 0 20 30 20 0 0 0 0 0 0 70 7\n");
    CHECK_CONTAINS(cg, "\nfl=mm.c\nfn=BlkMultiply\n0 43 450 400 50 35 30 5 0 0 0 35 0 0 0 0 0 0 0 0 40 3\n");
    CHECK_CONTAINS(cg, "\nfl=mm.c\nfn=main\n0 17 300 150 150 17 9 8 0 0 0 17 0 0 0 0 0 0 0 0 9 8\n");
    CHECK_CONTAINS(cg, "\nfl=???\nfn=ClearProduct\n0 8 210 10 200 8 0 8 ");
    CHECK_CONTAINS(cg, "\ntotals: 1000 2848 2348 500 1001 970 31 100 100 0 80 630 291 0 100 0 0 0 5 974 26\n");
    free(cg);
}

static void test_annotate(const ms_model *m)
{
    char dir[] = "/tmp/memspy-annotate-XXXXXX", old[4096];
    CHECK(mkdtemp(dir) != NULL);
    CHECK(getcwd(old, sizeof old) != NULL);
    CHECK_EQ(chdir(dir), 0);
    FILE *src = fopen("mm.c", "w");
    for (int i = 1; i <= 44; i++) fprintf(src, "line %d\n", i);
    fclose(src);

    char *out = NULL, err[512] = "";
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    ms_annotate_opts plain = { .color = 0 };
    CHECK_EQ_INT(ms_report_annotate(f, m, "./mm.c", &plain, err, sizeof err), 0);
    fclose(f);
    CHECK_CONTAINS(out, "\n1288     871   855  85.5%    42  line 42\n");
    CHECK_CONTAINS(out, "\n 600      70    77   7.7%    43  line 43\n");
    CHECK_CONTAINS(out, "\n                             41  line 41\n");
    free(out);

    f = open_memstream(&out, &len);
    ms_annotate_opts color = { .color = 1 };
    CHECK_EQ_INT(ms_report_annotate(f, m, "mm.c", &color, err, sizeof err), 0);
    fclose(f);
    /* 85.5% of the stall: the 7th of 8 shades; 7.7%: the lightest. */
    CHECK_CONTAINS(out, "\n\033[48;5;124m\033[38;5;231m1288     871   855   42  line 42\033[0m\n");
    CHECK_CONTAINS(out, "\n\033[48;5;224m\033[38;5;16m 600      70    77   43  line 43\033[0m\n");
    free(out);

    f = open_memstream(&out, &len);
    CHECK_EQ_INT(ms_report_annotate(f, m, "other.c", &plain, err, sizeof err), -1);
    fclose(f);
    free(out);
    CHECK_STR(err, "no source file of the run matches 'other.c'; the run's files: mm.c");

    unlink("mm.c");
    CHECK_EQ(chdir(old), 0);
    rmdir(dir);
}

int main(void)
{
    ms_model m;
    fixture_build(&m);
    test_callgrind(&m);
    test_annotate(&m);
    test_csv(&m);
    ms_model_free(&m);
    return check_result();
}
