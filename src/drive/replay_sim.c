/* Replay glue: the replay library's sink drives the simulator; afterwards the simulator's
 * per-(context, processor) counters, replacement and invalidation pairs and the replay's
 * per-thread facts go into the raw profile that analysis reads. */
#define _GNU_SOURCE
#include "drive.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/strbuf.h"
#include "../util/util.h"
#include "../sim/sim.h"

static void *sim_calloc(void *ud, size_t bytes) { (void)ud; return calloc(1, bytes); }
static void sim_free(void *ud, void *p, size_t bytes) { (void)ud; (void)bytes; free(p); }

typedef struct {
    ms_sim *sim;
    uint32_t line;       /* L1 line: larger accesses are ranges, as in the runtime */
    uint64_t dropped;
} sim_sink;

static void sink_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                        uint32_t ctx)
{
    sim_sink *s = ud;
    unsigned flags = (write ? MS_ACC_WRITE : 0u) | (locked ? MS_ACC_LOCKED : 0u);
    if (!ctx || !size)
        s->dropped++;
    else if (size <= s->line)
        s->dropped += ms_sim_access(s->sim, cpu, addr, (uint32_t)size, flags, ctx) < 0;
    else
        ms_sim_access_range(s->sim, cpu, addr, size, flags, ctx);
}

static void sink_region(void *ud) { ms_sim_next_region(((sim_sink *)ud)->sim); }

/* Growable arrays of the raw profile. */
typedef struct { ms_raw *raw; size_t cap; int failed; } pair_sink;

static void add_eviction(const ms_eviction *e, void *ud)
{
    pair_sink *p = ud;
    ms_raw *raw = p->raw;
    if (ms_grow((void **)&raw->evictions, &p->cap, raw->nevictions + 1, sizeof *e) < 0)
        p->failed = 1;
    else
        raw->evictions[raw->nevictions++] = *e;
}

static void add_invalidation(const ms_invalidation *e, void *ud)
{
    pair_sink *p = ud;
    ms_raw *raw = p->raw;
    if (ms_grow((void **)&raw->invalidations, &p->cap, raw->ninvalidations + 1, sizeof *e) < 0)
        p->failed = 1;
    else
        raw->invalidations[raw->ninvalidations++] = *e;
}

/* A counter row worth keeping: the context referenced or took part in an invalidation. */
static int counter_used(const ms_counters *c)
{
    return c->reads || c->writes || c->inval.received || c->inval.sent;
}

/* Append the simulator's results to raw. Returns 0 or -1 (out of memory). */
static int take_results(ms_raw *raw, ms_sim *sim, const ms_replay_result *res, ms_interleave mode)
{
    ms_sim_finish(sim);
    uint32_t n = 0;
    unsigned nprocs = ms_sim_nprocs(sim);
    const ms_counters *c = ms_sim_counters(sim, &n);
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++)
        used += counter_used(&c[i]);
    ms_raw_counter *v = realloc(raw->counters, (raw->ncounters + used + 1) * sizeof *v);
    if (!v) return -1;
    raw->counters = v;
    for (uint32_t i = 0; i < n; i++)
        if (counter_used(&c[i]))
            raw->counters[raw->ncounters++] = (ms_raw_counter){ i / nprocs, i % nprocs, c[i] };
    pair_sink ev = { raw, raw->nevictions, 0 }, inv = { raw, 0, 0 };
    ms_sim_each_eviction(sim, add_eviction, &ev);
    free(raw->invalidations);
    raw->invalidations = NULL;
    raw->ninvalidations = 0;
    ms_sim_each_invalidation(sim, add_invalidation, &inv);
    if (ev.failed || inv.failed) return -1;
    free(raw->threads);
    raw->threads = calloc(res->nthreads ? res->nthreads : 1, sizeof *raw->threads);
    if (!raw->threads) return -1;
    for (size_t i = 0; i < res->nthreads; i++) {
        const ms_replay_thread *t = &res->threads[i];
        raw->threads[i] = (ms_raw_thread){ t->index, t->cpu, t->parent, t->accesses, t->syncs, t->wait_turns,
                                           t->complete };
    }
    raw->nthreads_replayed = res->nthreads;
    raw->nprocs = nprocs;
    free(raw->interleave);
    raw->interleave = strdup(ms_interleave_name(mode));
    char spec[512];
    ms_config_format(ms_sim_config(sim), spec, sizeof spec);
    free(raw->config_text);
    raw->config_text = strdup(spec);
    raw->nlevels = ms_sim_config(sim)->nlevels;
    return raw->interleave && raw->config_text ? 0 : -1;
}

/* What the user should know about the replay: broken deadlocks, unattributed accesses. */
static int note_replay(ms_raw *raw, const ms_replay_result *res, uint64_t dropped)
{
    if (res->deadlocks_broken &&
        ms_raw_add_note(raw, "replay: %llu waits could not be satisfied in replay order (a lock-order "
                             "inversion, a signal without a recorded waiter, ...) and were let through "
                             "in recorded order", (unsigned long long)res->deadlocks_broken) < 0)
        return -1;
    if (dropped && ms_raw_add_note(raw, "replay: %llu accesses without a known context were not simulated",
                                   (unsigned long long)dropped) < 0)
        return -1;
    return 0;
}

void ms_drive_problems_free(ms_drive_problems *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
    p->v = NULL;
    p->n = 0;
}

char *ms_drive_problems_join(const ms_drive_problems *p)
{
    ms_strbuf s = MS_STRBUF_INIT;
    ms_strbuf_adds(&s, "");
    for (size_t i = 0; i < p->n; i++) {
        if (i) ms_strbuf_adds(&s, "; ");
        ms_strbuf_adds(&s, p->v[i]);
    }
    return ms_strbuf_take(&s);
}

/* Take the replay's problems over into *p. */
static void take_problems(ms_replay_result *res, ms_drive_problems *p)
{
    p->v = res->problems;
    p->n = res->nproblems;
    res->problems = NULL;
    res->nproblems = 0;
}

int ms_drive_replay(const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                    ms_drive_problems *problems, char *err, size_t errlen)
{
    ms_replay *rp = NULL;
    memset(problems, 0, sizeof *problems);
    uint32_t max_ctx = 0;
    for (size_t i = 0; i < raw->ncontexts; i++)
        if (raw->contexts[i].ctx > max_ctx) max_ctx = raw->contexts[i].ctx;
    if (ms_replay_open(&rp, dir, max_ctx, err, errlen) < 0) return -1;
    ms_hier_config c = *cfg;
    size_t nthreads = ms_replay_nthreads(rp);
    if (!c.nprocs) c.nprocs = (uint32_t)(nthreads < 1 ? 1 : nthreads > MS_MAX_PROCS ? MS_MAX_PROCS : nthreads);
    if (c.nnodes > c.nprocs) c.nnodes = c.nprocs;
    const ms_allocator alloc = { sim_calloc, sim_free, NULL };
    sim_sink s = { NULL, c.level[0].line, 0 };
    char why[1024] = "out of memory";
    if (ms_config_validate(&c, why, sizeof why) < 0 || ms_sim_create(&s.sim, &c, &alloc) < 0) {
        snprintf(err, errlen, "cannot create the simulator for %u processors: %s", c.nprocs, why);
        ms_replay_close(rp);
        return -1;
    }
    ms_replay_sink sink = { sink_access, sink_region, &s };
    ms_replay_result res;
    memset(&res, 0, sizeof res);
    char rerr[2048];
    int rc = ms_replay_run(rp, mode, c.nprocs, &sink, &res, rerr, sizeof rerr);
    if (rc < 0) {
        snprintf(err, errlen, "replaying %s: %s", dir, rerr);
    } else if (take_results(raw, s.sim, &res, mode) < 0 || note_replay(raw, &res, s.dropped) < 0) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else if (rc > 0) {
        take_problems(&res, problems);
    }
    ms_replay_result_free(&res);
    ms_sim_destroy(s.sim);
    ms_replay_close(rp);
    return rc;
}

int ms_drive_resim(const char *raw_path, const char *dir, const ms_hier_config *cfg, ms_interleave mode,
                   ms_raw *raw, ms_drive_problems *problems, char *err, size_t errlen)
{
    char why[1024];
    memset(problems, 0, sizeof *problems);
    memset(raw, 0, sizeof *raw);
    if (ms_raw_read(raw_path, raw, why, sizeof why) < 0) {
        snprintf(err, errlen, "cannot read %s: %s", raw_path, why);
        return -1;
    }
    free(raw->counters);
    free(raw->evictions);
    raw->counters = NULL;
    raw->evictions = NULL;
    raw->ncounters = raw->nevictions = 0;
    return ms_drive_replay(dir, cfg, mode, raw, problems, err, errlen);
}
