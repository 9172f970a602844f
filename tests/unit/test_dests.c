/* Tests of the allocation destination records (analysis/dests.c): parsing, matching a record
 * to a return address's frames by position at every inline level, names and wrappers. */
#include "analysis/dests.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

static int failures_at(const char *what, const char *got, const char *want, int line)
{
    if ((want == NULL) != (got == NULL) || (want && strcmp(want, got) != 0)) {
        fprintf(stderr, "test_dests.c:%d: %s: want %s, got %s\n", line, what, want ? want : "NULL", got ? got : "NULL");
        check_failures++;
    }
    return 0;
}
#define EXPECT_STR(what, got, want)            \
    do {                                       \
        char *g_ = (got);                      \
        failures_at(what, g_, want, __LINE__); \
        free(g_);                              \
    } while (0)

static void test_types(void)
{
    EXPECT_STR("double", ms_dest_type("double *"), "double*");
    EXPECT_STR("long", ms_dest_type("long int *"), "long*");
    EXPECT_STR("unsigned long", ms_dest_type("long unsigned int *"), "unsigned long*");
    EXPECT_STR("struct", ms_dest_type("struct S *"), "S*");
    EXPECT_STR("const char", ms_dest_type("const char * *"), "char**");
    EXPECT_STR("unsigned char", ms_dest_type("unsigned char *"), "unsigned char*");
    EXPECT_STR("short", ms_dest_type("short int *"), "short*");
    EXPECT_STR("long long", ms_dest_type("long long int *"), "long long*");
    EXPECT_STR("int", ms_dest_type("int *"), "int*");
}

static ms_frame frame(const char *file, int line, int col)
{
    ms_frame f = { "f", NULL, 0, file, line, col, NULL, NULL, false, false };
    return f;
}

static void test_records(void)
{
    char *recs[] = {
        /* a wrapper: p declared with the call, returned, not used otherwise */
        "1\tc\tw.c\tmalloc\tr\t1\t16\t15\tv\td\tvoid *\tp",
        /* the wrapper inlined into main twice: the element rows[], and nothing named */
        "1\tc\tw.c\tmalloc\t-\t2\t16\t15\tv\td\tvoid *\tp\t39\t19\tm\t-\tdouble *\trows[]",
        "1\tc\tw.c\tmalloc\t-\t2\t16\t15\tv\td\tvoid *\tp\t41\t3\t-\tu\t\t",
        /* a declaration, a plain variable, a field through this, a Fortran array */
        "1\tc\tw.c\tf\t-\t1\t31\t17\tv\tdu\tdouble *\tA",
        "1\tc\tw.c\tf\t-\t1\t32\t5\tv\tu\tdouble *\tgrid",
        /* a local pointer declared before the call ("l"), a local struct, a local in a record
         * of a plugin before "l" */
        "2\tc\tw.c\tf\t-\t1\t33\t5\tv\tlu\tdouble *\tw",
        "2\tc\tw.c\tf\t-\t1\t34\t5\tv\tl\tbuffer_t\tbuf",
        "2\tc\tw.c\tf\t-\t1\t35\t5\tv\tu\tdouble *\tw",
        "1\tc++\tw.cc\tf\t-\t1\t7\t9\tm\tu\tdouble *\tthis.cells_",
        "1\tc++\tw.cc\tf\t-\t1\t8\t9\tm\tu\tNode *\ta.b.c",
        "1\tf\ta.f90\tmalloc\t-\t1\t12\t0\tm\t-\treal(kind=8)[0:] * restrict\tfield.data",
        "1\tc\tw.c\tcalloc\t-\t2\t62\t13\tm\t-\tdouble *\tM.nz\t155\t9\to\tu\tstruct SparseMatrix\tM",
        /* a newer record format, and a malformed one: skipped */
        "3\tc\tw.c\tmalloc\t-\t1\t16\t15\tv\td\tvoid *\tq",
        "1\tc\tw.c\tmalloc\t-\t3\t16",
    };
    ms_dests *d;
    CHECK_EQ(ms_dests_new(recs, NULL, sizeof recs / sizeof *recs, &d), 0);
    ms_frame f1[] = { frame("/src/w.c", 16, 15) };
    const ms_dest *r = ms_dests_find(d, f1, 1, 0);
    CHECK_EQ(r != NULL, 1);
    bool weak;
    EXPECT_STR("best of a wrapper alone", ms_dest_best_name(r, &weak), "void*.p");
    CHECK_EQ(weak, 1);
    EXPECT_STR("wrapper's own name", ms_dest_name(r, 0), "void*.p");
    CHECK_EQ(ms_dest_passed_out(r, 0), 1);

    ms_frame f2[] = { frame("/src/w.c", 16, 15), frame("/src/w.c", 39, 19) };
    r = ms_dests_find(d, f2, 2, 0);
    EXPECT_STR("inlined: level 0", ms_dest_name(r, 0), "void*.p");
    EXPECT_STR("inlined: level 1", ms_dest_name(r, 1), "rows[]");
    CHECK_EQ(ms_dest_passed_out(r, 0), 1);
    CHECK_EQ(ms_dest_passed_out(r, 1), 0);

    bool out;
    EXPECT_STR("best: past the wrapper", ms_dest_best_name(r, &out), "rows[]");
    CHECK_EQ(out, 0);

    ms_frame f3[] = { frame("w.c", 16, 15), frame("w.c", 41, 3) };
    r = ms_dests_find(d, f3, 2, 0);
    EXPECT_STR("inlined, used by main, names nothing there", ms_dest_name(r, 1), NULL);
    CHECK_EQ(ms_dest_passed_out(r, 0), 1); /* the wrapper's p gives way to the source's name */
    CHECK_EQ(ms_dest_passed_out(r, 1), 0);

    ms_frame f4[] = { frame("w.c", 16, 15), frame("w.c", 50, 3) };
    CHECK_EQ(ms_dests_find(d, f4, 2, 0) == NULL, 1); /* two records match level 0 alike: none */
    ms_frame other[] = { frame("x.c", 16, 15) };
    CHECK_EQ(ms_dests_find(d, other, 1, 0) == NULL, 1);
    ms_frame col[] = { frame("w.c", 16, 14) };
    CHECK_EQ(ms_dests_find(d, col, 1, 0) == NULL, 1);

    /* stored in a member by an inlined constructor-like function: its name holds, though the
     * caller (whose object holds it) uses the value too */
    ms_frame fm[] = { frame("w.c", 62, 13), frame("w.c", 155, 9) };
    r = ms_dests_find(d, fm, 2, 0);
    EXPECT_STR("member at level 0", ms_dest_name(r, 0), "M.nz");
    CHECK_EQ(ms_dest_passed_out(r, 0), 0);

    ms_frame fa[] = { frame("w.c", 31, 17) }, fg[] = { frame("w.c", 32, 5) };
    EXPECT_STR("declared: Type.var", ms_dest_name(ms_dests_find(d, fa, 1, 0), 0), "double*.A");
    EXPECT_STR("assigned: var", ms_dest_name(ms_dests_find(d, fg, 1, 0), 0), "grid");
    ms_frame fw[] = { frame("w.c", 33, 5) }, fs[] = { frame("w.c", 34, 5) }, fo[] = { frame("w.c", 35, 5) };
    EXPECT_STR("a local pointer assigned: Type.var", ms_dest_name(ms_dests_find(d, fw, 1, 0), 0), "double*.w");
    EXPECT_STR("a local struct: var", ms_dest_name(ms_dests_find(d, fs, 1, 0), 0), "buf");
    EXPECT_STR("no l: var", ms_dest_name(ms_dests_find(d, fo, 1, 0), 0), "w");
    ms_frame fc[] = { frame("w.cc", 7, 9) }, fb[] = { frame("w.cc", 8, 9) };
    EXPECT_STR("this dropped", ms_dest_name(ms_dests_find(d, fc, 1, 0), 0), "cells_");
    EXPECT_STR("last two parts", ms_dest_name(ms_dests_find(d, fb, 1, 0), 0), "b.c");
    ms_frame ff[] = { frame("a.f90", 12, 0) };
    EXPECT_STR("Fortran: the array", ms_dest_name(ms_dests_find(d, ff, 1, 0), 0), "field");
    ms_dests_free(d);

    /* two calls at one position (Fortran's allocate (g%u(n), g%v(n))): told apart by the label
     * before each one's return address */
    char *two[] = { "1\tf\ta.f90\tmalloc\t-\t1\t10\t28\tm\t-\tvoid *\tg.u.data",
                    "1\tf\ta.f90\tmalloc\t-\t1\t10\t28\tm\t-\tvoid *\tg.v.data" };
    uint64_t pcs[] = { 0x1000, 0x1010, 0x1040, 0 };
    CHECK_EQ(ms_dests_new(two, pcs, 2, &d), 0);
    ms_frame fu[] = { frame("a.f90", 10, 28) };
    EXPECT_STR("first call", ms_dest_name(ms_dests_find(d, fu, 1, 0x1020), 0), "g.u");
    EXPECT_STR("second call", ms_dest_name(ms_dests_find(d, fu, 1, 0x1060), 0), "g.v");
    CHECK_EQ(ms_dests_find(d, fu, 1, 0x800) == NULL, 1);                             /* before both labels: neither */
    ms_frame bare[] = { { "main", NULL, 0, NULL, 0, 0, NULL, NULL, false, false } }; /* no line information */
    EXPECT_STR("labels around ra", ms_dest_name(ms_dests_find(d, bare, 1, 0x1010), 0), "g.u");
    CHECK_EQ(ms_dests_find(d, bare, 1, 0x1011) == NULL, 1);
    CHECK_EQ(ms_dests_find(d, bare, 1, 0x1060) == NULL, 1); /* no end label */
    ms_dests_free(d);

    CHECK_EQ(ms_dests_new(NULL, NULL, 0, &d), 0);
    CHECK_EQ(d == NULL, 1);
    CHECK_EQ(ms_dests_find(NULL, f1, 1, 0) == NULL, 1);
}

/* zstd's getBuffer: `buffer.start = start; return buffer;` (flag r), then the caller's
 * `dstBuff = get_buffer(n)` and `job->dst = get_buffer(n)`; a member call's object (flag o). */
static void test_returned_parts(void)
{
    char *recs[] = {
        "1\tc\tz.c\tcustom_malloc\tr\t1\t12\t26\tm\tr\tvoid *\tbuffer.start",
        "1\tc\tz.c\tget_buffer\t-\t1\t21\t23\tv\td\tbuffer_t\tdstBuff",
        "1\tc\tz.c\tget_buffer\t-\t1\t22\t14\tm\t-\tbuffer_t\tjob.dst",
        "1\tc\tz.c\tget_result\t-\t1\t23\t14\tm\tr\tvoid *\tstart",
        "1\tc++\ts.cc\tappend\to\t1\t30\t5\tm\t-\tstring\tthis.data_",
    };
    ms_dests *d;
    CHECK_EQ(ms_dests_new(recs, NULL, sizeof recs / sizeof *recs, &d), 0);
    ms_frame fg[] = { frame("z.c", 12, 26) }, fd[] = { frame("z.c", 21, 23) }, fj[] = { frame("z.c", 22, 14) };
    ms_frame fr[] = { frame("z.c", 23, 14) }, fa[] = { frame("s.cc", 30, 5) };
    const ms_dest *g = ms_dests_find(d, fg, 1, 0), *dst = ms_dests_find(d, fd, 1, 0), *job = ms_dests_find(d, fj, 1, 0);
    CHECK(ms_dest_passed_out(g, 0)); /* in the returned struct: a wrapper's result */
    EXPECT_STR("the callee's part", ms_dest_name(g, 0), "buffer.start");
    EXPECT_STR("a variable with the part", ms_dest_returned_part(g, 0, dst, 0), "dstBuff.start");
    EXPECT_STR("a member with the part", ms_dest_returned_part(g, 0, job, 0), "dst.start");
    EXPECT_STR("<retval>'s part (no variable)", ms_dest_returned_part(ms_dests_find(d, fr, 1, 0), 0, dst, 0),
               "dstBuff.start");
    EXPECT_STR("not a returned part", ms_dest_returned_part(dst, 0, job, 0), NULL);
    CHECK(!ms_dest_names_object(g) && !ms_dest_names_object(dst));
    /* where a struct result goes (dstBuff, job.dst) is a block's name only through its part */
    CHECK(ms_dest_aggregate(dst, 0) && !ms_dest_aggregate(job, 0)); /* (a member: a container's too) */
    CHECK(!ms_dest_aggregate(g, 0) && !ms_dest_aggregate(ms_dests_find(d, fr, 1, 0), 0));
    char *ptrs[] = {
        "1\tc++\tr.cc\toperator new []\t-\t1\t23\t41\tv\td\tchar* const\tstore",
        "1\tc++\tr.cc\tallocate\t-\t1\t24\t41\tv\td\tpointer\t__p",
        "1\tc++\tr.cc\tOpen\t-\t1\t25\t41\tv\td\tconst Status\ts",
        "1\tc++\tr.cc\tCopyState\t-\t2\t26\t41\tm\t-\tconst char*\tstate_\t30\t5\tv\td\tStatus\ts",
    };
    ms_dests *q;
    CHECK_EQ(ms_dests_new(ptrs, NULL, 4, &q), 0);
    for (int i = 0; i < 4; i++) {
        ms_frame f[] = { frame("r.cc", 23 + i, 41) };
        CHECK_EQ(ms_dest_aggregate(ms_dests_find(q, f, 1, 0), 0), i == 2);
    }
    ms_frame fs[] = { frame("r.cc", 26, 41), frame("r.cc", 30, 5) };
    const ms_dest *cs = ms_dests_find(q, fs, 2, 0);
    CHECK(cs && !ms_dest_aggregate(cs, 1)); /* the object of s.state_ */
    ms_dests_free(q);
    const ms_dest *a = ms_dests_find(d, fa, 1, 0);
    CHECK(ms_dest_names_object(a) && !ms_dest_aggregate(a, 0));
    EXPECT_STR("the object's member", ms_dest_name(a, 0), "data_");
    ms_dests_free(d);
}

/* Lua's interpreter: a table kept in a stack slot (flag "s") is named by its type; a level
 * that keeps the value lets no name further out be its; a member lets its object's out. */
static void test_slots(void)
{
    char *recs[] = {
        "1\tc\tlvm.c\tluaH_new\t-\t1\t1350\t13\tv\tus\tstruct Table *\tt",
        "1\tc\tlstring.c\tluaC_newobj\t-\t2\t148\t7\tv\tu\tstruct GCObject *\to\t208\t8\t-\ts\tstruct TString *\t",
        "1\tc\tlgc.c\tluaM_malloc_\tr\t1\t260\t17\tv\tdu\tstruct GCObject *\to",
        "1\tc\tltable.c\tluaM_malloc_\t-\t1\t490\t15\tm\tu\tunion Node *\tt.node",
        "1\tc\tx.c\tf\t-\t1\t5\t3\tv\ts\tvoid *\tp",
    };
    ms_dests *d;
    CHECK_EQ(ms_dests_new(recs, NULL, sizeof recs / sizeof *recs, &d), 0);
    ms_frame ft[] = { frame("lvm.c", 1350, 13) };
    const ms_dest *r = ms_dests_find(d, ft, 1, 0);
    EXPECT_STR("a local into a slot: its type", ms_dest_name(r, 0), "Table");
    CHECK_EQ(ms_dest_in_slot(r, 0), 1);
    CHECK_EQ(ms_dest_local(r, 0), 1);
    CHECK_EQ(ms_dest_leaves(r, 0), 0); /* kept by luaV_execute: `ci` further out is not its */
    CHECK_EQ(ms_dest_passed_out(r, 0), 0);
    ms_frame fs[] = { frame("lstring.c", 148, 7), frame("lstring.c", 208, 8) };
    r = ms_dests_find(d, fs, 2, 0);
    EXPECT_STR("inlined level 0: the local", ms_dest_name(r, 0), "o");
    EXPECT_STR("a slot's level naming nothing: the value's type", ms_dest_name(r, 1), "TString");
    CHECK_EQ(ms_dest_leaves(r, 0), 1); /* an outer inline level follows */
    CHECK_EQ(ms_dest_leaves(r, 1), 0);
    ms_frame fo[] = { frame("lgc.c", 260, 17) };
    r = ms_dests_find(d, fo, 1, 0);
    EXPECT_STR("returned local", ms_dest_name(r, 0), "GCObject*.o");
    CHECK_EQ(ms_dest_in_slot(r, 0), 0);
    CHECK_EQ(ms_dest_leaves(r, 0), 1);
    ms_frame fn[] = { frame("ltable.c", 490, 15) };
    r = ms_dests_find(d, fn, 1, 0);
    EXPECT_STR("a member", ms_dest_name(r, 0), "t.node");
    CHECK_EQ(ms_dest_leaves(r, 0), 1); /* its object may be the caller's */
    CHECK_EQ(ms_dest_local(r, 0), 0);
    ms_frame fv[] = { frame("x.c", 5, 3) };
    EXPECT_STR("void*: no type to name it by, its variable", ms_dest_name(ms_dests_find(d, fv, 1, 0), 0), "p");
    CHECK_EQ(ms_dest_leaves(NULL, 0), 1); /* no record: nothing known */
    ms_dests_free(d);
}

/* An out-parameter: `*coder_ptr = malloc(n)` in create (used there too: memset), and the
 * caller's argument record at the call `create(&lz->coder, n)` (flag a0), beside a call at the
 * same position that returns a pointer: the call's own record is not the argument's. */
static void test_out_params(void)
{
    char *recs[] = {
        "1\tc\tc.c\tmalloc\t-\t1\t20\t21\tm\tup0\tvoid *\tcoder_ptr",
        "1\tc\tc.c\tcreate\ta0\t1\t30\t12\tm\t-\tvoid *\tlz.coder",
        "1\tc\tc.c\tcreate\t-\t1\t30\t12\tv\td\tvoid *\tret",
        "1\tc\tc.c\tpass\ta1\t1\t40\t9\tm\tp2\tvoid *\ttable_ptr",
    };
    ms_dests *d;
    CHECK_EQ(ms_dests_new(recs, NULL, sizeof recs / sizeof *recs, &d), 0);
    ms_frame fs = frame("c.c", 20, 21), fc = frame("c.c", 30, 12), fp = frame("c.c", 40, 9);
    const ms_dest *r = ms_dests_find(d, &fs, 1, 0);
    CHECK_EQ(ms_dest_out_param(r, 0), 0);
    CHECK_EQ(ms_dest_passed_out(r, 0), 1); /* whatever else create does with it */
    EXPECT_STR("the call's own record", ms_dest_name(ms_dests_find(d, &fc, 1, 0), 0), "void*.ret");
    r = ms_dests_find_arg(d, &fc, 1, 0, 0);
    EXPECT_STR("argument 0", ms_dest_name(r, 0), "lz.coder");
    CHECK_EQ(ms_dest_out_param(r, 0), -1);
    CHECK_EQ(ms_dest_passed_out(r, 0), 0);
    CHECK_EQ(ms_dests_find_arg(d, &fc, 1, 0, 1) == NULL, 1);
    CHECK_EQ(ms_dests_find(d, &fp, 1, 0) == NULL, 1); /* only an argument's record there */
    r = ms_dests_find_arg(d, &fp, 1, 0, 1);
    CHECK_EQ(ms_dest_out_param(r, 0), 2); /* its own parameter passed on */
    CHECK_EQ(ms_dest_passed_out(r, 0), 1);
    ms_dests_free(d);
}

/* The record versions (MSPLUG_DEST_RECORD_VERSION): "2", what the plugins write, with an
 * argument record and an out-parameter flag; "1" with the same (the first ABI 4 plugins wrote
 * them under "1") and without; a newer version ("3", "10") skipped, not misread: its argument
 * record would otherwise name the call's result. */
static void test_record_versions(void)
{
    char *recs[] = {
        "2\tc\tv.c\tmalloc\t-\t1\t20\t21\tm\tup0\tvoid *\tcoder_ptr",
        "2\tc\tv.c\tcreate\ta0\t1\t30\t12\tm\t-\tvoid *\tlz.coder",
        "1\tc\tv.c\tcreate\ta0\t1\t40\t12\tm\t-\tvoid *\tlz.table",
        "1\tc\tv.c\tmalloc\t-\t1\t50\t9\tv\td\tdouble *\tA",
        "3\tc\tv.c\tmake\ta0\t1\t60\t3\tm\t-\tvoid *\tnewer",
        "10\tc\tv.c\tmalloc\t-\t1\t50\t9\tv\td\tdouble *\tB",
    };
    ms_dests *d;
    CHECK_EQ(ms_dests_new(recs, NULL, sizeof recs / sizeof *recs, &d), 0);
    ms_frame f20 = frame("v.c", 20, 21), f30 = frame("v.c", 30, 12), f40 = frame("v.c", 40, 12);
    ms_frame f50 = frame("v.c", 50, 9), f60 = frame("v.c", 60, 3);
    CHECK_EQ(ms_dest_out_param(ms_dests_find(d, &f20, 1, 0), 0), 0);
    CHECK_EQ(ms_dests_find(d, &f30, 1, 0) == NULL, 1); /* an argument's record only */
    EXPECT_STR("version 2: argument 0", ms_dest_name(ms_dests_find_arg(d, &f30, 1, 0, 0), 0), "lz.coder");
    EXPECT_STR("version 1: argument 0", ms_dest_name(ms_dests_find_arg(d, &f40, 1, 0, 0), 0), "lz.table");
    EXPECT_STR("version 1: the result (B's newer record skipped)", ms_dest_name(ms_dests_find(d, &f50, 1, 0), 0),
               "double*.A");
    CHECK_EQ(ms_dests_find(d, &f60, 1, 0) == NULL, 1);
    CHECK_EQ(ms_dests_find_arg(d, &f60, 1, 0, 0) == NULL, 1);
    ms_dests_free(d);
}

int main(void)
{
    test_record_versions();
    test_out_params();
    test_types();
    test_records();
    test_returned_parts();
    test_slots();
    return check_result();
}
