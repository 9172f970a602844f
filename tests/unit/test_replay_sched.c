/* The replay scheduler: exact (cpu, addr) sequences of synthetic recordings in interleaved and
 * piped order, and the synchronisation semantics (locks with FIFO hand-off and locked flags,
 * barriers, create/join, condition variables, semaphores, fork/begin, deadlock breaks). */
#include "check.h"
#include "replay_testutil.h"

#define INTERLEAVED MS_INTERLEAVE_INTERLEAVED
#define PIPED MS_INTERLEAVE_PIPED

typedef struct {
    char dir[256];
    recording_sink rec;
    ms_replay_result res;
} fixture;

/* Write up to 5 threads' scripts (NULL ends the list) into a fresh recording. */
static void setup(fixture *f, const char *t0, const char *t1, const char *t2, const char *t3, const char *t4)
{
    const char *scripts[] = { t0, t1, t2, t3, t4 };
    ts_make_dir(f->dir, sizeof f->dir);
    for (uint32_t i = 0; i < 5 && scripts[i]; i++) ts_write_script(f->dir, i, scripts[i]);
}

/* Replay in mode and check the exact sequence and return code. */
static void expect(fixture *f, ms_interleave mode, unsigned nprocs, int want_rc, const char *want)
{
    ms_replay_result_free(&f->res);
    CHECK_EQ_INT(ts_replay(f->dir, mode, nprocs, &f->rec, &f->res), want_rc);
    CHECK_STR(f->rec.text, want);
    CHECK_EQ(f->res.nproblems, 0);
}

static void teardown(fixture *f)
{
    ms_replay_result_free(&f->res);
    ts_remove_dir(f->dir);
}

static void test_orders(void)
{
    fixture f = { 0 };
    setup(&f, "r100 r104 r108", "r200 | r204", "r300", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:100 1:200 2:300 0:104 1:204 0:108");
    CHECK_EQ(f.res.nthreads, 3);
    CHECK_EQ(f.res.accesses, 6);
    CHECK_EQ(f.res.threads[1].accesses, 2);
    CHECK_EQ(f.res.threads[2].cpu, 2);
    CHECK_EQ(f.res.threads[2].complete, 1);
    CHECK_EQ_INT(f.res.threads[2].parent, -1);
    expect(&f, PIPED, 0, 0, "0:100 0:104 0:108 1:200 1:204 2:300");
    teardown(&f);
}

static void test_lock_fifo(void)
{
    fixture f = { 0 };
    /* thread 2 starts waiting (turn 1) before thread 1 (turn 2): it gets the lock first */
    setup(&f, "acq1 w10 w11 rel1 r12", "r20 acq1 w21 rel1", "acq1 w30 rel1", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:10*w 1:20 0:11*w 0:12 2:30*w 1:21*w");
    CHECK_EQ(f.res.threads[2].wait_turns, 2); /* blocked in turns 1 and 2 */
    CHECK_EQ(f.res.threads[1].wait_turns, 3); /* blocked in turns 2, 3 and 4 */
    CHECK_EQ(f.res.threads[0].wait_turns, 0);
    CHECK_EQ(f.res.threads[0].syncs, 2);
    CHECK_EQ(f.res.syncs, 6);
    expect(&f, PIPED, 0, 0, "0:10*w 0:11*w 0:12 1:20 1:21*w 2:30*w");
    teardown(&f);
}

static void test_shared_locks_and_exit_release(void)
{
    fixture f = { 0 };
    setup(&f, "acqs1 r10 r11 rel1", "acqs1 r20 rel1", "acq1 w30 rel1", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:10* 1:20* 0:11* 2:30*w");
    teardown(&f);
    /* thread 0 ends holding lock 1: the lock goes to thread 1 */
    setup(&f, "acq1 r1", "r10 acq1 r11", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1* 1:10 1:11*");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
}

static void test_barrier(void)
{
    fixture f = { 0 };
    setup(&f, "r1 bar7/3 r2", "r11 r12 r13 bar7/3 r14", "r21 bar7/3 r22", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 1:11 2:21 1:12 1:13 | 1:14 2:22 0:2");
    CHECK_EQ(f.rec.regions, 1);
    expect(&f, PIPED, 0, 0, "0:1 1:11 1:12 1:13 2:21 | 2:22 0:2 1:14");
    teardown(&f);
    /* generations: the second arrival of each thread at barrier 7 is a new episode */
    setup(&f, "bar7/2 r1 bar7/2 r2", "r10 r11 r12 bar7/2 r13 bar7/2 r14", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:10 1:11 1:12 | 1:13 0:1 | 0:2 1:14");
    CHECK_EQ(f.rec.regions, 2);
    teardown(&f);
}

static void test_create_join(void)
{
    fixture f = { 0 };
    setup(&f, "r1 create1 r2 r3 join1 r4", "r10 r11 exit r99", "r20 r21", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 2:20 | 0:2 1:10 2:21 0:3 1:11 | 0:4");
    CHECK_EQ_INT(f.res.threads[1].parent, 0);
    CHECK_EQ_INT(f.res.threads[0].parent, -1);
    CHECK_EQ_INT(f.res.threads[2].parent, -1);
    CHECK_EQ(f.res.threads[1].complete, 1);
    CHECK_EQ(f.res.threads[0].wait_turns, 1);
    expect(&f, PIPED, 0, 0, "0:1 | 0:2 0:3 1:10 1:11 | 0:4 2:20 2:21");
    teardown(&f);
}

/* Cond scripts carry the seqs a real run would have: the runtime stamps COND_WAIT when the
 * wait returns, so the waking signal's seq lies between the waiter's previous sync and it. */
static void test_cond(void)
{
    fixture f = { 0 };
    setup(&f, "acq5@1 r1 cwait9/5@5 r2 rel5@6", "r10 r11 acq5@2 w12 csig9@3 rel5@4 r13", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1* 1:10 1:11 1:12*w 1:13 0:2*");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    /* the wait gives up the mutex to thread 0, queued for it: that is progress, no break */
    setup(&f, "r1 acq5@2 w2 csig9@3 rel5@4", "acq5@1 r10 cwait9/5@5 r11 rel5@6", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 1:10* 0:2*w 1:11*");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    /* the signal is replayed before the wait begins (in replay order) but was issued during
     * the wait (by seq): it is kept and taken by the wait */
    setup(&f, "r1 r2 r3 acq5@1 cwait9/5@5 r4 rel5@6", "acq5@2 w10 csig9@3 rel5@4 r11", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 1:10*w 0:2 1:11 0:3 0:4*");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    /* a signal issued before the wait began (by seq) wakes nobody: the wait is let through by
     * a break */
    setup(&f, "r1 acq5@2 cwait9/5@3 r2 rel5@4", "csig9@1 r10", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 1:10 0:2*");
    CHECK_EQ(f.res.deadlocks_broken, 1);
    teardown(&f);
    /* broadcast wakes both waiters; thread 0 (first in the turn) re-acquires the mutex first,
     * thread 1 queues for it and has it handed over at thread 0's release */
    setup(&f, "r1 acq5@1 cwait9/5@6 r2 rel5@8", "acq5@2 cwait9/5@7 r3 rel5@9", "r10 r11 r12 cbc9@4 r13", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 2:10 2:11 2:12 2:13 0:2* 1:3*");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    /* a signal wakes only the longest waiter (thread 0); thread 1 waits until a break */
    setup(&f, "acq5@1 cwait9/5@5 r1 rel5@6", "r10 acq5@2 cwait9/5@8 r11 rel5@9", "r20 r21 r22 csig9@4 r23 r24 r25 r26",
          NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:10 2:20 2:21 2:22 2:23 0:1* 2:24 2:25 2:26 1:11*");
    CHECK_EQ(f.res.deadlocks_broken, 1);
    teardown(&f);
}

static void test_semaphore(void)
{
    fixture f = { 0 };
    setup(&f, "wait3 r1 wait3 r2", "r10 post3 r11 r12 post3", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:10 1:11 0:1 1:12 0:2");
    expect(&f, PIPED, 0, 0, "1:10 1:11 1:12 0:1 0:2");
    teardown(&f);
}

static void test_fork_begin(void)
{
    fixture f = { 0 };
    setup(&f, "r1 fork4/2 begin4/2 r2 bar8/2 r3", "begin4/2 r10 bar8/2 r11", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 | 0:2 1:10 | 1:11 0:3");
    CHECK_EQ(f.rec.regions, 2);
    CHECK_EQ(f.res.threads[1].wait_turns, 1);
    expect(&f, PIPED, 0, 0, "0:1 | 0:2 1:10 | 1:11 0:3");
    teardown(&f);
}

static void test_deadlock_break(void)
{
    fixture f = { 0 };
    /* lock inversion: thread 1's acquire of lock 1 (seq 3) is older than thread 0's of lock 2 */
    setup(&f, "acq1@1 r1 acq2@4 r2 rel2@5 rel1@6", "acq2@2 r10 acq1@3 r11 rel1@7 rel2@8", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1* 1:10* 1:11* 0:2*");
    CHECK_EQ(f.res.deadlocks_broken, 1);
    teardown(&f);
    /* the same with the seqs the other way round: thread 0 goes first */
    setup(&f, "acq1@1 r1 acq2@3 r2 rel2@5 rel1@6", "acq2@2 r10 acq1@4 r11 rel1@7 rel2@8", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1* 1:10* 0:2* 1:11*");
    CHECK_EQ(f.res.deadlocks_broken, 1);
    teardown(&f);
}

/* Atomics as ordering edges: a load-acquire (seq 6) that read thread 1's store-release
 * (seq 5) is replayed after it and after the writes before it, in every order; an acquire
 * stamped before the release (seq 2) and a relaxed load do not wait. */
static void test_atomic_edges(void)
{
    fixture f = { 0 };
    setup(&f, "ald200@6 r100", "w100 w200 ast200@5", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:100w 1:200w 0:100");
    CHECK_EQ(f.res.threads[0].wait_turns, 3);
    expect(&f, PIPED, 0, 0, "1:100w 1:200w 0:100");
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "1:100w 1:200w 0:100");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    CHECK_EQ(f.res.syncs, 2);
    teardown(&f);
    setup(&f, "ald200@2 arld200@7 r100", "w100 ast200@5", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:100 1:100w");
    expect(&f, PIPED, 0, 0, "0:100 1:100w");
    teardown(&f);
    /* a token passed round (acquire the turn, work, release it): recorded order 0, 2, 1, 0 */
    setup(&f, "ald300@1 w100 ast300@2 ald300@7 w100 ast300@8", "ald300@5 w100 ast300@6", "ald300@3 w100 ast300@4", NULL,
          NULL);
    expect(&f, PIPED, 0, 0, "0:100w 2:100w 1:100w 0:100w");
    expect(&f, INTERLEAVED, 0, 0, "0:100w 2:100w 1:100w 0:100w");
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "0:100w 2:100w 1:100w 0:100w");
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    /* a spin: thread 0's loads of 200 before the one that saw the release are skipped (with
     * their reads), in every order; the last one waits for the release */
    setup(&f, "ald200@1 r200 ald200@2 r200 ald200@4 r200 r100", "w100 w200 ast200@3", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:100w 1:200w 0:200 0:100");
    expect(&f, PIPED, 0, 0, "1:100w 1:200w 0:200 0:100");
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "1:100w 1:200w 0:200 0:100");
    CHECK_EQ(f.res.threads[0].accesses, 2);
    CHECK_EQ(f.res.threads[0].syncs, 1);
    teardown(&f);
    /* the same spin cut by chunk boundaries (the load before one is carried over to the next
     * chunk); a carried load that no load follows is replayed */
    setup(&f, "ald200@1 | r200 ald200@2 r200 | ald200@4 r200 r100", "w100 w200 ast200@3", NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:100w 1:200w 0:200 0:100");
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "1:100w 1:200w 0:200 0:100");
    teardown(&f);
    setup(&f, "ald200@4 r200 | r100", "w100 w200 ast200@3", NULL, NULL, NULL);
    expect(&f, PIPED, 0, 0, "1:100w 1:200w 0:200 0:100");
    CHECK_EQ(f.res.threads[0].syncs, 1);
    teardown(&f);
    /* the same spin in plugin code: the WORK of the loop's blocks between its loads is
     * skipped with them, also across a chunk boundary */
    setup(&f, "ald200@1 r200 work3/2 work4/1 ald200@2 r200 work3/1 ald200@4 r200 r100", "w100 w200 ast200@3", NULL,
          NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "1:100w 1:200w 0:200 0:100");
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "1:100w 1:200w 0:200 0:100");
    CHECK_EQ(f.res.threads[0].accesses, 2);
    CHECK_EQ(f.res.threads[0].syncs, 1);
    teardown(&f);
    setup(&f, "ald200@1 r200 work3/2 | work4/1 ald200@2 r200 | ald200@4 r200 r100", "w100 w200 ast200@3", NULL, NULL,
          NULL);
    expect(&f, PIPED, 0, 0, "1:100w 1:200w 0:200 0:100");
    CHECK_EQ(f.res.threads[0].syncs, 1);
    teardown(&f);
    /* an acquire load followed by other synchronisation is no spin */
    setup(&f, "ald200@1 r200 work3/2 acq1@5 ald200@6 r200", "w100 ast200@3", NULL, NULL, NULL);
    expect(&f, PIPED, 0, 0, "0:200 1:100w 0:200*");
    teardown(&f);
    /* acq_rel read-modify-writes on one counter keep their recorded order */
    setup(&f, "armw300@1 w100 armw300@4 w101", "armw300@3 w102", "armw300@2 w103", NULL, NULL);
    expect(&f, PIPED, 0, 0, "0:100w 2:103w 1:102w 0:101w");
    teardown(&f);
}

/* Many atomics (the replay keeps one release in the object itself, more on the heap, and puts
 * neighbouring flags in neighbouring buckets, sync_table.c): 100 flags side by side, released
 * in order by thread 1 and acquired in reverse by thread 0, which therefore waits for the last
 * release (more objects than the table's first 64 buckets); and one counter taken in turn by
 * two threads with 80 acq_rel read-modify-writes (its releases grow from one to 16, 32, 64 and
 * 128 places), whose recorded order every order keeps. In the timed order thread 0's write
 * comes first all the same: its seq-2 read-modify-write waits for thread 1's seq 1, but both
 * happen at clock 0, both threads go on at the same clock, and ties go to the lower index
 * (by design: a tie broken by the recorded seqs would make the timed order depend on the
 * recorded run's schedule; t_explained's second runs showed it). With three reads before
 * thread 1's seq 1, thread 0 waits for them. */
static void test_atomic_many(void)
{
    enum { FLAGS = 100, TURNS = 40 };
    static char t0[FLAGS * 32], t1[FLAGS * 32], want[FLAGS * 32];
    size_t n0 = 0, n1 = 0, nw = 0;
    for (int k = 0; k < FLAGS; k++) {
        n1 += (size_t)snprintf(t1 + n1, sizeof t1 - n1, "w%d ast%d@%d ", 1000 + 4 * k, 1000 + 4 * k, k + 1);
        n0 += (size_t)snprintf(t0 + n0, sizeof t0 - n0, "ald%d@%d r%d ", 1000 + 4 * (FLAGS - 1 - k), 1000 + k,
                               1000 + 4 * (FLAGS - 1 - k));
    }
    for (int k = 0; k < FLAGS; k++) nw += (size_t)snprintf(want + nw, sizeof want - nw, "1:%dw ", 1000 + 4 * k);
    for (int k = FLAGS - 1; k >= 0; k--)
        nw += (size_t)snprintf(want + nw, sizeof want - nw, k ? "0:%d " : "0:%d", 1000 + 4 * k);
    fixture f = { 0 };
    setup(&f, t0, t1, NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, want);
    expect(&f, PIPED, 0, 0, want);
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, want);
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
    n0 = n1 = nw = 0;
    for (int k = 0; k < TURNS; k++) {
        n0 += (size_t)snprintf(t0 + n0, sizeof t0 - n0, "armw300@%d w100 ", 2 * k + 2);
        n1 += (size_t)snprintf(t1 + n1, sizeof t1 - n1, "armw300@%d w101 ", 2 * k + 1);
        nw += (size_t)snprintf(want + nw, sizeof want - nw, "%s", k + 1 < TURNS ? "1:101w 0:100w " : "1:101w 0:100w");
    }
    setup(&f, t0, t1, NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, want);
    expect(&f, PIPED, 0, 0, want);
    CHECK_EQ(f.res.deadlocks_broken, 0);
    for (int k = 0; k < TURNS; k++) memcpy(want + 14 * k, "0:100w 1:101w ", 14);
    want[14 * TURNS - 1] = 0;
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, want);
    CHECK_EQ(f.res.deadlocks_broken, 0);
    CHECK_EQ(f.res.threads[0].waiting, 0);
    teardown(&f);
    setup(&f, "armw300@2 w100 armw300@4 w100", "r500 r504 r508 armw300@1 w101 armw300@3 w101", NULL, NULL, NULL);
    expect(&f, MS_INTERLEAVE_TIMED, 0, 0, "1:500 1:504 1:508 0:100w 1:101w 0:100w 1:101w");
    CHECK_EQ(f.res.threads[0].waiting, 3 * MS_TIMED_REF_CYCLES); /* the three reads' time */
    CHECK_EQ(f.res.deadlocks_broken, 0);
    teardown(&f);
}

static void test_procs_mapping(void)
{
    fixture f = { 0 };
    setup(&f, "r100 r110", "r101", "r102", "r103", "r104");
    expect(&f, INTERLEAVED, 2, 0, "0:100 1:101 0:102 1:103 0:104 0:110");
    CHECK_EQ(f.res.nthreads, 5);
    CHECK_EQ(f.res.threads[4].cpu, 0);
    CHECK_EQ(f.res.threads[3].cpu, 1);
    expect(&f, PIPED, 2, 0, "0:100 0:110 1:101 0:102 1:103 0:104");
    teardown(&f);
}

static void test_unattributed(void)
{
    fixture f = { 0 };
    setup(&f, "c0:r1 c7:w2 c0:r3", NULL, NULL, NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0, "0:1 0:2w 0:3");
    CHECK_EQ(f.res.dropped, 2);
    CHECK_EQ(f.res.accesses, 3);
    teardown(&f);
}

/* A batch of interleaved turns (ms_replay_sink.turns) ends at the shortest run of accesses:
 * the next sync event or chunk end of any thread taking part; a thread blocked in a lock's
 * queue sits the batch out (one thread alone hands over its run to `accesses`). */
static void test_batched_turns(void)
{
    fixture f = { 0 };
    int batched = ts_batched;
    ts_batched = rec_mark_turns = 1;
    setup(&f, "r1 r2 r3 | r4 r5 r6 r7 r8 r9", "r10 r11 r12 r13 r14 acq1 w15 rel1 r16 r17 r18",
          "acq1 w20 w21 w22 w23 w24 w25 w26 w27 rel1", NULL, NULL);
    expect(&f, INTERLEAVED, 0, 0,
           "0:1 1:10 2:20*w + 0:2 1:11 2:21*w 0:3 1:12 2:22*w 0:4 1:13 2:23*w + 0:5 1:14 2:24*w 0:6 2:25*w "
           "+ 0:7 2:26*w 0:8 2:27*w 0:9 1:15*w 1:16 1:17 1:18");
    CHECK_EQ(f.res.threads[1].wait_turns, 4); /* queued on lock 1 in turns 6 to 9 */
    CHECK_EQ(f.res.accesses, 26);
    teardown(&f);
    ts_batched = batched;
    rec_mark_turns = 0;
}

int main(void)
{
    for (ts_batched = 0; ts_batched < 2; ts_batched++) {
        test_orders();
        test_lock_fifo();
        test_shared_locks_and_exit_release();
        test_barrier();
        test_create_join();
        test_cond();
        test_semaphore();
        test_fork_begin();
        test_deadlock_break();
        test_atomic_edges();
        test_atomic_many();
        test_procs_mapping();
        test_unattributed();
    }
    test_batched_turns();
    return check_result();
}
