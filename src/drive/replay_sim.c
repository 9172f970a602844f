/* Replay glue: the replay library's sink drives the simulator; afterwards the simulator's
 * per-(context, processor) counters, replacement and invalidation pairs and the replay's
 * per-thread facts go into the raw profile that analysis reads. */
#define _GNU_SOURCE
#include "drive.h"
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/strbuf.h"
#include "../util/util.h"
#include "../analysis/blockcost.h"
#include "../analysis/waiting_collect.h"
#include "mtool_drive.h"
#include "../sim/psim.h"
#include "sim_workers.h"

static void *sim_calloc(void *ud, size_t bytes)
{
    (void)ud;
    return calloc(1, bytes);
}
static void sim_free(void *ud, void *p, size_t bytes)
{
    (void)ud;
    (void)bytes;
    free(p);
}

typedef struct {
    ms_psim *sim;
    uint32_t line; /* L1 line: larger accesses are ranges, as in the runtime */
    uint64_t dropped;
    ms_remap *remap; /* what-if: learning (not planned) or moving (planned) addresses; NULL none */
} sim_sink;

static void simulate(sim_sink *s, unsigned cpu, uint64_t addr, uint64_t size, unsigned flags, uint32_t ctx)
{
    if (size <= s->line)
        s->dropped += ms_psim_access(s->sim, cpu, addr, (uint32_t)size, flags, ctx) < 0;
    else
        ms_psim_access_range(s->sim, cpu, addr, size, flags, ctx);
}

__attribute__((noinline)) static void sink_access_any(void *ud, unsigned cpu, uint64_t addr, uint64_t size,
                                                      unsigned write, unsigned locked, uint32_t ctx)
{
    sim_sink *s = ud;
    unsigned flags = (write ? MS_ACC_WRITE : 0u) | (locked ? MS_ACC_LOCKED : 0u);
    if (s->remap && ctx && size) {
        if (!s->remap->planned) {
            ms_remap_observe(s->remap, ctx, addr, size);
        } else { /* each piece of the access that lands in one moved element */
            for (uint64_t done = 0, to, n; done < size; done += n) {
                n = ms_remap_map(s->remap, ctx, addr + done, size - done, &to);
                simulate(s, cpu, to, n, flags, ctx);
            }
            return;
        }
    }
    if (!ctx || !size)
        s->dropped++;
    else
        simulate(s, cpu, addr, size, flags, ctx);
}

/* The replay's sink for one access (the interleaved order's: one per turn). A plain access
 * (no what-if remapping, a context, a size within a line) goes straight to the simulator's
 * batch; anything else to sink_access_any. */
static void sink_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                        uint32_t ctx)
{
    sim_sink *s = ud;
    if (__builtin_expect(s->remap || !ctx || !size || size > s->line, 0)) {
        sink_access_any(ud, cpu, addr, size, write, locked, ctx);
        return;
    }
    unsigned flags = (write ? MS_ACC_WRITE : 0u) | (locked ? MS_ACC_LOCKED : 0u);
    s->dropped += ms_psim_access(s->sim, cpu, addr, (uint32_t)size, flags, ctx) < 0;
}

/* One access of a run that is not written straight into the batch: sink_access's path. */
static void sink_one(sim_sink *s, unsigned cpu, unsigned flags, const ms_replay_event *e, uint64_t *dropped)
{
    if (!e->ctx || !e->size)
        ++*dropped;
    else if (e->size <= s->line)
        *dropped += ms_psim_access(s->sim, cpu, e->addr, (uint32_t)e->size, flags, e->ctx) < 0;
    else
        ms_psim_access_range(s->sim, cpu, e->addr, e->size, flags, e->ctx);
}

/* The simulator's operation is laid out as the replay's event (psim.h): a run of accesses is
 * copied into the batch as it is, the processor and lock bits added to each flags word. */
_Static_assert(sizeof(ms_psim_op) == sizeof(ms_replay_event), "an operation is an event's copy");
_Static_assert(offsetof(ms_psim_op, addr) == offsetof(ms_replay_event, addr) &&
                   offsetof(ms_psim_op, size) == offsetof(ms_replay_event, size) &&
                   offsetof(ms_psim_op, ctx) == offsetof(ms_replay_event, ctx) &&
                   offsetof(ms_psim_op, kind) == offsetof(ms_replay_event, kind) &&
                   offsetof(ms_psim_op, flags) == offsetof(ms_replay_event, write),
               "an operation is an event's copy");
_Static_assert(MS_ACC_WRITE == 1u, "an event's write (0 or 1) is MS_ACC_WRITE");

/* A run of one thread's accesses (kind 0; write 0 or 1): sink_access for each, copied into
 * the simulator's batch as they are (ms_psim_room: a memcpy per stretch that fits, the
 * processor and lock bits added where not 0); the simulator's workers tell the plain ones from
 * those without a context or size (counted as dropped at the end: ms_psim_unattributed) and
 * those to split per line. The access that fills a batch goes through sink_one. */
static void sink_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n)
{
    sim_sink *s = ud;
    ms_psim *ps = s->sim;
    unsigned lock = locked ? MS_ACC_LOCKED : 0u;
    uint16_t bits = (uint16_t)(cpu << MS_PSIM_OP_CPU_SHIFT | lock);
    int fast = cpu < ms_psim_nprocs(ps);
    uint64_t dropped = 0;
    for (size_t i = 0; i < n;) {
        uint32_t room = 0;
        ms_psim_op *o = fast ? ms_psim_room(ps, &room) : NULL;
        size_t m = n - i < room ? n - i : room;
        if (m) { /* one 32-byte copy each (no rep movs for a few hundred bytes), the bits added */
            if (bits) {
                for (size_t j = 0; j < m; j++) {
                    memcpy(&o[j], &ev[i + j], sizeof o[j]);
                    o[j].flags |= bits;
                }
            } else {
                for (size_t j = 0; j < m; j++) memcpy(&o[j], &ev[i + j], sizeof o[j]);
            }
            ms_psim_commit(ps, (uint32_t)m);
            i += m;
        }
        if (i < n) {
            sink_one(s, cpu, (ev[i].write & 1u) | lock, &ev[i], &dropped);
            i++;
        }
    }
    s->dropped += dropped;
}

/* The interleaved order's turns of k threads (ms_replay_sink.turns): each access copied into
 * the simulator's batch as sink_accesses copies a run, the processor and lock bits of its
 * thread added: as many whole turns as the batch has room for, thread by thread (thread i's
 * accesses every k-th operation); a turn that does not fit goes through sink_one access by
 * access (the one that fills the batch hands it over). */
static void sink_turns(void *ud, size_t k, const unsigned *cpu, const unsigned *locked,
                       const ms_replay_event *const *ev, size_t nturns)
{
    sim_sink *s = ud;
    ms_psim *ps = s->sim;
    uint16_t bits[64];
    unsigned nprocs = ms_psim_nprocs(ps);
    int fast = k <= sizeof bits / sizeof *bits;
    for (size_t i = 0; fast && i < k; i++) {
        fast = cpu[i] < nprocs;
        bits[i] = (uint16_t)(cpu[i] << MS_PSIM_OP_CPU_SHIFT | (locked[i] ? MS_ACC_LOCKED : 0u));
    }
    uint64_t dropped = 0;
    for (size_t j = 0; j < nturns;) {
        uint32_t room = 0;
        ms_psim_op *o = fast ? ms_psim_room(ps, &room) : NULL;
        size_t t = room / k < nturns - j ? room / k : nturns - j; /* whole turns that fit */
        /* one 32-byte copy each */
        for (size_t i = 0; t && i < k; i++) {
            const ms_replay_event *e = ev[i] + j;
            ms_psim_op *d = o + i;
            for (size_t x = 0; x < t; x++, d += k) {
                memcpy(d, &e[x], sizeof *d);
                d->flags |= bits[i];
            }
        }
        ms_psim_commit(ps, (uint32_t)(t * k));
        j += t;
        if (t == 0) { /* the batch's room is less than a turn */
            for (size_t i = 0; i < k; i++)
                sink_one(s, cpu[i], (ev[i][j].write & 1u) | (locked[i] ? MS_ACC_LOCKED : 0u), &ev[i][j], &dropped);
            j++;
        }
    }
    s->dropped += dropped;
}

static void sink_region(void *ud) { ms_psim_next_region(((sim_sink *)ud)->sim); }

/* The timed replay's sink: the simulator in direct mode prices every reference (its stall as
 * its counters got it: the serving level's latency, a remote memory's, a directory upgrade's;
 * docs/simulator.md) and says whether it communicated, the block costs price the work, and the
 * waiting-time collector sees both, every arrival and every wait. */
typedef struct {
    sim_sink s; /* first: sink_access and sink_region take it */
    ms_work_cost cost;
    ms_wait_collector *waits;
    char cost_failed[512]; /* why llvm-mca could not cost the blocks ("" when it could, or none) */
} timed_sink;

static uint64_t timed_access(void *ud, unsigned cpu, uint64_t addr, uint64_t size, unsigned write, unsigned locked,
                             uint32_t ctx)
{
    timed_sink *t = ud;
    sink_access(&t->s, cpu, addr, size, write, locked, ctx);
    int comm;
    uint64_t stall;
    ms_psim_take_level(t->s.sim, &comm, &stall);
    ms_wait_collector_ref(t->waits, cpu, ctx, stall, comm);
    return stall;
}

/* A run of one thread's accesses in the timed order (ms_replay_sink.accesses_cycles: up to the
 * first other event or the clock's limit): plain ones (a context, a size within a line, no
 * what-if remap) straight to the simulator's direct mode, the others through timed_access;
 * the same results as timed_access for each. */
static size_t timed_accesses(void *ud, unsigned cpu, unsigned locked, const ms_replay_event *ev, size_t n,
                             uint64_t compute, uint64_t *clock, uint64_t limit, uint64_t *stall)
{
    timed_sink *t = ud;
    ms_psim *ps = t->s.sim;
    unsigned lock = locked ? MS_ACC_LOCKED : 0u;
    uint64_t c = *clock, sum = 0, line = t->s.remap ? 0 : t->s.line, dropped = 0;
    size_t i = 0;
    do {
        const ms_replay_event *e = &ev[i];
        uint64_t st;
        if (e->ctx && e->size - 1 < line) { /* 0 wraps */
            int comm;
            st = ms_psim_access_stall(ps, cpu, e->addr, (uint32_t)e->size, (e->write & 1u) | lock, e->ctx, &comm);
            dropped += comm < 0;
            if (comm >= 0) ms_wait_collector_ref(t->waits, cpu, e->ctx, st, comm);
        } else {
            st = timed_access(t, cpu, e->addr, e->size, e->write, locked, e->ctx);
        }
        c += st + compute;
        sum += st;
        i++;
    } while (i < n && ev[i].kind == 0 && c < limit);
    t->s.dropped += dropped;
    *clock = c;
    *stall += sum;
    return i;
}

static void timed_work(void *ud, unsigned cpu, uint32_t block, uint64_t count)
{
    ms_wait_collector_work(((timed_sink *)ud)->waits, cpu, block, count);
}

static uint64_t timed_work_cycles(void *ud, uint32_t block, uint64_t count)
{
    return ms_work_cost_cycles(&((timed_sink *)ud)->cost, block, count);
}

static void timed_arrive(void *ud, unsigned cpu, uint64_t serial, unsigned kind, uint64_t obj, uint64_t clock)
{
    (void)kind, (void)obj, (void)clock;
    ms_wait_collector_arrive(((timed_sink *)ud)->waits, cpu, serial);
}

static void timed_wait(void *ud, const ms_replay_wait *w) { ms_wait_collector_wait(((timed_sink *)ud)->waits, w); }

/* Set up t for cfg, raw's blocks and contexts up to max_ctx. Returns 0 or -1 (out of memory). */
static int timed_sink_init(timed_sink *t, const ms_hier_config *cfg, const ms_raw *raw, uint32_t max_ctx)
{
    /* MTOOL's llvm-mca cycles per block when llvm-mca can cost them, else the estimate */
    double *mca = raw->nblocks ? calloc(raw->nblocks, sizeof *mca) : NULL;
    char why[512];
    int costed = 0;
    if (mca && ms_block_cycles(raw, ms_blockcost_host_cpu(), mca, why, sizeof why) == 0)
        for (size_t i = 0; i < raw->nblocks; i++) costed |= mca[i] > 0;
    else if (mca)
        snprintf(t->cost_failed, sizeof t->cost_failed, "%s", why);
    int rc = costed ? ms_work_cost_from_cycles(&t->cost, raw, mca, "llvm-mca: ideal-memory cycles per block (MTOOL)")
                    : ms_work_cost_estimate(&t->cost, raw);
    free(mca);
    if (rc < 0) return -1;
    return (t->waits = ms_wait_collector_new(cfg->nprocs, max_ctx, &t->cost)) ? 0 : -1;
}

/* Growable arrays of the raw profile. */
typedef struct {
    ms_raw *raw;
    size_t cap;
    int failed;
} pair_sink;

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
static int counter_used(const ms_counters *c) { return c->reads || c->writes || c->inval.received || c->inval.sent; }

/* Append the simulator's results to raw. Returns 0 or -1 (out of memory). */
static int take_results(ms_raw *raw, ms_psim *sim, const ms_replay_result *res, ms_interleave mode)
{
    uint32_t n = 0;
    unsigned nprocs = ms_psim_nprocs(sim);
    const ms_counters *c = ms_psim_counters(sim, &n);
    if (!c) return -1;
    size_t used = 0;
    for (uint32_t i = 0; i < n; i++) used += counter_used(&c[i]);
    ms_raw_counter *v = realloc(raw->counters, (raw->ncounters + used + 1) * sizeof *v);
    if (!v) return -1;
    raw->counters = v;
    for (uint32_t i = 0; i < n; i++)
        if (counter_used(&c[i])) raw->counters[raw->ncounters++] = (ms_raw_counter){ i / nprocs, i % nprocs, c[i] };
    pair_sink ev = { raw, raw->nevictions, 0 }, inv = { raw, 0, 0 };
    if (ms_psim_each_eviction(sim, add_eviction, &ev) < 0) return -1;
    free(raw->invalidations);
    raw->invalidations = NULL;
    raw->ninvalidations = 0;
    if (ms_psim_each_invalidation(sim, add_invalidation, &inv) < 0) return -1;
    if (ev.failed || inv.failed) return -1;
    free(raw->threads);
    raw->threads = calloc(res->nthreads ? res->nthreads : 1, sizeof *raw->threads);
    if (!raw->threads) return -1;
    for (size_t i = 0; i < res->nthreads; i++) {
        const ms_replay_thread *t = &res->threads[i];
        raw->threads[i] = (ms_raw_thread){ t->index,    t->cpu,     t->parent, t->accesses, t->syncs, t->wait_turns,
                                           t->complete, t->compute, t->stall,  t->waiting,  t->sync };
    }
    raw->nthreads_replayed = res->nthreads;
    raw->nprocs = nprocs;
    free(raw->interleave);
    raw->interleave = strdup(ms_interleave_name(mode));
    char spec[512];
    ms_config_format(ms_psim_config(sim), spec, sizeof spec);
    free(raw->config_text);
    raw->config_text = strdup(spec);
    raw->nlevels = ms_psim_config(sim)->nlevels;
    raw->timed = mode == MS_INTERLEAVE_TIMED;
    raw->timed_approximate = res->timed_approximate;
    return raw->interleave && raw->config_text ? 0 : -1;
}

/* What the user should know about the replay: broken deadlocks, unattributed accesses,
 * straddling references split by the partitioned simulation, fewer simulator threads. */
static int note_replay(ms_raw *raw, const ms_replay_result *res, uint64_t dropped, const ms_psim *ps, unsigned want,
                       unsigned started)
{
    if (ms_psim_straddles(ps) &&
        ms_raw_add_note(raw,
                        "simulation: %llu references straddling two lines of different partitions were "
                        "counted as one reference per line (--sim-threads 1 keeps them whole)",
                        (unsigned long long)ms_psim_straddles(ps)) < 0)
        return -1;
    if (started < want && started < ms_psim_parts(ps) &&
        ms_raw_add_note(raw, "simulation: only %u of %u simulator threads could be started%s", started, want,
                        started ? "" : "; the replay simulated alone") < 0)
        return -1;
    if (res->deadlocks_broken &&
        ms_raw_add_note(raw,
                        "replay: %llu waits could not be satisfied in replay order (a lock-order "
                        "inversion, a signal without a recorded waiter, ...) and were let through "
                        "in recorded order",
                        (unsigned long long)res->deadlocks_broken) < 0)
        return -1;
    if (dropped && ms_raw_add_note(raw, "replay: %llu accesses without a known context were not simulated",
                                   (unsigned long long)dropped) < 0)
        return -1;
    return 0;
}

static unsigned sim_threads; /* --sim-threads; 0: ms_sim_workers_default() */

/* What the timed order could not do as asked: simulator threads the user asked for (one
 * partition is simulated: the results are those of --sim-threads 1), compute time unknown
 * (no block counts) or estimated (llvm-mca failed: cost_failed says why, "" if it did not),
 * processors shared by threads. */
static int note_timed(ms_raw *raw, const ms_replay_result *res, unsigned nprocs, const char *cost_failed)
{
    if (*cost_failed &&
        ms_raw_add_note(raw,
                        "timed replay: llvm-mca could not cost the blocks (%s): the compute time is the "
                        "estimate, 1 cycle per GIMPLE statement, and the timed statistics can differ from "
                        "those of a replay whose blocks llvm-mca costed",
                        cost_failed) < 0)
        return -1;
    if (sim_threads > 1 &&
        ms_raw_add_note(raw,
                        "simulation: the timed order simulates in one partition (it needs each reference's "
                        "latency at once): --sim-threads %u was not used (--interleave interleaved or piped "
                        "use it)",
                        sim_threads) < 0)
        return -1;
    if (res->timed_approximate &&
        ms_raw_add_note(raw,
                        "timed replay: the recording has no block counts (an older memspy or the fallback "
                        "instrumentation): the compute time is unknown and estimated as %u cycles per "
                        "reference; the waiting-time analysis is approximate",
                        MS_TIMED_REF_CYCLES) < 0)
        return -1;
    if (res->nthreads > nprocs &&
        ms_raw_add_note(raw,
                        "timed replay: %zu threads on %u processors: threads that share a processor keep "
                        "their own clocks, and the waiting-time analysis mixes their segments",
                        res->nthreads, nprocs) < 0)
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

/* Add a problem (the results are incomplete). -1 when out of memory. */
static int add_problem(ms_drive_problems *p, const char *text)
{
    char **v = realloc(p->v, (p->n + 1) * sizeof *v);
    if (!v) return -1;
    p->v = v;
    if (!(p->v[p->n] = strdup(text))) return -1;
    p->n++;
    return 0;
}

/* How many streams the replay decodes ahead (replay.h): every stream, up to 32, where the
 * process may use more than one CPU; the replay's thread then only schedules and hands the
 * references on. *parsers: each stream's parser threads, the CPUs beyond two spread over the
 * streams (1..4). */
static unsigned decode_ahead(size_t nstreams, unsigned *parsers)
{
    cpu_set_t set;
    *parsers = 1;
    if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2 || !nstreams) return 0;
    size_t spare = ((size_t)CPU_COUNT(&set) - 2) / nstreams;
    *parsers = spare < 1 ? 1 : spare > 4 ? 4 : (unsigned)spare;
    return nstreams < 32 ? (unsigned)nstreams : 32;
}

/* How many bytes of decompressed chunks the replay's pre-scan may keep so that the replay does
 * not decompress them again (replay.h): an eighth of the host's memory, at most 1 GiB. */
static size_t keep_budget(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return 0;
    uint64_t eighth = (uint64_t)pages * (uint64_t)page / 8;
    return (size_t)(eighth < (1ull << 30) ? eighth : 1ull << 30);
}

void ms_drive_set_sim_threads(unsigned n) { sim_threads = n; }

int ms_drive_replay(const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                    ms_drive_problems *problems, char *err, size_t errlen)
{
    return ms_drive_replay_remap(dir, cfg, mode, NULL, raw, problems, err, errlen);
}

int ms_drive_replay_remap(const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_remap *remap, ms_raw *raw,
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
    mode = ms_interleave_resolve(mode, nthreads);
    unsigned parsers;
    unsigned ahead = decode_ahead(nthreads, &parsers);
    ms_replay_set_decode_ahead(rp, ahead, parsers);
    ms_replay_set_keep(rp, keep_budget());
    if (!c.nprocs) c.nprocs = (uint32_t)(nthreads < 1 ? 1 : nthreads > MS_MAX_PROCS ? MS_MAX_PROCS : nthreads);
    if (c.nnodes > c.nprocs) c.nnodes = c.nprocs;
    ms_config_scale_llc(&c, c.nprocs); /* x86: one L3 slice per processor */
    const ms_allocator alloc = { sim_calloc, sim_free, NULL };
    timed_sink ts;
    memset(&ts, 0, sizeof ts);
    sim_sink s = { NULL, c.level[0].line, 0, remap };
    char why[1024] = "out of memory";
    int timed = mode == MS_INTERLEAVE_TIMED;
    /* the timed order needs each reference's latency at once: one partition, no simulator threads */
    unsigned want = timed ? 1 : sim_threads ? sim_threads : ms_sim_workers_default();
    ms_sim_workers *workers = NULL;
    if (ms_config_validate(&c, why, sizeof why) < 0 || !(workers = ms_sim_workers_new(want)) ||
        ms_psim_create(&s.sim, &c, &alloc, timed ? 1 : ms_psim_parts_for(&c, want), ms_sim_workers_submit, workers) <
            0 ||
        (timed && (ms_psim_set_direct(s.sim) < 0 || timed_sink_init(&ts, &c, raw, max_ctx) < 0))) {
        snprintf(err, errlen, "cannot create the simulator for %u processors: %s", c.nprocs, why);
        ms_sim_workers_finish(workers);
        ms_psim_destroy(s.sim);
        ms_work_cost_free(&ts.cost);
        if (ts.waits) ms_wait_collector_finish(ts.waits, raw);
        ms_replay_close(rp);
        return -1;
    }
    unsigned started = timed ? want : ms_sim_workers_start(workers, s.sim);
    /* runs of accesses straight into the batch, except where a what-if remap must see each one */
    ms_replay_sink sink = { .access = sink_access,
                            .accesses = remap ? NULL : sink_accesses,
                            .turns = remap ? NULL : sink_turns,
                            .region = sink_region,
                            .ud = &s };
    if (timed) {
        ts.s = s;
        sink = (ms_replay_sink){ .access = sink_access,
                                 .region = sink_region,
                                 .ud = &ts,
                                 .work = timed_work,
                                 .access_cycles = timed_access,
                                 .accesses_cycles = timed_accesses,
                                 .work_cycles = timed_work_cycles,
                                 .arrive = timed_arrive,
                                 .wait = timed_wait };
    }
    ms_replay_result res;
    memset(&res, 0, sizeof res);
    char rerr[2048];
    int rc = ms_replay_run(rp, mode, c.nprocs, &sink, &res, rerr, sizeof rerr);
    ms_sim_workers_finish(workers);
    s.dropped += ms_psim_unattributed(s.sim); /* copied runs' accesses without a context or size */
    if (timed) {
        s.dropped = ts.s.dropped;
        raw->work_cost =
            res.timed_approximate ? "none recorded: 2 cycles of compute per reference (approximate)" : ts.cost.source;
        ms_work_cost_free(&ts.cost);
        if (ms_wait_collector_finish(ts.waits, raw) < 0 && rc >= 0) {
            snprintf(rerr, sizeof rerr, "out of memory");
            rc = -1;
        }
    }
    if (rc < 0) {
        snprintf(err, errlen, "replaying %s: %s", dir, rerr);
    } else if (take_results(raw, s.sim, &res, mode) < 0 ||
               note_replay(raw, &res, s.dropped, s.sim, want, started) < 0 ||
               (timed && note_timed(raw, &res, c.nprocs, ts.cost_failed) < 0)) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else {
        if (rc > 0) take_problems(&res, problems);
        if (ms_psim_lost(s.sim)) {
            /* Out of memory in the simulation: the results so far are kept, marked incomplete. */
            snprintf(why, sizeof why, "simulation: out of memory: %llu references were not simulated",
                     (unsigned long long)ms_psim_lost(s.sim));
            if (add_problem(problems, why) < 0) {
                snprintf(err, errlen, "out of memory");
                rc = -1;
            } else {
                rc = 1;
            }
        }
    }
    ms_replay_result_free(&res);
    ms_psim_destroy(s.sim);
    ms_replay_close(rp);
    return rc;
}

int ms_drive_resim(const char *raw_path, const char *dir, const ms_hier_config *cfg, ms_interleave mode, ms_raw *raw,
                   ms_drive_problems *problems, char *err, size_t errlen)
{
    return ms_drive_resim_remap(raw_path, dir, cfg, mode, NULL, raw, problems, err, errlen);
}

int ms_drive_resim_remap(const char *raw_path, const char *dir, const ms_hier_config *cfg, ms_interleave mode,
                         ms_remap *remap, ms_raw *raw, ms_drive_problems *problems, char *err, size_t errlen)
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
    return ms_drive_replay_remap(dir, cfg, mode, remap, raw, problems, err, errlen);
}
