/* A replay of a recording's references without a simulator, into a callback (the row-stride
 * collector, a what-if remap learning where bins lie): one processor per thread, in the
 * recorded interleave. */
#include "drive.h"
#include <stdio.h>
#include <string.h>

typedef struct {
    ms_drive_scan_fn fn;
    void *ud;
} scan;

static void scan_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                        uint32_t ctx)
{
    (void)write;
    (void)locked;
    const scan *s = ud;
    s->fn(s->ud, cpu, ctx, addr, size);
}

static void scan_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n)
{
    (void)locked;
    const scan *s = ud;
    for (size_t i = 0; i < n; i++) s->fn(s->ud, cpu, ev[i].ctx, ev[i].addr, ev[i].size);
}

static void scan_region(void *ud) { (void)ud; }

int ms_drive_scan(const char *dir, ms_interleave mode, uint32_t max_ctx, ms_drive_scan_fn fn, void *ud, char *err,
                  size_t errlen)
{
    ms_replay *rp = NULL;
    if (ms_replay_open(&rp, dir, max_ctx, err, errlen) < 0) return -1;
    size_t nthreads = ms_replay_nthreads(rp);
    unsigned nprocs = (unsigned)(nthreads < 1 ? 1 : nthreads > MS_MAX_PROCS ? MS_MAX_PROCS : nthreads);
    scan s = { fn, ud };
    ms_replay_sink sink = { .access = scan_access, .accesses = scan_accesses, .region = scan_region, .ud = &s };
    ms_replay_result res;
    memset(&res, 0, sizeof res);
    char rerr[2048];
    int rc = ms_replay_run(rp, mode == MS_INTERLEAVE_TIMED ? MS_INTERLEAVE_INTERLEAVED : mode, nprocs, &sink, &res,
                           rerr, sizeof rerr);
    if (rc < 0) snprintf(err, errlen, "replaying %s: %s", dir, rerr);
    ms_replay_result_free(&res);
    ms_replay_close(rp);
    return rc < 0 ? -1 : 0;
}
