/* Replay speed: a synthetic 4-thread recording (strided loops, a barrier every 65536 accesses,
 * a lock around every 1000th access) replayed in both modes into a counting sink; prints the
 * nanoseconds per access and checks the counts. Usage: test_replay_bench [accesses per thread]
 * (default 1000000). */
#include <time.h>

#include "check.h"
#include "replay_testutil.h"

#define NTHREADS 4

typedef struct {
    uint64_t n, locked, sum, regions;
} counting_sink;

static void count_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                         uint32_t ctx)
{
    (void)cpu, (void)size, (void)write, (void)ctx;
    counting_sink *c = ud;
    c->n++;
    c->locked += locked;
    c->sum += addr;
}

static void count_region(void *ud) { ((counting_sink *)ud)->regions++; }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Write the recording; returns the sum of all addresses. */
static uint64_t write_recording(const char *dir, uint64_t per_thread)
{
    uint64_t sum = 0, seq = 1;
    for (uint32_t t = 0; t < NTHREADS; t++) {
        char path[512];
        test_stream s;
        ts_init(&s, t, MS_STREAM_VERSION);
        uint64_t base = 0x10000000ull * (t + 1), in_chunk = 0;
        for (uint64_t i = 0; i < per_thread; i++) {
            int lock = i % 1000 == 999;
            if (lock) ts_sync(&s, MS_SYNC_ACQUIRE, 0x5000, 0, seq++);
            uint64_t addr = lock ? 0x6000 : base + (i % 50000) * 8;
            ts_access(&s, 1 + (uint32_t)(i % 7), addr, 8, (int)(i & 1));
            sum += addr;
            if (lock) ts_sync(&s, MS_SYNC_RELEASE, 0x5000, 0, seq++);
            if (i % 65536 == 65535) ts_sync(&s, MS_SYNC_BARRIER, 1, NTHREADS, seq++);
            if ((in_chunk += 1 + 2 * lock) >= 4000) {
                ts_chunk(&s);
                in_chunk = 0;
            }
        }
        snprintf(path, sizeof path, "%s/thread-%u.zst", dir, t);
        ts_write(&s, path, 0);
    }
    return sum;
}

int main(int argc, char **argv)
{
    uint64_t per_thread = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    char dir[256], err[512];
    ts_make_dir(dir, sizeof dir);
    uint64_t want_sum = write_recording(dir, per_thread);
    ms_replay *r;
    CHECK_EQ_INT(ms_replay_open(&r, dir, 100, err, sizeof err), 0);
    const char *names[] = { "interleaved", "piped" };
    for (int mode = 0; mode < 2; mode++) {
        counting_sink c = { 0 };
        ms_replay_sink sink = { .access = count_access, .region = count_region, .ud = &c };
        ms_replay_result res;
        double t0 = now();
        CHECK_EQ_INT(ms_replay_run(r, (ms_interleave)mode, NTHREADS, &sink, &res, err, sizeof err), 0);
        double dt = now() - t0;
        CHECK_EQ(c.n, NTHREADS * per_thread);
        CHECK_EQ(c.locked, NTHREADS * (per_thread / 1000));
        CHECK_EQ(c.sum, want_sum);
        CHECK_EQ(c.regions, per_thread / 65536);
        CHECK_EQ(res.deadlocks_broken, 0);
        printf("%s: %llu accesses in %.3f s: %.1f ns/access\n", names[mode], (unsigned long long)c.n, dt,
               dt * 1e9 / (double)(c.n ? c.n : 1));
        ms_replay_result_free(&res);
    }
    ms_replay_close(r);
    ts_remove_dir(dir);
    return check_result();
}
