/* Findings (analysis/findings.c) on the hand-built models: which cells become findings, the
 * kind and evidence of each, and the exact sentences.
 *
 * Blocked matrix multiply fixture (stall 1000): (BlkMultiply, Matrix.Y) stalls 855, its L1
 * misses are replacements (600 capacity, 271 conflict) evicted by Matrix.Y 90, Z 7, X 3;
 * (BlkMultiply, Matrix.Z) stalls 77 (7.7%), replacements evicted by Matrix.Y 40 of 50;
 * (BlkMultiply, Matrix.X) 4.3% is below the threshold. Multiprocessor fixture (stall 710):
 * (worker, f) 450 with 40 invalidations received, 35 true, 25 with a lock, migratory;
 * (worker, counters) 200 with 20 received, all false sharing; (main, f) 50, cold. Their lines
 * come from the per-reference rows. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings.h"
#include "check.h"
#include "model_fixture.h"
#include "mp_fixture.h"

static void test_uniprocessor(void)
{
    ms_model m;
    ms_finding f[MS_FINDINGS_MAX];
    fixture_build(&m);
    /* Y's L2 misses as the fixture has them (100 x 49 cycles from memory) would make memory the
     * larger part of its stall: the L2 explains it, and its L2 misses are all cold. */
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_EQ(f[0].kind, MS_FINDING_COLD);
    CHECK_STR(f[0].text, "86% of memory stall: Matrix.Y in BlkMultiply (mm.c:42), first-reference (cold) L2 misses "
                         "(100% of its misses): each line is missed the first time it is touched");

    /* With 5 L2 misses, memory is a small part: L1's replacements explain it. */
    m.cells[0].c.level[1].read_misses = 5;
    m.cells[0].c.level[1].cause[MS_CAUSE_COLD] = 5;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_EQ(f[0].kind, MS_FINDING_SELF_INTERFERENCE);
    CHECK_EQ(f[0].code, FX_BLK);
    CHECK_EQ(f[0].data, FX_Y);
    CHECK_EQ(f[0].cause, MS_CAUSE_CAPACITY);
    CHECK_EQ_INT(f[0].evictor, FX_Y);
    CHECK_EQ_INT(f[0].first_line, 42);
    CHECK_STR(f[0].text, "86% of memory stall: Matrix.Y in BlkMultiply (mm.c:42), L1 replacement misses (69% capacity, "
                         "31% conflict) caused by Matrix.Y itself (self-interference, 90% of them)");
    CHECK_EQ(f[1].kind, MS_FINDING_CROSS_INTERFERENCE);
    CHECK_EQ_INT(f[1].evictor, FX_Y);
    CHECK_STR(f[1].text, "8% of memory stall: Matrix.Z in BlkMultiply (mm.c:43), L1 replacement misses (60% capacity, "
                         "40% conflict) caused by Matrix.Y (cross-interference, 80% of them)");
    /* Advice: 31% conflicts among Y's own rows: pad the leading dimension, checked by whatif on
     * the recording (REC: the run does not say where it was recorded); Z's interference is
     * mostly capacity: block the loops, no layout change. */
    /* 31% conflicts on a heap bin whose rows nobody looked for: mostly capacity, so block the
     * loops; a recording would find its rows (bzip2's one-dimensional s.arr2 is such a case) */
    CHECK_STR(f[0].whatif, "");
    CHECK(strncmp(f[0].advice, "Matrix.Y does not stay in the cache until it is used again: block or interchange",
                  80) == 0);
    CHECK_CONTAINS(f[0].advice, "(31% of its replacements are conflicts: if it is a matrix, a run with --record finds "
                                "its rows and whether padding them helps)");
    /* mostly conflicts (55%), rows unknown: pad the leading dimension, its length a placeholder */
    m.cells[0].c.level[0].cause[MS_CAUSE_CONFLICT] += 450;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[0].whatif, "memspy whatif REC --row 'Matrix.Y=ROWBYTES' --pad 'Matrix.Y=ROWBYTES+64'");
    CHECK(strncmp(f[0].advice,
                  "the rows of Matrix.Y that are reused together map onto the same sets: pad its leading "
                  "dimension",
                  90) == 0);
    /* ... but with no rows (no second dimension, no dominant stride): no pad */
    m.data[FX_Y].row_none = 1;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[0].whatif, "");
    CHECK_CONTAINS(f[0].advice, "Matrix.Y evicts itself mostly through conflicts (55% of its replacements) but has no "
                                "rows to pad");
    m.data[FX_Y].row_none = 0;
    m.cells[0].c.level[0].cause[MS_CAUSE_CONFLICT] -= 450;
    CHECK_EQ(ms_findings(&m, f), 2);
    /* The row length known (DWARF, or the recorded strides: 2360-byte rows walked 496 bytes at
     * a time): the first row length that spreads the 512-byte pieces over the sets, an odd
     * number of them (2560: 5), is advised; the next such and one line more are worth trying */
    uint64_t c[3];
    CHECK_EQ(ms_pad_candidates(2360, 496, 64, 16384, c, 3), 3);
    CHECK_EQ(c[0], 2560);
    CHECK_EQ(c[1], 3584);
    CHECK_EQ(c[2], 2424);
    CHECK_EQ(ms_pad_candidates(2048, 0, 64, 32768, c, 3), 2); /* pieces of a line: 33 lines; 35 */
    CHECK_EQ(c[0], 2112);
    CHECK_EQ(c[1], 2240);
    CHECK_EQ(ms_pad_candidates(2360, 9000, 64, 16384, c, 3), 1); /* pieces of half a way: a line more */
    CHECK_EQ(c[0], 2424);
    m.data[FX_Y].row_bytes = 2360;
    m.data[FX_Y].row_width = 496;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[0].whatif, "memspy whatif REC --row 'Matrix.Y=2360' --pad 'Matrix.Y=2560'");
    CHECK_CONTAINS(f[0].advice, "pad each row to 2560 bytes, or copy the block");
    CHECK_CONTAINS(f[0].advice, "also worth trying: 3584, 2424 bytes");
    /* ... and where the advice's check re-simulated them, the best (here the second) */
    m.data[FX_Y].row_pad = 3584;
    m.data[FX_Y].row_pad_stall = 400;
    m.data[FX_Y].row_pads_tried = 3;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[0].whatif, "memspy whatif REC --row 'Matrix.Y=2360' --pad 'Matrix.Y=3584'");
    CHECK_CONTAINS(f[0].advice,
                   "re-simulating the recording with 3 row lengths, this one predicts 60% less memory stall");
    /* ... and where none gained anything, no pad: the loops */
    m.data[FX_Y].row_pad_stall = 1000;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[0].whatif, "");
    CHECK(strncmp(f[0].advice, "Matrix.Y does not stay in the cache", 35) == 0);
    m.data[FX_Y].row_bytes = m.data[FX_Y].row_width = m.data[FX_Y].row_pad = m.data[FX_Y].row_pad_stall = 0;
    m.data[FX_Y].row_pads_tried = 0;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[1].whatif, "");
    CHECK(strncmp(f[1].advice, "Matrix.Z does not stay in the cache until it is used again: block or interchange",
                  80) == 0);
    /* data used in an order the data decide: make it smaller, its size against the level's
     * (a global's size, a heap bin's peak; no size where the bin fits the level), with the part
     * the run touched (its first-reference misses, a line each) where that is under half */
    CHECK_CONTAINS(f[1].advice, "if the data decide the order it is used in (hashing, pointers, indices), make it "
                                "smaller (it is 680 KiB, of which the run touched 1.8 KiB; L1 holds 32 KiB) or keep "
                                "what is used together side by side");
    m.data[FX_Z].kind = MS_BIN_GLOBAL;
    m.data[FX_Z].bytes = 16384;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_CONTAINS(f[1].advice, "make it smaller or keep");
    m.data[FX_Z].kind = MS_BIN_HEAP;
    m.data[FX_Z].peak_bytes = 3u << 20;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_CONTAINS(f[1].advice,
                   "make it smaller (it is 3.0 MiB, of which the run touched 1.8 KiB; L1 holds 32 KiB) or keep");
    /* ... not in a multiprocessor's run, whose processors each miss on a line first */
    uint32_t nprocs = m.nprocs;
    m.nprocs = 2;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_CONTAINS(f[1].advice, "make it smaller (it is 3.0 MiB; L1 holds 32 KiB) or keep");
    /* ... a block per processor (pigz's deflate state per compressing thread): how big one is,
     * and how many were live at once (peak over the blocks' average) */
    uint64_t objects = m.data[FX_Z].objects, bytes = m.data[FX_Z].bytes;
    m.data[FX_Z].objects = 5;
    m.data[FX_Z].bytes = 5 * (768u << 10);
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_CONTAINS(f[1].advice, "make it smaller (it is 3.0 MiB: 4 blocks of 768 KiB live at once; L1 holds 32 KiB)");
    /* ... not when they were live one at a time (a block grown by realloc) */
    m.data[FX_Z].bytes = 5 * (3u << 20);
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_CONTAINS(f[1].advice, "make it smaller (it is 3.0 MiB; L1 holds 32 KiB) or keep");
    m.data[FX_Z].objects = objects;
    m.data[FX_Z].bytes = bytes;
    m.nprocs = nprocs;
    /* mostly conflicts with Y: offset Z by half a way of the cache (32K, 2 ways); a whatif
     * prediction's advice adds to its changes */
    m.cells[1].c.level[0].cause[MS_CAUSE_CONFLICT] += 100;
    m.origin = strdup("whatif of rec/dir: --pad 'Matrix.Y=4K'");
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_EQ(f[1].kind, MS_FINDING_CROSS_INTERFERENCE);
    CHECK_STR(f[1].whatif, "memspy whatif rec/dir --pad 'Matrix.Y=4K' --offset 'Matrix.Z=8192'");
    /* a prediction that offsets Z already offsets Y (the same change again would change
     * nothing); one that offsets both has no command left */
    free(m.origin);
    m.origin = strdup("whatif of rec/dir: --offset 'Matrix.Z=8192'");
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[1].whatif, "memspy whatif rec/dir --offset 'Matrix.Z=8192' --offset 'Matrix.Y=8192'");
    free(m.origin);
    m.origin = strdup("whatif of rec/dir: --offset 'Matrix.Z=8192' --offset 'Matrix.Y=8192'");
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_STR(f[1].whatif, "");
    CHECK(strncmp(f[1].advice, "Matrix.Z and Matrix.Y map onto the same cache sets", 50) == 0);
    m.cells[1].c.level[0].cause[MS_CAUSE_CONFLICT] -= 100;

    /* Without replacement causes the finding says what it knows. */
    free(m.cells[1].evicted_by);
    m.cells[1].evicted_by = NULL;
    m.cells[1].nevicted_by = 0;
    CHECK_EQ(ms_findings(&m, f), 2);
    CHECK_EQ(f[1].kind, MS_FINDING_REPLACEMENT);
    CHECK_STR(f[1].text, "8% of memory stall: Matrix.Z in BlkMultiply (mm.c:43), L1 replacement misses (60% capacity, "
                         "40% conflict)");

    /* A run without stall has no findings. */
    memset(&m.totals, 0, sizeof m.totals);
    CHECK_EQ(ms_findings(&m, f), 0);
    ms_model_free(&m);
}

static void test_multiprocessor(void)
{
    ms_model m;
    ms_finding f[MS_FINDINGS_MAX];
    mp_fixture_build(&m);
    CHECK_EQ(ms_findings(&m, f), 3);
    CHECK_EQ(f[0].kind, MS_FINDING_TRUE_SHARING);
    CHECK_EQ(f[0].data, MP_F);
    CHECK_EQ(f[0].cause, MS_CAUSE_INVAL);
    CHECK_STR(f[0].text,
              "63% of memory stall: true sharing on f in worker (nbf.c:141): the words it uses are written "
              "by 2 processors (88% of its invalidations, 62% of them under a lock); access pattern: migratory");
    CHECK_EQ(f[1].kind, MS_FINDING_FALSE_SHARING);
    CHECK_EQ(f[1].data, MP_COUNTERS);
    CHECK_STR(f[1].text, "28% of memory stall: false sharing on counters in worker (nbf.c:150): 2 processors write "
                         "different words of the same 64-byte lines (100% of its invalidations)");
    CHECK_EQ(f[2].kind, MS_FINDING_COLD);
    CHECK_EQ_INT(f[2].first_line, 30);
    /* Advice: f is updated under a lock: privatise it; counters (of no known element size):
     * pad what each processor writes to a coherence unit, checked by whatif. */
    CHECK_STR(f[0].advice, "privatise f: let each processor update a private copy and combine the copies once after "
                           "the loop (a reduction), instead of updating the shared words under the lock");
    CHECK_STR(f[0].whatif, "");
    CHECK_STR(f[1].whatif, "memspy whatif REC --row 'counters=ELEMBYTES' --pad 'counters=64'");
    CHECK(strncmp(f[2].advice, "each line of f is missed the first time it is touched", 50) == 0);
    ms_model_free(&m);
}

int main(void)
{
    test_uniprocessor();
    test_multiprocessor();
    return check_result();
}
