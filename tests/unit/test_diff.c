/* The comparison of two runs (ms_model_diff) on two hand-built models, and its text, JSON and
 * HTML reports: exact rows, order, presence flags and escaping.
 *
 * Run A is the fixture. Run B: its code bins in another order (main and BlkMultiply swapped),
 * BlkMultiply x Matrix.Y stalls 300 cycles instead of 855, Matrix.X was allocated elsewhere
 * (another full name: X vanished, X2 appeared) and ClearProduct comes from another file (one
 * vanished, one appeared). */
#define _GNU_SOURCE
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "model_fixture.h"
#include "model/gate.h"
#include "report/diff_report.h"
#include "report/gate_report.h"
#include "report/html.h"

static void build_second(ms_model *b)
{
    fixture_build(b);
    ms_code_bin tmp = b->code[FX_MAIN];
    b->code[FX_MAIN] = b->code[FX_BLK];
    b->code[FX_BLK] = tmp;
    for (size_t i = 0; i < b->ncells; i++)
        if (b->cells[i].code != FX_CLEAR) b->cells[i].code = 1 - b->cells[i].code;
    b->totals.stall_read -= 555;
    b->cells[0].c.stall_read = 300;
    free(b->data[FX_X].name);
    free(b->data[FX_X].full_name);
    b->data[FX_X].name = strdup("Matrix.X2");
    b->data[FX_X].full_name = strdup("main:12>NewMatrix:31>Matrix.X2");
    b->code[FX_CLEAR].file = strdup("clear.c");
}

typedef struct {
    const char *code, *file, *data;
    int64_t change;
    ms_diff_presence presence;
} expected_row;

static void check_rows(const char *what, const ms_diff_row *rows, size_t n, const expected_row *want, size_t nwant)
{
    CHECK_EQ(n, nwant);
    for (size_t i = 0; i < n && i < nwant; i++) {
        const ms_diff_row *r = &rows[i];
        if (want[i].code) CHECK_STR(r->code_name, want[i].code);
        if (want[i].code) CHECK_STR(r->code_file ? r->code_file : "(none)", want[i].file);
        if (want[i].data) CHECK_STR(r->data_name, want[i].data);
        CHECK_EQ_INT(r->stall_change, want[i].change);
        CHECK_EQ(r->presence, want[i].presence);
        if (r->stall_change != want[i].change) fprintf(stderr, "  (%s row %zu)\n", what, i);
    }
}

static void test_rows(const ms_diff *d)
{
    static const expected_row cells[] = {
        { "BlkMultiply", "mm.c", "Matrix.Y", -555, MS_DIFF_BOTH },
        { "BlkMultiply", "mm.c", "Matrix.X", -43, MS_DIFF_VANISHED },
        { "BlkMultiply", "mm.c", "Matrix.X2", 43, MS_DIFF_APPEARED },
        { "ClearProduct", "(none)", "Matrix.Z", -8, MS_DIFF_VANISHED },
        { "ClearProduct", "clear.c", "Matrix.Z", 8, MS_DIFF_APPEARED },
        { "main", "mm.c", "Matrix.X", -8, MS_DIFF_VANISHED },
        { "main", "mm.c", "Matrix.X2", 8, MS_DIFF_APPEARED },
        { "BlkMultiply", "mm.c", "Matrix.Z", 0, MS_DIFF_BOTH },
        { "main", "mm.c", "Matrix.Y", 0, MS_DIFF_BOTH },
    };
    static const expected_row data[] = {
        { NULL, NULL, "Matrix.Y", -555, MS_DIFF_BOTH },    { NULL, NULL, "Matrix.X", -51, MS_DIFF_VANISHED },
        { NULL, NULL, "Matrix.X2", 51, MS_DIFF_APPEARED }, { NULL, NULL, "Matrix.Z", 0, MS_DIFF_BOTH },
        { NULL, NULL, "unused", 0, MS_DIFF_BOTH },
    };
    static const expected_row code[] = {
        { "BlkMultiply", "mm.c", NULL, -555, MS_DIFF_BOTH },
        { "ClearProduct", "(none)", NULL, -8, MS_DIFF_VANISHED },
        { "ClearProduct", "clear.c", NULL, 8, MS_DIFF_APPEARED },
        { "main", "mm.c", NULL, 0, MS_DIFF_BOTH },
    };
    check_rows("cells", d->cells, d->ncells, cells, sizeof cells / sizeof *cells);
    check_rows("data", d->data, d->ndata, data, sizeof data / sizeof *data);
    check_rows("code", d->code, d->ncode, code, sizeof code / sizeof *code);

    /* Both runs' counters and indices of the matched cell (BlkMultiply is code 1 in A, 0 in B). */
    const ms_diff_row *y = &d->cells[0];
    CHECK_EQ_INT(y->code[0], FX_BLK);
    CHECK_EQ_INT(y->code[1], FX_MAIN);
    CHECK_EQ_INT(y->data[0], FX_Y);
    CHECK_EQ_INT(y->data[1], FX_Y);
    CHECK_EQ(y->c[0].reads, 1288);
    CHECK_EQ(ms_counters_misses(&y->c[0], 0), 871);
    CHECK_EQ(y->c[0].level[0].cause[MS_CAUSE_CAPACITY], 600);
    CHECK_EQ(ms_counters_stall(&y->c[0]), 855);
    CHECK_EQ(ms_counters_stall(&y->c[1]), 300);
    /* Absent sides are zero, and present ones carry the bin's totals. */
    CHECK_EQ(ms_counters_refs(&d->cells[1].c[1]), 0);
    CHECK_EQ_INT(d->cells[1].data[1], -1);
    CHECK_EQ(ms_counters_refs(&d->data[0].c[0]), 1288 + 200);
    CHECK_EQ(ms_counters_stall(&d->code[0].c[1]), 300 + 77 + 43);
    CHECK_EQ(ms_counters_stall(&d->totals[0]), 1000);
    CHECK_EQ(ms_counters_stall(&d->totals[1]), 445);
}

/* Text report: totals with the change, the first row marked better, vanished bins listed. */
static void test_text(const ms_diff *d)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ms_diff_labels labels = { { "run 1", "run 2" }, { NULL, NULL }, { NULL, NULL } };
    CHECK_EQ(ms_report_diff(out, d, &labels, 3), 0);
    fclose(out);
    CHECK_CONTAINS(text, "Total Memory Stall Time         1000       445      -555 -55.5%\n");
    CHECK_CONTAINS(text, "Better: 4 cells (-614 stall cycles); worse: 3 cells (+59 stall cycles)\n");
    CHECK_CONTAINS(text, "Cells, by change in memory stall time (3 of 9):\n");
    CHECK_CONTAINS(text, "  BlkMultiply   Matrix.Y       1288      1288       871       871       855       300"
                         "      -555  -64.9%  better\n");
    CHECK_CONTAINS(text, "      L1 miss causes A: cold 0, capacity 600, conflict 271, invalidation 0\n");
    CHECK_CONTAINS(text,
                   "Vanished data bins (only in A):\n  main:12>NewMatrix:30>Matrix.X: 51 stall cycles, 550 refs\n");
    CHECK_CONTAINS(text, "Appeared code segments (only in B):\n  ClearProduct: 8 stall cycles, 210 refs\n");
    free(text);
}

static void test_json(const ms_diff *d)
{
    ms_diff_labels labels = { { "a.result", "b.result" }, { NULL, NULL }, { NULL, NULL } };
    json_t *j = ms_diff_json(d, &labels);
    CHECK(j != NULL);
    json_t *first = json_array_get(json_object_get(j, "cells"), 0);
    CHECK_EQ_INT(json_integer_value(json_object_get(first, "stall_change")), -555);
    CHECK_STR(json_string_value(json_object_get(first, "presence")), "both");
    CHECK_EQ_INT(json_integer_value(json_object_get(json_object_get(first, "a"), "stall_cycles")), 855);
    json_t *gone = json_array_get(json_object_get(j, "cells"), 1);
    CHECK(json_is_null(json_object_get(gone, "b")));
    CHECK_STR(json_string_value(json_object_get(json_object_get(gone, "data"), "full_name")),
              "main:12>NewMatrix:30>Matrix.X");
    json_decref(j);
}

/* HTML: self-contained, the model embedded, and markup in names or arguments never reaches
 * the page as markup. */
static void test_html(ms_model *m)
{
    free(m->argv[1]);
    m->argv[1] = strdup("<img src=x onerror=alert(1)>");
    free(m->data[FX_Y].name);
    m->data[FX_Y].name = strdup("</script><script>alert(2)</script>");
    char *html = NULL, err[256] = "";
    size_t len = 0;
    FILE *out = open_memstream(&html, &len);
    CHECK_EQ(ms_report_html(out, m, "run <1>", err, sizeof err), 0);
    fclose(out);
    CHECK_CONTAINS(html, "<title>memspy: run &lt;1&gt;</title>");
    CHECK_CONTAINS(html, "./blkmm &lt;img src=x onerror=alert(1)&gt;");
    CHECK_CONTAINS(html, "<script type=\"application/json\" id=\"memspy-model\">");
    CHECK_CONTAINS(html, "\\u003c/script\\u003e\\u003cscript\\u003ealert(2)");
    CHECK(strstr(html, "<img") == NULL);
    CHECK(strstr(html, "alert(2)</script>") == NULL);
    CHECK(strstr(html, "http://") == NULL || strstr(html, "http://www.w3.org/2000/svg") != NULL);
    CHECK(strstr(html, "src=\"http") == NULL);
    /* mm.c does not exist here: listed with a reason, not embedded. */
    CHECK_CONTAINS(html, "{\"path\":\"mm.c\",\"reason\":\"not found\"}");
    free(html);
}

/* One rule checked alone: its number of results and failures, the first result's change. */
static void check_rule(const ms_diff *d, const char *text, size_t nres, long failed, double change)
{
    ms_gate_rule r;
    ms_gate_result *res = NULL;
    size_t n = 0;
    char err[512];
    CHECK_EQ(ms_gate_parse(text, &r, err, sizeof err), 0);
    long got = ms_gate_check(&r, 1, d, &res, &n, err, sizeof err);
    CHECK_EQ_INT(got, failed);
    CHECK_EQ(n, nres);
    if (n && (res[0].change > change + 1e-9 || res[0].change < change - 1e-9)) {
        fprintf(stderr, "%s: change %g, want %g\n", text, res[0].change, change);
        check_failures++;
    }
    free(res);
}

/* The regression gate (memspy diff --fail-if): A stalls 1000 cycles, B 445 (-55.5%); Matrix.Y
 * changes by -555, Matrix.X2 appears (+inf%), ClearProduct is two code rows (two files). */
static void test_gate(const ms_diff *d)
{
    check_rule(d, "stall>+5%", 1, 0, -55.5);
    check_rule(d, "stall<-50%", 1, 1, -55.5);
    check_rule(d, "stall<-60%", 1, 0, -55.5);
    check_rule(d, "stall>-556", 1, 1, -555);
    check_rule(d, "stall>-555", 1, 0, -555); /* at the limit: passes */
    check_rule(d, "stall@data:Matrix.Y>-600", 1, 1, -555);
    check_rule(d, "stall@data:main:12>NewMatrix:30>Matrix.Y>-500", 1, 0, -555);
    check_rule(d, "stall@data:Matrix.X2>+10%", 1, 1, INFINITY);
    check_rule(d, "refs@code:ClearProduct>+0", 2, 1, -210);

    ms_gate_rule r;
    char err[512];
    static const char *const bad[] = { "stall", "stal>1", "stall>", "stall>5x", "stall@nope>1", "stall@data:>1" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        if (ms_gate_parse(bad[i], &r, err, sizeof err) == 0) {
            fprintf(stderr, "rule '%s' accepted\n", bad[i]);
            check_failures++;
        }
    ms_gate_result *res = NULL;
    size_t n = 0;
    CHECK_EQ(ms_gate_parse("misses@data:nothing>1", &r, err, sizeof err), 0);
    CHECK_EQ_INT(ms_gate_check(&r, 1, d, &res, &n, err, sizeof err), -1);
    CHECK(strstr(err, "no data bin named 'nothing'") != NULL);

    /* The verdict as JSON: failures counted, infinite changes null. */
    CHECK_EQ(ms_gate_parse("stall@data:Matrix.X2>+10%", &r, err, sizeof err), 0);
    long failed = ms_gate_check(&r, 1, d, &res, &n, err, sizeof err);
    json_t *j = ms_gate_json(&r, res, n, failed);
    CHECK(j && json_is_false(json_object_get(j, "passed")));
    json_t *row = json_array_get(json_object_get(j, "results"), 0);
    CHECK(json_is_null(json_object_get(row, "change")) && json_integer_value(json_object_get(row, "before")) == 0);
    CHECK_STR(json_string_value(json_object_get(row, "bin")), "Matrix.X2");
    json_decref(j);
    free(res);
}

/* The diff's text with the C++ name above in both runs (COLUMNS: the width, NULL: none set). */
static char *long_name_diff(const char *long_name, const char *columns)
{
    ms_model a, b;
    fixture_build(&a);
    build_second(&b);
    free(a.code[FX_BLK].name);
    a.code[FX_BLK].name = strdup(long_name);
    free(b.code[FX_MAIN].name); /* build_second swapped main and BlkMultiply */
    b.code[FX_MAIN].name = strdup(long_name);
    ms_diff d;
    CHECK_EQ(ms_model_diff(&a, &b, &d), 0);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    ms_diff_labels labels = { { "run 1", "run 2" }, { NULL, NULL }, { NULL, NULL } };
    if (columns)
        setenv("COLUMNS", columns, 1);
    else
        unsetenv("COLUMNS");
    CHECK_EQ(ms_report_diff(out, &d, &labels, 3), 0);
    unsetenv("COLUMNS");
    fclose(out);
    ms_diff_free(&d);
    ms_model_free(&a);
    ms_model_free(&b);
    return text;
}

/* A name longer than the name column (a C++ template's) is printed on lines of its own, its
 * numbers on the next line, never cut: whole where it fits the width (100 columns when the
 * output is no terminal), else wrapped at the width with continuation lines indented 4 more
 * (here 6 spaces): the pieces joined give the name back. */
static void test_long_names(void)
{
    static const char long_name[] = "std::_Rb_tree<int, std::pair<int const, std::vector<double>>>::_M_insert";
    char *text = long_name_diff(long_name, NULL);
    CHECK_CONTAINS(text, "\n  std::_Rb_tree<int, std::pair<int const, std::vector<double>>>::_M_insert  Matrix.Y\n");
    CHECK_CONTAINS(text, "   1288      1288       871       871       855       300      -555  -64.9%  better\n");
    free(text);
    text = long_name_diff(long_name, "48");
    CHECK_CONTAINS(text, "\n  std::_Rb_tree<int, std::pair<int const, std\n"
                         "      ::vector<double>>>::_M_insert  Matrix.Y\n"
                         "                                                       1288      1288");
    /* the pieces joined: every line at most 48 columns, nothing cut */
    const char *p = strstr(text, "\n  std::_Rb_tree");
    char joined[256] = "";
    for (int line = 0; p && line < 2; line++) {
        p += 1 + (line ? 6 : 2);
        size_t n = strcspn(p, "\n");
        CHECK(n + (line ? 6 : 2) <= 48);
        strncat(joined, p, n);
        p += n;
    }
    CHECK_STR(joined, "std::_Rb_tree<int, std::pair<int const, std::vector<double>>>::_M_insert  Matrix.Y");
    free(text);
}

int main(void)
{
    ms_model a, b;
    ms_diff d;
    fixture_build(&a);
    build_second(&b);
    CHECK_EQ(ms_model_diff(&a, &b, &d), 0);
    test_rows(&d);
    test_text(&d);
    test_json(&d);
    test_gate(&d);
    ms_diff_free(&d);

    /* A run compared with itself: everything matched, nothing changed. */
    CHECK_EQ(ms_model_diff(&a, &a, &d), 0);
    CHECK_EQ(d.ncells, a.ncells);
    CHECK_EQ(d.ndata, a.ndata);
    CHECK_EQ(d.ncode, a.ncode);
    for (size_t i = 0; i < d.ncells; i++) {
        CHECK_EQ_INT(d.cells[i].stall_change, 0);
        CHECK_EQ(d.cells[i].presence, MS_DIFF_BOTH);
    }
    CHECK_STR(d.cells[0].data_name, "Matrix.Y"); /* ties ordered by the larger stall */
    ms_diff_free(&d);

    test_long_names();
    test_html(&a);
    ms_model_free(&a);
    ms_model_free(&b);
    return check_result();
}
