/* MTOOL's analysis on synthetic blocks, loops, cycles and samples (analysis/mtool.c):
 * innermost-first loop selection, untimable objects, overhead, extra
 * cycles per memory operation, coverage and the unexplained overhead, exactly; an MTOOL run's
 * result file written and read back whole (a stored run of its own kind); and llvm-mca's
 * cycles for fixed instruction sequences (blockcost.c). */
#include "analysis/blockcost.h"
#include "analysis/mtool.h"
#include "analysis/mtool_calls.h"
#include "check.h"
#include "modelio/modelio.h"
#include "report/report.h"
#include "sim/config.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b) (fabs((a) - (b)) <= 1e-9 * (1 + fabs(b)))

/* The result as an MTOOL run's result file, read back: every field equal; a foreign warning
 * or a wrong type is refused with the field named. */
static void test_round_trip(const ms_mtool_result *r)
{
    ms_model m;
    char err[512];
    ms_model_init(&m);
    CHECK(ms_config_preset("x86", &m.config, err, sizeof err) == 0);
    m.program = strdup("k");
    m.origin = strdup("mtool");
    m.mtool = calloc(1, sizeof *m.mtool);
    *m.mtool = *r; /* shallow: the strings stay r's */
    m.mtool->cpu_model = "znver3";
    m.mtool->nchains = 2; /* the model check comes back */
    m.mtool->chains[0] = (ms_mtool_chain){ "addsd", 2.03, 4, 1 };
    m.mtool->chains[1] = (ms_mtool_chain){ "mov (load)", 5.01, 5, 0 };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && ms_json_write(f, &m) == 0);
    fclose(f);
    memset(m.mtool, 0, sizeof *m.mtool); /* nothing of r's to free */
    ms_model_free(&m);
    ms_model back;
    CHECK(ms_json_read_buffer("t.json", text, len, &back, err, sizeof err) == 0);
    CHECK(back.mtool != NULL && back.origin && !strcmp(back.origin, "mtool"));
    if (back.mtool && back.mtool->nmobjects == r->nmobjects) {
        const ms_mtool_result *b = back.mtool;
        CHECK(!strcmp(b->cpu_model, "znver3") && NEAR(b->predicted_s, r->predicted_s));
        CHECK(NEAR(b->measured_s, r->measured_s) && NEAR(b->unexplained, r->unexplained));
        CHECK_EQ(b->total_memops, r->total_memops);
        CHECK(b->nchains == 2 && !strcmp(b->chains[1].insn, "mov (load)") && NEAR(b->chains[0].core_cycles, 2.03) &&
              NEAR(b->chains[0].model_cycles, 4.0) && b->chains[0].corrected && !b->chains[1].corrected);
        for (size_t i = 0; i < r->nmobjects; i++) {
            const ms_mobject *x = &r->mobjects[i], *y = &b->mobjects[i];
            CHECK(x->kind == y->kind && !strcmp(x->function, y->function) && x->line == y->line);
            CHECK(x->end_line == y->end_line && x->timable == y->timable && x->memops == y->memops);
            CHECK(NEAR(x->estimated_s, y->estimated_s) && NEAR(x->overhead, y->overhead));
            CHECK(!x->timable || NEAR(x->extra_cycles_per_memop, y->extra_cycles_per_memop));
            CHECK(x->nwarnings == y->nwarnings);
            for (size_t w = 0; w < x->nwarnings && w < y->nwarnings; w++)
                CHECK(!strcmp(x->warnings[w], y->warnings[w]));
        }
    } else {
        CHECK(!"the mobjects came back");
    }
    ms_model_free(&back);
    /* a warning this memspy does not know, and a mobject kind that does not exist */
    char *bad = strstr(text, "too short to time");
    if (bad) {
        memcpy(bad, "too short to tame", 17);
        CHECK(ms_json_read_buffer("t.json", text, len, &back, err, sizeof err) < 0);
        CHECK_CONTAINS(err, "mtool.mobjects[3]");
        CHECK_CONTAINS(err, "warnings");
        memcpy(bad, "too short to time", 17);
    }
    char *kind = strstr(text, "\"procedure\"");
    if (kind) {
        memcpy(kind, "\"precodure\"", 11);
        CHECK(ms_json_read_buffer("t.json", text, len, &back, err, sizeof err) < 0);
        CHECK_CONTAINS(err, "kind");
    }
    free(text);
}

static void test_analyze(void)
{
    /* f: outer loop 0 holds inner loop 1; g: loop 2, too short to time. */
    ms_block_stat b[5];
    memset(b, 0, sizeof b);
    const char *fn[5] = { "f", "f", "f", "g", "g" };
    const uint32_t loop[5] = { UINT32_MAX, 1, 0, 2, UINT32_MAX };
    const uint64_t count[5] = { 1, 1000000, 1000, 100, 1000000 };
    const uint32_t memops[5] = { 0, 2, 1, 1, 1 };
    const int line[5] = { 10, 12, 11, 20, 22 };
    for (int i = 0; i < 5; i++) {
        b[i].function = (char *)fn[i];
        b[i].file = "k.c";
        b[i].line = line[i];
        b[i].loop = loop[i];
        b[i].memops = memops[i];
        b[i].count = count[i];
    }
    ms_loop_stat l[3];
    memset(l, 0, sizeof l);
    l[0] = (ms_loop_stat){ "f", "k.c", 11, 12, UINT32_MAX, 1, 2, 1000 };
    l[1] = (ms_loop_stat){ "f", "k.c", 12, 12, 0, 2, 1, 1000000 };
    l[2] = (ms_loop_stat){ "g", "k.c", 20, 20, UINT32_MAX, 1, 3, 100 };
    const double cycles[5] = { 10, 4, 1000, 10, 5 };
    const uint64_t samples[5] = { 0, 12, 1, 2, 6 };
    ms_mtool_input in = { b, 5, l, 3, cycles, samples, 3, 40, 1000000, 1e9, 0.25, NULL };
    ms_mtool_result r;
    CHECK(ms_mtool_analyze(&in, &r) == 0);
    CHECK_EQ(r.nmobjects, 4);
    if (r.nmobjects == 4) {
        const ms_mobject *m = r.mobjects;
        /* the inner loop: 4 ms estimated, 12 ms measured */
        CHECK(m[0].kind == MS_MOBJ_LOOP && !strcmp(m[0].function, "f") && m[0].line == 12);
        CHECK(m[0].timable && NEAR(m[0].estimated_s, 0.004) && NEAR(m[0].measured_s, 0.012));
        CHECK(NEAR(m[0].overhead, 2.0) && NEAR(m[0].extra_cycles_per_memop, 4.0));
        CHECK_EQ(m[0].memops, 2000000);
        CHECK(m[1].kind == MS_MOBJ_PROCEDURE && !strcmp(m[1].function, "f"));
        CHECK(NEAR(m[1].estimated_s, 0.00500001) && NEAR(m[1].measured_s, 0.013));
        CHECK(m[1].line == 10 && m[1].end_line == 12);
        CHECK(m[2].kind == MS_MOBJ_PROCEDURE && !strcmp(m[2].function, "g") && NEAR(m[2].estimated_s, 0.005001));
        /* g's loop: 2 samples, listed untimable with no overhead */
        CHECK(m[3].kind == MS_MOBJ_LOOP && !strcmp(m[3].function, "g") && !m[3].timable);
        CHECK(m[3].overhead == 0 && m[3].nwarnings == 1 && !strcmp(m[3].warnings[0], "too short to time"));
    }
    CHECK(NEAR(r.predicted_s, 0.01000101));
    CHECK(NEAR(r.measured_s, 0.024));
    CHECK(NEAR(r.memory_overhead_s, 0.024 - 0.01000101));
    CHECK(NEAR(r.system_s, 0.25));
    CHECK(NEAR(r.runtime_s, 0.040)); /* apart: not in measured_s */
    CHECK_EQ(r.total_memops, 3001100);
    /* covered: the inner loop and g (its loop is not a mobject, g's time covers it) */
    CHECK(NEAR(r.covered_memops, 3000100.0 / 3001100.0));
    /* explained: the inner loop's 8 ms and g's 2.999 ms; f outside the inner loop is untimable */
    CHECK(NEAR(r.unexplained, 1.0 - (0.008 + 0.002999) / (0.024 - 0.01000101)));
    test_round_trip(&r);
    ms_mtool_result_free(&r);
}

/* Two copies of one loop (the compiler versioned it: same function, file and lines), each
 * with an inner loop on the same line, are one loop mobject with one inner loop: samples,
 * placed by line, all went to one copy, and the other copy's memory operations were left
 * untimable. */
static void test_loop_copies(void)
{
    ms_block_stat b[4];
    memset(b, 0, sizeof b);
    const uint32_t loop[4] = { 1, 3, 0, 2 };
    const uint64_t count[4] = { 1000, 1000, 10, 10 };
    for (int i = 0; i < 4; i++) {
        b[i].function = "h";
        b[i].file = "k.c";
        b[i].line = i < 2 ? 31 : 30;
        b[i].loop = loop[i];
        b[i].memops = 1;
        b[i].count = count[i];
    }
    ms_loop_stat l[4];
    l[0] = (ms_loop_stat){ "h", "k.c", 30, 31, UINT32_MAX, 1, 2, 10 };
    l[1] = (ms_loop_stat){ "h", "k.c", 31, 31, 0, 2, 0, 1000 };
    l[2] = (ms_loop_stat){ "h", "k.c", 30, 31, UINT32_MAX, 1, 3, 10 };
    l[3] = (ms_loop_stat){ "h", "k.c", 31, 31, 2, 2, 1, 1000 };
    const double cycles[4] = { 2, 2, 1, 1 };
    const uint64_t samples[4] = { 20, 0, 0, 0 };
    ms_mtool_input in = { b, 4, l, 4, cycles, samples, 0, 0, 1000000, 1e9, 0, NULL };
    ms_mtool_result r;
    CHECK(ms_mtool_analyze(&in, &r) == 0);
    size_t loops = 0;
    for (size_t i = 0; i < r.nmobjects; i++)
        if (r.mobjects[i].kind == MS_MOBJ_LOOP) {
            loops++;
            /* the inner loop: both copies' 2,000 executions of 2 cycles, 20 samples */
            CHECK(r.mobjects[i].line == 31 && r.mobjects[i].timable && r.mobjects[i].memops == 2000);
            CHECK(NEAR(r.mobjects[i].estimated_s, 4e-6) && NEAR(r.mobjects[i].measured_s, 0.020));
        }
    CHECK_EQ(loops, 1);
    CHECK(NEAR(r.covered_memops, 2000.0 / 2020.0)); /* the outer loops' own blocks: no sample */
    ms_mtool_result_free(&r);
}

/* A nest inlined into one call (lz4's compressor inlined at line 877): an outer loop and an
 * inner one on the same lines, the samples (placed by line) all on the inner loop's block
 * though the outer loop's blocks did the work. The inner loop is one mobject with its parent
 * (never a loop of 2 memory operations credited with the nest's time), each block counted once. */
static void test_inlined_nest(void)
{
    ms_block_stat b[3];
    memset(b, 0, sizeof b);
    const uint32_t loop[3] = { 1, 0, UINT32_MAX };
    const uint64_t count[3] = { 1, 1000000, 1 };
    const uint32_t memops[3] = { 2, 3, 1 };
    for (int i = 0; i < 3; i++) {
        b[i].function = "c";
        b[i].file = "h.c";
        b[i].line = 877;
        b[i].loop = loop[i];
        b[i].memops = memops[i];
        b[i].count = count[i];
    }
    ms_loop_stat l[2];
    l[0] = (ms_loop_stat){ "c", "h.c", 877, 877, UINT32_MAX, 1, 1, 1000000 };
    l[1] = (ms_loop_stat){ "c", "h.c", 877, 877, 0, 2, 0, 1 };
    const double cycles[3] = { 10, 4, 1 };
    const uint64_t samples[3] = { 9, 0, 0 };
    ms_mtool_input in = { b, 3, l, 2, cycles, samples, 0, 0, 1000000, 1e9, 0, NULL };
    ms_mtool_result r;
    CHECK(ms_mtool_analyze(&in, &r) == 0);
    size_t loops = 0;
    for (size_t i = 0; i < r.nmobjects; i++)
        if (r.mobjects[i].kind == MS_MOBJ_LOOP) {
            loops++;
            /* both loops' blocks: 10 + 4,000,000 cycles, 3,000,002 memory operations, 9 ms */
            CHECK(r.mobjects[i].timable && r.mobjects[i].memops == 3000002);
            CHECK(NEAR(r.mobjects[i].estimated_s, 0.00400001) && NEAR(r.mobjects[i].measured_s, 0.009));
            CHECK(NEAR(r.mobjects[i].overhead, 0.009 / 0.00400001 - 1));
        }
    CHECK_EQ(loops, 1);
    CHECK(NEAR(r.covered_memops, 3000002.0 / 3000003.0));
    ms_mtool_result_free(&r);
}

/* Two blocks of function z on the one line o.c:863, a million times each: the first in loop 0,
 * the second outside it (test_inlined_loop, test_placed_loop). */
static void one_line_blocks(ms_block_stat b[2])
{
    memset(b, 0, 2 * sizeof *b);
    const uint32_t loop[2] = { 0, UINT32_MAX };
    for (int i = 0; i < 2; i++) {
        b[i].function = "z";
        b[i].file = "o.c";
        b[i].line = 863;
        b[i].loop = loop[i];
        b[i].memops = 1;
        b[i].count = 1000000;
    }
}

/* A loop on the one line of a call the whole procedure was inlined into (zstd's matcher at
 * zstd_opt.c:863): blocks outside the loop carry its line too, so the samples placed by line
 * on it are not its own: untimable with the warning, the procedure measured instead. */
static void test_inlined_loop(void)
{
    ms_block_stat b[2];
    one_line_blocks(b);
    ms_loop_stat l[1];
    l[0] = (ms_loop_stat){ "z", "o.c", 863, 863, UINT32_MAX, 1, 0, 1000000 };
    const double cycles[2] = { 2, 3 };
    const uint64_t samples[2] = { 50, 0 };
    ms_mtool_input in = { b, 2, l, 1, cycles, samples, 0, 0, 1000000, 1e9, 0, NULL };
    ms_mtool_result r;
    CHECK(ms_mtool_analyze(&in, &r) == 0);
    size_t loops = 0, procs = 0;
    for (size_t i = 0; i < r.nmobjects; i++) {
        const ms_mobject *m = &r.mobjects[i];
        if (m->kind == MS_MOBJ_LOOP) {
            loops++;
            CHECK(!m->timable && m->overhead == 0 && m->nwarnings == 1);
            CHECK(m->nwarnings == 1 && !strcmp(m->warnings[0], MS_MOBJ_WARN_LINES));
        } else {
            procs++;
            CHECK(m->timable && NEAR(m->estimated_s, 0.005) && NEAR(m->measured_s, 0.050));
        }
    }
    CHECK_EQ(loops, 1);
    CHECK_EQ(procs, 1);
    CHECK(NEAR(r.covered_memops, 1.0));
    ms_mtool_result_free(&r);
}

/* The same blocks placed by their inline scopes (analysis/mtool_place.c, placed_loop): the
 * block outside the loop lies in another scope, its samples do not go to the loop, which is
 * then timed on its own (2 cycles x 1,000,000 = 2 ms estimated, 50 ms measured). And where the
 * scopes place the outside block in the loop after all, the safety net still holds. */
static void test_placed_loop(void)
{
    ms_block_stat b[2];
    one_line_blocks(b);
    ms_loop_stat l[1];
    l[0] = (ms_loop_stat){ "m, inlined into z", "m.c", 40, 44, UINT32_MAX, 1, 0, 1000000 };
    const double cycles[2] = { 2, 3 };
    const uint64_t samples[2] = { 50, 0 };
    for (int outside_in_loop = 0; outside_in_loop < 2; outside_in_loop++) {
        const uint32_t placed[2] = { 0, outside_in_loop ? 0 : UINT32_MAX };
        ms_mtool_input in = { b, 2, l, 1, cycles, samples, 0, 0, 1000000, 1e9, 0, placed };
        ms_mtool_result r;
        CHECK(ms_mtool_analyze(&in, &r) == 0);
        size_t loops = 0;
        for (size_t i = 0; i < r.nmobjects; i++) {
            const ms_mobject *m = &r.mobjects[i];
            if (m->kind != MS_MOBJ_LOOP) continue;
            loops++;
            CHECK(!strcmp(m->function, "m, inlined into z") && m->line == 40 && m->end_line == 44);
            if (outside_in_loop) {
                CHECK(!m->timable && m->nwarnings == 1 && !strcmp(m->warnings[0], MS_MOBJ_WARN_LINES));
            } else {
                CHECK(m->timable && m->nwarnings == 0 && NEAR(m->estimated_s, 0.002) && NEAR(m->measured_s, 0.050));
                CHECK(NEAR(m->overhead, 24.0));
            }
        }
        CHECK_EQ(loops, 1);
        /* the loop's half, or (the loop untimable) the whole procedure */
        CHECK(NEAR(r.covered_memops, outside_in_loop ? 1.0 : 0.5));
        ms_mtool_result_free(&r);
    }
}

static void test_mca(void)
{
    char err[2048];
    if (ms_blockcost_check_cpu("znver3", err, sizeof err) < 0) {
        fprintf(stderr, "skipping llvm-mca checks: %s\n", err);
        return;
    }
    CHECK(ms_blockcost_check_cpu("no-such-cpu", err, sizeof err) < 0);
    CHECK_CONTAINS(err, "unknown CPU model 'no-such-cpu'");
    CHECK_CONTAINS(err, "znver3");
    /* a chain of three dependent 1-cycle adds; a dot-product-like add chain (3-cycle addsd) */
    const char *text[3] = { "addq %rax, %rbx\naddq %rbx, %rcx\naddq %rcx, %rax", NULL,
                            "addsd %xmm1, %xmm0\nmulsd %xmm2, %xmm3" };
    double c[3] = { -1, -1, -1 };
    CHECK(ms_mca_cycles(text, 3, "znver3", c, err, sizeof err) == 0);
    CHECK(c[0] >= 2.9 && c[0] <= 3.1);
    CHECK(c[1] == 0);
    CHECK(c[2] >= 2.9 && c[2] <= 3.1);
}

/* Inclusive times by gprof's rule on a graph with a shared callee and a recursive cycle:
 * a -> b, a -> c, b -> c (x3), a -> d, d <-> e; own times a 1, b 2, c 4, d 8, e 16 (measured
 * twice the estimates). c's 4 calls: 1 from a, 3 from b. */
static void test_inclusive(void)
{
    const char *names[5] = { "a", "b", "c", "d", "e" };
    ms_mobject mo[6];
    memset(mo, 0, sizeof mo);
    for (int i = 0; i < 5; i++) {
        mo[i].kind = MS_MOBJ_PROCEDURE;
        mo[i].function = (char *)names[i];
        mo[i].estimated_s = (double)(1 << i);
        mo[i].measured_s = 2.0 * (double)(1 << i);
    }
    mo[5].kind = MS_MOBJ_LOOP; /* a loop of a: no inclusive times */
    mo[5].function = "a";
    ms_mtool_result r;
    memset(&r, 0, sizeof r);
    r.mobjects = mo;
    r.nmobjects = 6;
    const ms_mtool_edge e[] = { { "a", "b", 1 }, { "a", "c", 1 }, { "b", "c", 3 },    { "a", "d", 1 },
                                { "d", "e", 5 }, { "e", "d", 5 }, { "libc", "a", 1 }, { "a", "printf", 2 } };
    CHECK(ms_mtool_inclusive(&r, e, sizeof e / sizeof *e) == 0);
    CHECK(mo[2].has_inclusive && NEAR(mo[2].inclusive_estimated_s, 4.0));
    CHECK(NEAR(mo[1].inclusive_estimated_s, 2 + 0.75 * 4) && NEAR(mo[1].inclusive_measured_s, 10.0));
    CHECK(NEAR(mo[3].inclusive_estimated_s, 24.0) && NEAR(mo[4].inclusive_estimated_s, 24.0));
    CHECK(NEAR(mo[0].inclusive_estimated_s, 1 + 5 + 0.25 * 4 + 24) && NEAR(mo[0].inclusive_measured_s, 62.0));
    CHECK(mo[3].nwarnings == 1 && !strcmp(mo[3].warnings[0], MS_MOBJ_WARN_RECURSIVE));
    CHECK(mo[4].nwarnings == 1 && mo[2].nwarnings == 0); /* c: a leaf, estimable */
    /* estimability (Tot against TDES): b makes 3 of c's 4 calls, a 1 (neither 98% nor
     * negligible): both approximate */
    CHECK(mo[1].nwarnings == 1 && !strcmp(mo[1].warnings[0], MS_MOBJ_WARN_SHARED));
    CHECK(mo[0].nwarnings == 1 && !strcmp(mo[0].warnings[0], MS_MOBJ_WARN_SHARED));
    CHECK(!mo[5].has_inclusive);

    /* the heuristics: x makes 99 of y's 100 calls (98% rule); z makes 1, and y's share of it
     * (0.01 x 1 s) is under 1% of z's 10 s (negligible); w calls only v: exact */
    const char *n2[5] = { "x", "y", "z", "w", "v" };
    const double own[5] = { 1, 1, 10, 1, 2 };
    memset(mo, 0, sizeof mo);
    for (int i = 0; i < 5; i++) {
        mo[i].kind = MS_MOBJ_PROCEDURE;
        mo[i].function = (char *)n2[i];
        mo[i].estimated_s = mo[i].measured_s = own[i];
    }
    r.nmobjects = 5;
    const ms_mtool_edge e2[] = { { "x", "y", 99 }, { "z", "y", 1 }, { "w", "v", 3 } };
    CHECK(ms_mtool_inclusive(&r, e2, 3) == 0);
    CHECK(mo[0].nwarnings == 1 && !strcmp(mo[0].warnings[0], MS_MOBJ_WARN_HEURISTIC));
    CHECK(mo[2].nwarnings == 1 && !strcmp(mo[2].warnings[0], MS_MOBJ_WARN_HEURISTIC));
    CHECK(mo[3].nwarnings == 0 && NEAR(mo[3].inclusive_estimated_s, 3.0) && mo[1].nwarnings == 0);
    CHECK(NEAR(mo[0].inclusive_estimated_s, 1.99) && NEAR(mo[2].inclusive_estimated_s, 10.01));
}

/* The model check in the report: a chain the model takes more than 15% off the core's is named
 * as corrected where loops' chains take the core's latency, warned about where not; a chain
 * that fits, neither; the summary says the chains are the core's. */
static void test_report_chains(void)
{
    ms_mtool_result r;
    memset(&r, 0, sizeof r);
    r.cpu_model = "skylake";
    r.nchains = 3;
    r.chains[0] = (ms_mtool_chain){ "addsd", 2.0, 4.0, 1 };
    r.chains[1] = (ms_mtool_chain){ "mulsd", 3.0, 4.0, 0 };
    r.chains[2] = (ms_mtool_chain){ "mov (load)", 4.9, 5.0, 0 };
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && ms_report_mtool(f, &r, 10) == 0);
    fclose(f);
    CHECK(text && strstr(text, "CPU model skylake with this core's chain latencies,"));
    CHECK(text && strstr(text, "Corrected: loops' dependency chains take this core's addsd 2.0 (skylake's 4.0); "));
    CHECK(text && strstr(text, "Warning: the skylake model does not fit this core: a dependent mulsd takes 4.0"));
    CHECK(text && !strstr(text, "dependent mov (load)") && !strstr(text, "mov (load) 4.9 ("));
    free(text);
}

/* A mobject measured under its estimate (the model's misfit, or sampling's error) has no
 * extra cycles per memory operation to show: the table and annotate say "<0" beside the
 * negative overhead, the positive one keeps its number, and the JSON keeps both numbers. */
static void test_report_negative(void)
{
    ms_mobject mo[2];
    memset(mo, 0, sizeof mo);
    mo[0] = (ms_mobject){ .kind = MS_MOBJ_LOOP,
                          .function = "gather",
                          .file = "/nonexistent/k.c",
                          .line = 29,
                          .end_line = 29,
                          .estimated_s = 0.1,
                          .measured_s = 0.4,
                          .timable = 1,
                          .overhead = 3.0,
                          .extra_cycles_per_memop = 18.375,
                          .memops = 16000000 };
    mo[1] = (ms_mobject){ .kind = MS_MOBJ_LOOP,
                          .function = "dense",
                          .file = "/nonexistent/k.c",
                          .line = 40,
                          .end_line = 41,
                          .estimated_s = 0.4,
                          .measured_s = 0.3,
                          .timable = 1,
                          .overhead = -0.25,
                          .extra_cycles_per_memop = -10.0,
                          .memops = 10000000 };
    ms_mtool_result r;
    memset(&r, 0, sizeof r);
    r.cpu_model = "znver3";
    r.clock_hz = 1e9;
    r.mobjects = mo;
    r.nmobjects = 2;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f && ms_report_mtool(f, &r, 10) == 0);
    fclose(f);
    CHECK(text && strstr(text, "     300%       18.38\n"));
    CHECK(text && strstr(text, "     -25%          <0\n"));
    CHECK(text && !strstr(text, "-10.00"));
    free(text);
    char err[200];
    text = NULL;
    f = open_memstream(&text, &len);
    CHECK(f && ms_report_mtool_annotate(f, &r, NULL, 0, 0, err, sizeof err) == 0);
    fclose(f);
    CHECK(text && strstr(text, "memory overhead 300% (18.38 extra cycles per memory operation)"));
    CHECK(text && strstr(text, "memory overhead -25% (<0 extra cycles per memory operation)"));
    free(text);
    test_round_trip(&r); /* the JSON: -0.25 and -100 back as written */
}

int main(void)
{
    test_report_negative();
    test_report_chains();
    test_inclusive();
    test_analyze();
    test_loop_copies();
    test_inlined_nest();
    test_inlined_loop();
    test_placed_loop();
    test_mca();
    return check_result();
}
