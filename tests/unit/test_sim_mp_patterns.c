/* Carnival's access patterns on synthetic streams (the rule of docs/simulator.md,
 * "Access patterns"): producer/consumer 1->1, 1->3, 3->1, migratory ping-pong, write-only
 * sharing, cold start, and the rounds ms_sim_finish closes. Contexts equal processor numbers. */
#include <stdint.h>
#include <stdlib.h>

#include "sim_mp_testutil.h"

#define A 0u /* the shared line */

static const uint64_t *patterns(const ms_sim *sim, unsigned cpu) { return at(sim, cpu, cpu)->pattern; }

/* Producer cpu0, consumer cpu1: the first read is a cold start, each later read miss is
 * single-producer/single-consumer once cpu0's next write closes its round. */
static void test_single_producer_single_consumer(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    wr(sim, 0, A, 0);
    for (int i = 0; i < 3; i++) {
        rd(sim, 1, A, 1);
        wr(sim, 0, A, 0);
    }
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 1);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_SPSC], 2);
    CHECK_EQ(patterns(sim, 0)[MS_PAT_SPSC], 0);
    ms_counters total;
    ms_sim_totals(sim, &total);
    uint64_t sum = 0;
    for (int p = 0; p < MS_NPATTERNS; p++) sum += total.pattern[p];
    CHECK_EQ(sum, 3);
    ms_sim_destroy(sim);
}

/* One producer, three consumers: cold start for the first round, SPMC for the second. */
static void test_single_producer_multiple_consumers(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=4");
    for (int round = 0; round < 2; round++) {
        wr(sim, 0, A, 0);
        for (unsigned cpu = 1; cpu < 4; cpu++) rd(sim, cpu, A, cpu);
    }
    wr(sim, 0, A, 0);
    ms_sim_finish(sim);
    for (unsigned cpu = 1; cpu < 4; cpu++) {
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_COLD_START], 1);
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_SPMC], 1);
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_SPSC], 0);
    }
    ms_sim_destroy(sim);
}

/* Three producers, one consumer: the first round's misses are cold starts; the second
 * round (the writers' coherence write misses and the reader's miss), closed by
 * ms_sim_finish, is multiple-producer/single-consumer. */
static void test_multiple_producers_single_consumer(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=4");
    for (int round = 0; round < 2; round++) {
        for (unsigned cpu = 1; cpu < 4; cpu++) wr(sim, cpu, A, cpu);
        rd(sim, 0, A, 0);
    }
    CHECK_EQ(patterns(sim, 0)[MS_PAT_MPSC], 0); /* still pending */
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 0); /* nobody had written before cpu1 */
    for (unsigned cpu = 0; cpu < 4; cpu++) {
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_MPSC], 1);
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_COLD_START], cpu == 1 ? 0 : 1);
    }
    ms_sim_finish(sim); /* idempotent */
    CHECK_EQ(patterns(sim, 0)[MS_PAT_MPSC], 1);
    ms_sim_destroy(sim);
}

/* Two producers, two consumers in one round: MPMC. */
static void test_multiple_producers_multiple_consumers(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=4");
    wr(sim, 0, A, 0);
    wr(sim, 1, A, 1);
    rd(sim, 2, A, 2);
    rd(sim, 3, A, 3);
    wr(sim, 0, A, 0); /* closes: cold starts (cpu1, 2, 3), new round {0} */
    wr(sim, 1, A, 1);
    rd(sim, 2, A, 2);
    rd(sim, 3, A, 3);
    ms_sim_finish(sim);
    for (unsigned cpu = 0; cpu < 4; cpu++) CHECK_EQ(patterns(sim, cpu)[MS_PAT_MPMC], 1);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 1);
    ms_sim_destroy(sim);
}

/* Migratory: each processor reads then writes the line, passing it on. */
static void test_migratory(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    for (int i = 0; i < 3; i++)
        for (unsigned cpu = 0; cpu < 2; cpu++) {
            rd(sim, cpu, A, cpu);
            wr(sim, cpu, A, cpu);
        }
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 1);
    CHECK_EQ(patterns(sim, 0)[MS_PAT_MIGRATORY], 2);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_MIGRATORY], 2);
    CHECK_EQ(patterns(sim, 0)[MS_PAT_SPSC] + patterns(sim, 1)[MS_PAT_SPSC], 0);
    ms_sim_destroy(sim);
}

/* Write-only sharing: two processors writing the line in turn. A processor that writes again
 * after another one did closes the round (the values were overwritten unread), and a round
 * with several producers and no consumer is migratory: cpu1's first write is a cold start, the
 * four later write misses (two each) are migratory, none multiple-producer. */
static void test_write_only_sharing(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=2");
    for (int i = 0; i < 3; i++)
        for (unsigned cpu = 0; cpu < 2; cpu++) wr(sim, cpu, A, cpu);
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 1);
    CHECK_EQ(patterns(sim, 0)[MS_PAT_MIGRATORY], 2);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_MIGRATORY], 2);
    for (unsigned cpu = 0; cpu < 2; cpu++)
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_MPSC] + patterns(sim, cpu)[MS_PAT_SPSC], 0);
    ms_sim_destroy(sim);
    /* three writers round robin three times, then a reader: the first round is cold starts,
     * the second (write-only, closed by cpu0's write) migratory, the last (three producers,
     * cpu0's read miss) multiple-producer/single-consumer */
    sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=3");
    for (int i = 0; i < 3; i++)
        for (unsigned cpu = 0; cpu < 3; cpu++) wr(sim, cpu, A, cpu);
    rd(sim, 0, A, 0);
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START] + patterns(sim, 2)[MS_PAT_COLD_START], 2);
    for (unsigned cpu = 0; cpu < 3; cpu++) {
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_MIGRATORY], 1);
        CHECK_EQ(patterns(sim, cpu)[MS_PAT_MPSC], cpu == 0 ? 2 : 1);
    }
    ms_sim_destroy(sim);
}

/* The round's pending list is bounded: a fifth (ctx, cpu) is added to the last entry. */
static void test_pending_overflow(void)
{
    ms_sim *sim = sim_from_text("L1=1K:2:64:0;mem=50;procs=6");
    wr(sim, 0, A, 0);
    for (unsigned cpu = 1; cpu < 6; cpu++) rd(sim, cpu, A, cpu);
    ms_sim_finish(sim);
    CHECK_EQ(patterns(sim, 1)[MS_PAT_COLD_START], 1);
    CHECK_EQ(patterns(sim, 4)[MS_PAT_COLD_START], 2); /* cpu5's miss joined cpu4's entry */
    CHECK_EQ(patterns(sim, 5)[MS_PAT_COLD_START], 0);
    ms_sim_destroy(sim);
}

int main(void)
{
    test_single_producer_single_consumer();
    test_single_producer_multiple_consumers();
    test_multiple_producers_single_consumer();
    test_multiple_producers_multiple_consumers();
    test_migratory();
    test_write_only_sharing();
    test_pending_overflow();
    CHECK_EQ(default_heap.outstanding, 0);
    return check_result();
}
