/* The timed order (replay.h): exact clocks, wait instances and cycle profiles of synthetic
 * recordings: a barrier released at the last arrival, locks granted in simulated request
 * order, a wait placed at its event's site (else the last access), a join waiting for the
 * child's exit, the approximate mode without WORK events, and
 * the default order (timed for more than one thread). */
#include "check.h"
#include "replay_testutil.h"

/* A sink whose costs are known: block B costs B cycles per execution, an access at an
 * address >= 1000 stalls 100 cycles (others hit); waits are written as text
 * "KIND:OBJ cpuC#S FROM-TO lateL#S". */
typedef struct {
    char text[4096];
    size_t len;
    uint64_t arrivals;
    uint32_t ctx[8]; /* the code location of the first waits */
    size_t nwaits;
} timed_sink;

static void ts_noaccess(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                        uint32_t ctx)
{
    (void)ud, (void)cpu, (void)addr, (void)size, (void)write, (void)locked, (void)ctx;
}
static void ts_noregion(void *ud) { (void)ud; }
static uint64_t ts_cycles(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                          uint32_t ctx)
{
    (void)ud, (void)cpu, (void)size, (void)write, (void)locked, (void)ctx;
    return addr >= 1000 ? 100 : 0;
}
static uint64_t ts_work_cycles(void *ud, uint32_t block, uint64_t count)
{
    (void)ud;
    return block * count;
}
static void ts_arrive(void *ud, unsigned cpu, uint64_t serial, unsigned kind, uint64_t obj, uint64_t clock)
{
    (void)cpu, (void)serial, (void)kind, (void)obj, (void)clock;
    ((timed_sink *)ud)->arrivals++;
}
static void ts_wait(void *ud, const ms_replay_wait *w)
{
    timed_sink *s = ud;
    if (s->nwaits < sizeof s->ctx / sizeof *s->ctx) s->ctx[s->nwaits] = w->ctx;
    s->nwaits++;
    s->len += (size_t)snprintf(s->text + s->len, sizeof s->text - s->len, "%s%u:%llu cpu%u#%llu %llu-%llu late%d#%llu",
                               s->len ? " " : "", w->kind, (unsigned long long)w->obj, w->cpu,
                               (unsigned long long)w->serial, (unsigned long long)w->from, (unsigned long long)w->to,
                               w->late_cpu, (unsigned long long)w->late_serial);
}

typedef struct {
    char dir[256];
    timed_sink sink;
    ms_replay_result res;
} fixture;

static void run_order(fixture *f, ms_interleave mode, const char *t0, const char *t1, const char *t2)
{
    const char *scripts[] = { t0, t1, t2 };
    ts_make_dir(f->dir, sizeof f->dir);
    for (uint32_t i = 0; i < 3 && scripts[i]; i++) ts_write_script(f->dir, i, scripts[i]);
    memset(&f->sink, 0, sizeof f->sink);
    char err[512];
    ms_replay *r;
    CHECK_EQ_INT(ms_replay_open(&r, f->dir, 100, err, sizeof err), 0);
    ms_replay_sink sink = { ts_noaccess, ts_noregion, &f->sink, NULL, ts_cycles, ts_work_cycles,
                            ts_arrive,   ts_wait,     NULL,     NULL, NULL };
    CHECK_EQ_INT(ms_replay_run(r, mode, (unsigned)ms_replay_nthreads(r), &sink, &f->res, err, sizeof err), 0);
    ms_replay_close(r);
}

static void run_timed(fixture *f, const char *t0, const char *t1, const char *t2)
{
    run_order(f, MS_INTERLEAVE_TIMED, t0, t1, t2);
}

static void done(fixture *f)
{
    ms_replay_result_free(&f->res);
    ts_remove_dir(f->dir);
}

/* the clock of a thread is the sum of its parts */
static uint64_t clock_of(const ms_replay_thread *t) { return t->compute + t->stall + t->waiting + t->sync; }

static void test_barrier_releases_at_last_arrival(void)
{
    fixture f;
    run_timed(&f, "work1/400 bar7/2 r1", "work1/100 bar7/2 r2", NULL);
    CHECK_STR(f.sink.text, "3:7 cpu1#1 100-400 late0#1");
    CHECK_EQ(f.res.threads[1].waiting, 300);
    CHECK_EQ(f.res.threads[1].compute, 100);
    CHECK_EQ(f.res.threads[0].waiting, 0);
    CHECK_EQ(clock_of(&f.res.threads[0]), 420);
    CHECK_EQ(clock_of(&f.res.threads[1]), 420);
    CHECK_EQ(f.res.timed_approximate, 0);
    CHECK_EQ(f.sink.arrivals, 4); /* two barriers, two stream ends */
    done(&f);
}

/* A wait's code location: the site its event carries (the synchronising call), else the
 * waiter's last access before it. */
static void test_wait_location(void)
{
    fixture f;
    run_timed(&f, "work1/400 bar7/2 work1/400 bar7/2 work1/10 acq3 work1/400 rel3",
              "c5:r1 work1/100 bar7/2^9 c6:r2 work1/100 bar7/2 work1/100 acq3^11 rel3", NULL);
    CHECK_STR(f.sink.text, "3:7 cpu1#1 100-400 late0#1 3:7 cpu1#2 520-820 late0#2 1:3 cpu1#3 940-1270 late0#4");
    CHECK_EQ(f.sink.nwaits, 3);
    CHECK_EQ(f.sink.ctx[0], 9);  /* the barrier's site */
    CHECK_EQ(f.sink.ctx[1], 6);  /* no site: the last access */
    CHECK_EQ(f.sink.ctx[2], 11); /* the lock's site */
    done(&f);
}

static void test_lock_in_request_order(void)
{
    fixture f;
    /* thread 1 asks first (clock 10), thread 2 at 20, thread 0 at 50 */
    run_timed(&f, "work1/50 acq1 work1/100 rel1", "work1/10 acq1 work1/5 rel1", "work1/20 acq1 work1/5 rel1");
    CHECK_STR(f.sink.text, "1:1 cpu2#1 20-35 late1#2 1:1 cpu0#1 50-60 late2#2");
    CHECK_EQ(f.res.threads[0].waiting, 10);
    CHECK_EQ(f.res.threads[0].compute, 150);
    CHECK_EQ(f.res.threads[0].sync, 40);
    CHECK_EQ(clock_of(&f.res.threads[0]), 200);
    CHECK_EQ(f.res.deadlocks_broken, 0);
    done(&f);
}

static void test_join_waits_for_exit(void)
{
    fixture f;
    run_timed(&f, "create1 work1/10 join1 w1000", "work1/300 exit", NULL);
    CHECK_STR(f.sink.text, "5:1 cpu0#2 30-300 late1#1");
    CHECK_EQ(f.res.threads[0].stall, 100);
    CHECK_EQ(clock_of(&f.res.threads[0]), 420);
    CHECK_EQ(clock_of(&f.res.threads[1]), 320);
    done(&f);
}

static void test_without_work_is_approximate(void)
{
    fixture f;
    run_timed(&f, "r1 w1000 bar1/2", "bar1/2", NULL);
    CHECK_EQ(f.res.timed_approximate, 1);
    CHECK_EQ(f.res.threads[0].compute, 2 * MS_TIMED_REF_CYCLES);
    CHECK_EQ(f.res.threads[0].stall, 100);
    CHECK_STR(f.sink.text, "3:1 cpu1#1 0-104 late0#1");
    done(&f);
}

/* A spin-wait on an atomic flag (its first load skipped as a spin iteration) waits until the
 * release that set it, as a wait of kind ATOMIC, however many iterations were recorded. */
static void test_spin_waits_for_release(void)
{
    fixture f;
    run_timed(&f, "work1/10 ald200@1 ald200@3 r100", "work1/500 w200 ast200@2", NULL);
    CHECK_STR(f.sink.text, "14:200 cpu0#1 10-500 late1#1");
    CHECK_EQ(f.res.threads[0].waiting, 490);
    CHECK_EQ(f.res.threads[0].syncs, 1);
    CHECK_EQ(clock_of(&f.res.threads[0]), 520);
    done(&f);
}

/* Unmatched synchronisation never hangs: a barrier one participant never reaches is let
 * through by deadlock breaks, a lock whose holder ends is handed on at the holder's end. */
static void test_unmatched(void)
{
    fixture f;
    run_timed(&f, "work1/10 bar1/3 r1", "work1/50 bar1/3", NULL);
    CHECK_EQ(f.res.deadlocks_broken, 1);
    CHECK_EQ(f.res.threads[0].accesses, 1);
    CHECK_STR(f.sink.text, ""); /* thread 1's barrier passed at its own clock: no wait */
    done(&f);
    run_timed(&f, "work1/10 acq5 work1/90", "work1/20 acq5 r1", NULL);
    CHECK_EQ(f.res.deadlocks_broken, 0);
    CHECK_STR(f.sink.text, "1:5 cpu1#1 20-120 late0#2"); /* released at thread 0's end */
    done(&f);
}

/* No order chosen: timed for more than one thread, interleaved for one (no clocks, no
 * arrivals); a chosen order stays; "default" is a name, not an order the user can ask for. */
static void test_default_order(void)
{
    CHECK_EQ_INT(ms_interleave_resolve(MS_INTERLEAVE_DEFAULT, 2), MS_INTERLEAVE_TIMED);
    CHECK_EQ_INT(ms_interleave_resolve(MS_INTERLEAVE_DEFAULT, 1), MS_INTERLEAVE_INTERLEAVED);
    CHECK_EQ_INT(ms_interleave_resolve(MS_INTERLEAVE_PIPED, 4), MS_INTERLEAVE_PIPED);
    CHECK_EQ_INT(ms_interleave_resolve(MS_INTERLEAVE_INTERLEAVED, 4), MS_INTERLEAVE_INTERLEAVED);
    CHECK_STR(ms_interleave_name(MS_INTERLEAVE_DEFAULT), "default");
    ms_interleave m = MS_INTERLEAVE_PIPED;
    CHECK_EQ_INT(ms_interleave_parse("default", &m), -1);
    CHECK_EQ_INT(ms_interleave_parse("timed", &m), 0);
    CHECK_EQ_INT(m, MS_INTERLEAVE_TIMED);
    fixture f;
    run_order(&f, MS_INTERLEAVE_DEFAULT, "work1/400 bar7/2 r1", "work1/100 bar7/2 r2", NULL);
    CHECK_STR(f.sink.text, "3:7 cpu1#1 100-400 late0#1"); /* as test_barrier_releases_at_last_arrival */
    CHECK_EQ(f.res.threads[1].waiting, 300);
    done(&f);
    run_order(&f, MS_INTERLEAVE_DEFAULT, "work1/400 r1 w1000", NULL, NULL);
    CHECK_EQ(f.sink.arrivals, 0); /* interleaved: no clocks */
    CHECK_EQ(f.res.threads[0].compute, 0);
    CHECK_EQ(f.res.threads[0].accesses, 2);
    CHECK_EQ(f.res.timed_approximate, 0);
    done(&f);
}

/* A sink that prices accesses by a hash of their address and processor and keeps a hash of
 * the order in which they came; batched: through accesses_cycles. */
typedef struct {
    uint64_t order, n;
    int batched;
} order_sink;

static uint64_t os_cycles(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                          uint32_t ctx)
{
    (void)size, (void)write, (void)locked, (void)ctx;
    order_sink *o = ud;
    o->order = (o->order ^ (addr * 4 + cpu)) * 1099511628211ull;
    o->n++;
    uint64_t h = (addr * 0x9E3779B97F4A7C15ull) >> 58;
    return h < 40 ? 0 : h; /* most hit, the rest stall 40..63 cycles */
}

static size_t os_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n,
                          uint64_t compute, uint64_t *clock, uint64_t limit, uint64_t *stall)
{
    size_t i = 0;
    do {
        uint64_t st = os_cycles(ud, cpu, ev[i].addr, ev[i].size, ev[i].write, locked, ev[i].ctx);
        *clock += st + compute;
        *stall += st;
        i++;
    } while (i < n && ev[i].kind == 0 && *clock < limit);
    return i;
}

static void os_work(void *ud, unsigned cpu, uint32_t block, uint64_t count)
{
    order_sink *o = ud;
    o->order = (o->order ^ (block * 4 + cpu + count)) * 1099511628211ull;
}

/* Runs of accesses handed over at once (accesses_cycles) replay the same accesses in the same
 * order with the same clocks as one at a time: three threads of strided and scattered accesses
 * whose stalls differ, WORK between them, a lock and barriers. */
static void test_batched_same_order(void)
{
    char dir[256], err[512];
    ts_make_dir(dir, sizeof dir);
    static char script[3][60000];
    for (uint32_t t = 0; t < 3; t++) {
        size_t len = 0;
        uint64_t x = 7 + t;
        for (unsigned i = 0; i < 2400; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            const char *tok = i % 500 == 499 ? "bar1/3" : i % 97 == 0 ? "acq5" : i % 97 == 3 ? "rel5" : NULL;
            if (tok)
                len += (size_t)snprintf(script[t] + len, sizeof script[t] - len, "%s ", tok);
            else if (i % 13 == 0)
                len += (size_t)snprintf(script[t] + len, sizeof script[t] - len, "work%u/%u ", 1 + (unsigned)(x >> 60),
                                        1 + (unsigned)(x >> 58) % 7);
            else
                len += (size_t)snprintf(script[t] + len, sizeof script[t] - len, "%c%llu ", x >> 63 ? 'w' : 'r',
                                        (unsigned long long)(i % 3 ? 4096 * t + 8 * i : (x >> 40) % 100000));
        }
        ts_write_script(dir, t, script[t]);
    }
    order_sink o[2] = { { 0 }, { 0 } };
    ms_replay_result res[2];
    for (int b = 0; b < 2; b++) {
        ms_replay *r;
        CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), 0);
        ms_replay_sink sink = { .access = ts_noaccess,
                                .region = ts_noregion,
                                .ud = &o[b],
                                .work = os_work,
                                .access_cycles = os_cycles,
                                .accesses_cycles = b ? os_accesses : NULL };
        CHECK_EQ_INT(ms_replay_run(r, MS_INTERLEAVE_TIMED, 3, &sink, &res[b], err, sizeof err), 0);
        ms_replay_close(r);
    }
    CHECK_EQ(o[1].n, o[0].n);
    CHECK_EQ(o[1].order, o[0].order);
    CHECK_EQ(o[0].n, res[0].accesses);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ(res[1].threads[i].stall, res[0].threads[i].stall);
        CHECK_EQ(res[1].threads[i].compute, res[0].threads[i].compute);
        CHECK_EQ(res[1].threads[i].waiting, res[0].threads[i].waiting);
        CHECK_EQ(clock_of(&res[1].threads[i]), clock_of(&res[0].threads[i]));
        CHECK_EQ(res[1].threads[i].accesses, res[0].threads[i].accesses);
    }
    CHECK_EQ(res[0].threads[0].stall > 0, 1);
    CHECK_EQ(res[0].threads[1].waiting > 0 || res[0].threads[0].waiting > 0 || res[0].threads[2].waiting > 0, 1);
    for (int b = 0; b < 2; b++) ms_replay_result_free(&res[b]);
    ts_remove_dir(dir);
}

int main(void)
{
    test_batched_same_order();
    test_default_order();
    test_unmatched();
    test_spin_waits_for_release();
    test_barrier_releases_at_last_arrival();
    test_lock_in_request_order();
    test_wait_location();
    test_join_waits_for_exit();
    test_without_work_is_approximate();
    return check_result();
}
