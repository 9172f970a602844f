/* The waiting-time collector (analysis/waiting_collect.h): exact classes, explanations and
 * ordering of synchronisation points for hand-made segments and waits. */
#include <string.h>

#include "analysis/waiting_collect.h"
#include "check.h"
#include "format/stream.h"

static void test_barrier_classes(void)
{
    uint32_t cycles[2] = { 2, 5 }; /* block 0: 2 cycles, block 1: 5 */
    ms_work_cost cost = { cycles, 2, "test" };
    ms_wait_collector *c = ms_wait_collector_new(2, 20, &cost);
    CHECK(c != NULL);
    /* segment 1. cpu 0 (late): block 0 x 100 (in two WORK events), block 1 x 10; stall: ctx 8
     * 30 (cold, capacity or conflict), ctx 9 20 (communicated), ctx 10 25 (code the waiter
     * does not run), ctx 11 15 (code the waiter runs with hits only) */
    ms_wait_collector_work(c, 0, 0, 60);
    ms_wait_collector_ref(c, 0, 8, 10, 0);
    ms_wait_collector_work(c, 0, 1, 10);
    ms_wait_collector_ref(c, 0, 9, 20, 1);
    ms_wait_collector_ref(c, 0, 8, 20, 0);
    ms_wait_collector_ref(c, 0, 10, 25, 0);
    ms_wait_collector_ref(c, 0, 11, 15, 0);
    ms_wait_collector_work(c, 0, 0, 40);
    /* cpu 1 (waiter): block 0 x 40, stall 20 in ctx 8, hits in ctx 11 */
    ms_wait_collector_work(c, 1, 0, 40);
    ms_wait_collector_ref(c, 1, 8, 20, 0);
    ms_wait_collector_ref(c, 1, 11, 0, 0);
    ms_wait_collector_arrive(c, 1, 1);
    ms_wait_collector_arrive(c, 0, 1);
    ms_replay_wait w = { MS_SYNC_BARRIER, 7, 1, 1, 0, 1, 100, 400, 3 };
    ms_wait_collector_wait(c, &w);
    /* a wait of no duration is no instance */
    ms_replay_wait w0 = { MS_SYNC_BARRIER, 7, 1, 1, 0, 1, 400, 400, 3 };
    ms_wait_collector_wait(c, &w0);
    /* segment 2, a lock: cpu 0 holds it for block 1 x 4; the waiter's own path is not compared */
    ms_wait_collector_work(c, 1, 1, 4);
    ms_wait_collector_arrive(c, 1, 2);
    ms_wait_collector_work(c, 0, 1, 4);
    ms_wait_collector_arrive(c, 0, 2);
    ms_replay_wait wl = { MS_SYNC_ACQUIRE, 9, 1, 2, 0, 2, 0, 30, 4 };
    ms_wait_collector_wait(c, &wl);
    /* segment 3, a second barrier instance whose late path did other extra work: block 1 x 2,
     * and 12 cycles of stall in ctx 11, which the waiter referenced in segment 1 only */
    ms_wait_collector_work(c, 0, 1, 2);
    ms_wait_collector_ref(c, 0, 11, 12, 0);
    ms_wait_collector_arrive(c, 0, 3);
    ms_wait_collector_arrive(c, 1, 3);
    ms_replay_wait w2 = { MS_SYNC_BARRIER, 7, 1, 3, 0, 3, 500, 600, 3 };
    ms_wait_collector_wait(c, &w2);

    ms_raw raw;
    memset(&raw, 0, sizeof raw);
    CHECK_EQ_INT(ms_wait_collector_finish(c, &raw), 0);
    CHECK_EQ(raw.nwait_points, 2);
    const ms_raw_wait_point *b = &raw.wait_points[0], *l = &raw.wait_points[1];
    CHECK_EQ(b->kind, MS_SYNC_BARRIER);
    CHECK_EQ(b->ctx, 3);
    CHECK_EQ(b->instances, 2);
    CHECK_EQ(b->cycles, 400);
    /* first (300 cycles): load imbalance: work both did, 60 x 2 = 120, and the other stall of
     * contexts both referenced, ctx 8's 30 - 20 and ctx 11's 15 (145); insufficient
     * parallelism: work only the late one did, 10 x 5 = 50, and ctx 10's 25 (75);
     * communication: ctx 9's 20. Of 300 cycles: 181, 93 and 26. Second (100 cycles): all
     * insufficient parallelism (block 1 and ctx 11, unreferenced by the waiter since). */
    CHECK_EQ(b->classes[MS_WAIT_LOAD_IMBALANCE], 181);
    CHECK_EQ(b->classes[MS_WAIT_INSUFFICIENT_PARALLELISM], 193);
    CHECK_EQ(b->classes[MS_WAIT_COMMUNICATION], 26);
    /* per waiting processor (the analysis tells an idle thread's waiting apart): all cpu 1's */
    CHECK_EQ(b->ncpus, 2);
    for (int k = 0; k < MS_WAIT_NCLASSES; k++) {
        CHECK_EQ(b->by_cpu[MS_WAIT_NCLASSES + k], b->classes[k]);
        CHECK_EQ(b->by_cpu[k], 0);
    }
    /* two classes of paths: blocks {0, 1} led by block 0 (300 cycles), {1} (100) */
    CHECK_EQ(b->npaths, 2);
    CHECK_EQ(b->paths[0].lead, 0);
    CHECK_EQ(b->paths[0].instances, 1);
    CHECK_EQ(b->paths[0].cycles, 300);
    CHECK_EQ(b->paths[1].lead, 1);
    CHECK_EQ(b->paths[1].cycles, 100);
    CHECK(b->paths[0].signature != b->paths[1].signature);
    CHECK_EQ(b->extra_stall, 82); /* 10 + 20 + 25 + 15, then 12 */
    CHECK_EQ(b->nextra, 2);
    CHECK_EQ(b->extra[0].block, 0);
    CHECK_EQ(b->extra[0].extra_count, 60);
    CHECK_EQ(b->extra[0].extra_cycles, 120);
    CHECK_EQ(b->extra[1].block, 1);
    CHECK_EQ(b->extra[1].extra_count, 12);
    CHECK_EQ(b->extra[1].extra_cycles, 60);
    /* the extra stall by context, whatever its class: ctx 11 (15 + 12), 10, 9, 8 (30 - 20) */
    CHECK_EQ(b->nstall, 4);
    CHECK_EQ(b->stall[0].ctx, 11);
    CHECK_EQ(b->stall[0].cycles, 27);
    CHECK_EQ(b->stall[1].ctx, 10);
    CHECK_EQ(b->stall[1].cycles, 25);
    CHECK_EQ(b->stall[2].ctx, 9);
    CHECK_EQ(b->stall[2].cycles, 20);
    CHECK_EQ(b->stall[3].ctx, 8);
    CHECK_EQ(b->stall[3].cycles, 10);
    CHECK_EQ(l->kind, MS_SYNC_ACQUIRE);
    CHECK_EQ(l->cycles, 30);
    CHECK_EQ(l->classes[MS_WAIT_COMMUNICATION], 30);
    CHECK_EQ(l->by_cpu[MS_WAIT_NCLASSES + MS_WAIT_COMMUNICATION], 30);
    CHECK_EQ(l->npaths, 1);
    CHECK_EQ(l->paths[0].instances, 1);
    CHECK_EQ(l->nextra, 1);
    CHECK_EQ(l->extra[0].extra_count, 4);
    CHECK_EQ(l->extra[0].extra_cycles, 20);
    ms_raw_free(&raw);
}

int main(void)
{
    test_barrier_classes();
    return check_result();
}
