/* Text reports and exports of a 2-processor run (mp_fixture.h): the matrix header's coherence
 * lines, the per-processor table, the per-reference table (summed and per processor), the
 * detailed display's invalidations, causes and patterns, and the coherence columns/events of
 * the CSV and callgrind exports. SHOW=1 prints every output. */
#include <stdlib.h>

#include "check.h"
#include "mp_fixture.h"
#include "report/html.h"
#include "report/report.h"

typedef int (*render_fn)(FILE *out, const ms_model *m, const void *arg);

static char *render(const ms_model *m, render_fn fn, const void *arg)
{
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    CHECK_EQ(fn(f, m, arg), 0);
    fclose(f);
    if (getenv("SHOW")) fputs(text, stdout);
    return text;
}

static int matrix(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    return ms_report_matrix(out, m, NULL);
}
static int procs(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    return ms_report_procs(out, m);
}
static int refs(FILE *out, const ms_model *m, const void *arg) { return ms_report_references(out, m, arg); }
static int detail_all(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    return ms_report_detail(out, m, NULL, 0, NULL, 0);
}
static int csv(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    return ms_export_csv(out, m);
}
static int callgrind(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    return ms_export_callgrind(out, m);
}

static void test_matrix(const ms_model *m)
{
    char *t = render(m, matrix, NULL);
    CHECK_CONTAINS(t, "Multiprocessor: 2 processors, interleaved replay; private L1; MESI, 64-byte coherence unit\n");
    CHECK_CONTAINS(t, "Coherence Misses (L1): 38 (61.3% of L1 misses)\n");
    CHECK_CONTAINS(t, "Invalidations Received: 60\n"
                      "  -True sharing: 35 (58.3%)  -in region: 30  -across regions: 5\n"
                      "  -False sharing: 25 (41.7%)  -in region: 19  -across regions: 6\n"
                      "  -In region with a lock held: 25 (51.0% of in-region)\n"
                      "  -Followed by a coherence miss: 38 (63.3%)\n");
    free(t);
}

static void test_procs(const ms_model *m)
{
    char *t = render(m, procs, NULL);
    CHECK_CONTAINS(t, "False    False\n CPU Threads            Refs   Misses  Uniproc Coherence    Total       In   "
                      "Across       In   Across"
                      "     Lock     Miss     Wait\n");
    CHECK_CONTAINS(t, "   0 0,2                 190       37       13        24       38       20        4       10"
                      "        4       15       24        7\n");
    CHECK_CONTAINS(t, "   1 1                   140       25       11        14       22       10        1        9"
                      "        2       10       14        3\n");
    CHECK_CONTAINS(t, " all                     330       62       24        38       60       30        5       19"
                      "        6       25       38       10\n");
    free(t);
    ms_model one;
    ms_model_init(&one);
    t = render(&one, procs, NULL);
    CHECK_CONTAINS(t, "simulated on one processor");
    free(t);
}

static void test_references(const ms_model *m)
{
    ms_refs_opts summed = { 3, 0 }, per_cpu = { 2, 1 };
    char *t = render(m, refs, &summed);
    CHECK_CONTAINS(t, "PER-REFERENCE STATISTICS (top 3 of 5, summed over processors)\n");
    CHECK_CONTAINS(t, "Line                 Ref                        Misses  Ratio Coher.    Total       In   Across "
                      "      In   Across\n"
                      "nbf.c:141            f Read                         25  0.250   60.0       32       25        4 "
                      "       2        1\n"
                      "nbf.c:150            counters ReadWrite             20  0.200   90.0       20        0        0 "
                      "      16        4\n"
                      "nbf.c:141            f Write                        10  0.100   50.0        8        5        1 "
                      "       1        1\n");
    CHECK(strstr(t, "nbf.c:30") == NULL);
    free(t);
    t = render(m, refs, &per_cpu);
    CHECK_CONTAINS(t, "(top 2 of 8, per processor)\n");
    CHECK_CONTAINS(t, "nbf.c:141            f Read                      0      15  0.250   66.7       20       15      "
                      "  3        1        1\n"
                      "nbf.c:150            counters ReadWrite          0      10  0.200   90.0       10        0      "
                      "  0        8        2\n");
    free(t);
}

static void test_detail(const ms_model *m)
{
    char *t = render(m, detail_all, NULL);
    CHECK_CONTAINS(t, "INVALIDATIONS RECEIVED: 60 (sent: 60) --\n  True sharing: 35 (58.3%)");
    CHECK_CONTAINS(t, "Causes of Invalidations:\n"
                      "  worker writing bin f on cpu 1: 25 (41.7%)\n"
                      "  worker writing bin f on cpu 0: 15 (25.0%)\n"
                      "  worker writing bin counters on cpu 0: 10 (16.7%)\n"
                      "  worker writing bin counters on cpu 1: 10 (16.7%)\n");
    CHECK_CONTAINS(t, "Access Patterns (of 38 communication misses):\n"
                      "  single-producer/single-consumer: 5 (13.2%)\n"
                      "  multiple-producer/multiple-consumer: 18 (47.4%)\n"
                      "  migratory: 15 (39.5%)\n");
    free(t);
}

static void test_exports(const ms_model *m)
{
    char *t = render(m, csv, NULL);
    CHECK_CONTAINS(
        t, ",stall,stall_read,stall_write,coherence_misses,invalidations,invalidations_true,invalidations_false\n");
    CHECK_CONTAINS(t, "\nworker,f,src/nbf.c,130,");
    CHECK_CONTAINS(t, ",450,250,200,20,40,35,5\n");
    free(t);
    t = render(m, callgrind, NULL);
    CHECK_CONTAINS(t, "event: Coh : coherence misses (all levels)\n");
    CHECK_CONTAINS(t, "event: Inv : invalidations received\n");
    CHECK_CONTAINS(t, "\nevents: Stall Refs ");
    CHECK_CONTAINS(t, " StallRd StallWr Coh Inv InvTrue InvFalse\n");
    CHECK_CONTAINS(t, "\ntotals: 710 330 180 150 62 42 20 24 0 0 38 410 300 38 60 35 25\n");
    free(t);
}

static int html(FILE *out, const ms_model *m, const void *arg)
{
    (void)arg;
    char err[256];
    return ms_report_html(out, m, "nbf", err, sizeof err);
}

/* The page embeds the processors under the names its charts read. */
static void test_html(const ms_model *m)
{
    char *t = render(m, html, NULL);
    CHECK(strstr(t, "\"threads\": [") != NULL);
    CHECK(strstr(t, "\"uniprocessor\": 13,") != NULL);
    CHECK(strstr(t, "\"false_across\": 4") != NULL);
    CHECK_CONTAINS(t, "renderThreads(M.threads)");
    free(t);
}

int main(void)
{
    ms_model m;
    mp_fixture_build(&m);
    test_matrix(&m);
    test_procs(&m);
    test_references(&m);
    test_detail(&m);
    test_exports(&m);
    test_html(&m);
    ms_model_free(&m);
    return check_result();
}
