/* --focus names (format/focus_spec.h) and their check against a run's loops
 * (analysis/focus_names.c): the forms parsed, a name that matches nothing, one source loop
 * (its versions and nested loops with it), two sibling loops by one first line, a FILE:A-B
 * name whose lines a loop of another file shares, a loop the runtime's note says it did not
 * find, and the candidates listed. */
#include "analysis/focus_names.h"
#include "check.h"
#include "format/focus_spec.h"
#include <stdlib.h>
#include <string.h>

static ms_focus_spec parse(const char *name, int *rc)
{
    ms_focus_spec s;
    *rc = ms_focus_spec_parse(name, strlen(name), &s);
    return s;
}

static void test_parse(void)
{
    int rc;
    ms_focus_spec s = parse("gather", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_FUNCTION && s.func_len == 6);
    s = parse("ns::f", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_FUNCTION);
    s = parse("two_loops:loop@23-25", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_LOOP && s.func_len == 9 && !strncmp(s.func, "two_loops", 9) && !s.file);
    CHECK_EQ(s.line, 23);
    CHECK_EQ(s.end, 25);
    s = parse("main:loop@59", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_LOOP && s.line == 59 && s.end == 0);
    s = parse("src/k.c:12-14", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_LOOP && !s.func && s.file_len == 7 && s.line == 12 && s.end == 14);
    s = parse("k.c:7", &rc);
    CHECK(rc == 0 && s.kind == MS_FOCUS_LOOP && s.line == 7 && s.end == 0);
    s = parse("f:loop@x", &rc);
    CHECK(rc < 0);
    s = parse("f:loop@9-3", &rc);
    CHECK(rc < 0);
    s = parse(":12", &rc); /* no file: a (strange) function name */
    CHECK(rc == 0 && s.kind == MS_FOCUS_FUNCTION);
}

static ms_loop_stat loop(const char *fn, const char *file, int line, int end, uint32_t parent)
{
    return (ms_loop_stat){ (char *)fn, (char *)file, line, end, parent, parent == UINT32_MAX ? 1 : 2, 0, 0 };
}

static void test_check(void)
{
    ms_loop_stat loops[] = {
        loop("two_loops", "/s/a.c", 21, 22, UINT32_MAX), /* 0 */
        loop("two_loops", "/s/a.c", 23, 25, UINT32_MAX), /* 1 */
        loop("two_loops", "/s/a.c", 23, 25, UINT32_MAX), /* 2: a version of 1 */
        loop("nest", "/s/a.c", 45, 48, UINT32_MAX),      /* 3 */
        loop("nest", "/s/a.c", 45, 47, 3),               /* 4: nested, same first line */
        loop("same", "/s/a.c", 51, 51, UINT32_MAX),      /* 5 */
        loop("same", "/s/a.c", 51, 52, UINT32_MAX),      /* 6 */
        loop("other", "/s/b.c", 21, 22, UINT32_MAX),     /* 7: a.c's lines in b.c */
        loop("main._omp_fn.0", "/s/a.c", 70, 72, UINT32_MAX),
    };
    ms_model m;
    memset(&m, 0, sizeof m);
    m.loops = loops;
    m.nloops = sizeof loops / sizeof loops[0];
    char *msg = NULL;
    CHECK(ms_focus_check_loops(&m, "gather,two_loops:loop@23-25,a.c:23-25", &msg) == 0 && !msg);
    CHECK(ms_focus_check_loops(&m, "nest:loop@45", &msg) == 0);    /* the outer loop holds the other */
    CHECK(ms_focus_check_loops(&m, "main:loop@70-72", &msg) == 0); /* an OpenMP region's loop */
    CHECK(ms_focus_check_loops(&m, "two_loops:loop@1-2", &msg) < 0 && msg);
    CHECK(msg && strstr(msg, "--focus two_loops:loop@1-2: no loop of the run has that name; its loops:"));
    CHECK(msg && strstr(msg, "\n  two_loops:loop@23-25  (a.c:23-25, depth 1)"));
    CHECK(msg && strstr(msg, "\n  main:loop@70-72  (a.c:70-72, depth 1)"));
    CHECK(msg && !strstr(strstr(msg, "23-25") + 5, "two_loops:loop@23-25")); /* versions listed once */
    free(msg);
    CHECK(ms_focus_check_loops(&m, "same:loop@51", &msg) < 0);
    CHECK(msg &&
          strstr(msg, "names more than one loop; say which:\n  same:loop@51  (a.c:51-51, depth 1)\n  same:loop@51-52"));
    free(msg);
    CHECK(ms_focus_check_loops(&m, "a.c:21-22", &msg) < 0);
    CHECK(msg && strstr(msg, "loops of other files have these lines too") &&
          strstr(msg, "other:loop@21-22  (b.c:21-22"));
    free(msg);
    CHECK(ms_focus_check_loops(&m, "two_loops:loop@21-22", &msg) == 0); /* by function: fine */
    /* the runtime's note says it matched nothing for a name the loops table has */
    char *notes[] = { "focus: only two_loops:loop@21-22 (and what they call) simulated; about 5 references outside "
                      "were not; no loop named two_loops:loop@21-22" };
    m.notes = notes;
    m.nnotes = 1;
    CHECK(ms_focus_check_loops(&m, "two_loops:loop@21-22", &msg) < 0);
    CHECK(msg && strstr(msg, "the program's runtime found no such loop"));
    free(msg);
    CHECK(ms_focus_check_loops(&m, "two_loops:loop@21", &msg) == 0); /* another name */
}

int main(void)
{
    test_parse();
    test_check();
    return check_result();
}
