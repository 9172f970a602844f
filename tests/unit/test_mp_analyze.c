/* ms_analyze on an in-memory raw profile of a 2-processor replay whose pcs are real return
 * addresses in this test binary (as test_analyze.c does): processors with their threads and
 * waits, per-reference rows with the access kind of their contexts, and invalidation causes
 * attached to the victims' cells with the writers' (code, data, cpu). */
#define _GNU_SOURCE
#include "analysis/analyze.h"

#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define NOINLINE __attribute__((noinline, noclone))

double shared_f[16];
long shared_counters[4];

NOINLINE static uint64_t pc_here(void)
{
    uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
    return pc;
}

static uint64_t kernel_pc[3];
static int kernel_line[3];
NOINLINE static void kernel(void)
{
    kernel_pc[0] = pc_here();
    kernel_line[0] = __LINE__ - 1;
    kernel_pc[1] = pc_here();
    kernel_line[1] = __LINE__ - 1;
    kernel_pc[2] = pc_here();
    kernel_line[2] = __LINE__ - 1;
}

static int first_object_bias(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(uint64_t *)out = info->dlpi_addr;
    return 1;
}

static ms_raw_counter counter(uint32_t ctx, uint32_t cpu, uint64_t reads, uint64_t writes, uint64_t inval_misses,
                              uint64_t received)
{
    ms_raw_counter c = { .ctx = ctx, .cpu = cpu };
    c.c.reads = reads;
    c.c.writes = writes;
    c.c.stall_read = 10 * reads;
    c.c.stall_write = 10 * writes;
    c.c.level[0].read_misses = inval_misses;
    c.c.level[0].cause[MS_CAUSE_INVAL] = inval_misses;
    c.c.inval.received = received;
    c.c.inval.true_in = received;
    return c;
}

static int data_index(const ms_model *m, const char *name)
{
    for (size_t i = 0; i < m->ndata; i++)
        if (strcmp(m->data[i].name, name) == 0) return (int)i;
    return -1;
}

int main(void)
{
    kernel();
    ms_hier_config cfg;
    char cfg_text[256], err[256] = "";
    CHECK_EQ(ms_config_preset("memspy92", &cfg, err, sizeof err), 0);
    cfg.nprocs = 2;
    ms_config_format(&cfg, cfg_text, sizeof cfg_text);
    char exe[4096];
    CHECK(realpath("/proc/self/exe", exe) != NULL);
    uint64_t bias = 0;
    dl_iterate_phdr(first_object_bias, &bias);

    ms_raw_module mod = { bias, 0, 0, exe };
    ms_raw_bin bins[2] = {
        { .id = 1,
          .kind = MS_BIN_GLOBAL,
          .addr = (uint64_t)(uintptr_t)shared_f,
          .size = sizeof shared_f,
          .name = "shared_f" },
        { .id = 2,
          .kind = MS_BIN_GLOBAL,
          .addr = (uint64_t)(uintptr_t)shared_counters,
          .size = sizeof shared_counters,
          .name = "shared_counters" },
    };
    /* ctx 0 reads f, ctx 1 writes f, ctx 2 reads and writes the counters. */
    ms_raw_context ctxs[3] = { { 0, 1, kernel_pc[0] }, { 1, 1, kernel_pc[1] }, { 2, 2, kernel_pc[2] } };
    ms_raw_counter counters[5] = {
        counter(0, 0, 40, 0, 6, 5), counter(0, 1, 30, 0, 7, 7), counter(1, 0, 0, 20, 0, 0),
        counter(1, 1, 0, 25, 0, 0), counter(2, 0, 8, 8, 2, 2),
    };
    ms_invalidation invs[3] = { { 0, 1, 1, 0, 7 }, { 0, 0, 1, 1, 5 }, { 2, 0, 1, 1, 2 } };
    ms_raw_thread threads[3] = {
        { .index = 0, .cpu = 0, .parent = -1, .accesses = 40, .syncs = 2, .wait_turns = 4, .complete = 1 },
        { .index = 1, .cpu = 1, .parent = 0, .accesses = 55, .syncs = 2, .wait_turns = 6, .complete = 1 },
        { .index = 2, .cpu = 0, .parent = 0, .accesses = 36, .syncs = 1, .wait_turns = 1, .complete = 1 }
    };
    ms_raw raw = {
        .version = 1,
        .pid = 5,
        .config_text = cfg_text,
        .exe = exe,
        .nlevels = cfg.nlevels,
        .modules = &mod,
        .nmodules = 1,
        .bins = bins,
        .nbins = 2,
        .contexts = ctxs,
        .ncontexts = 3,
        .counters = counters,
        .ncounters = 5,
        .nprocs = 2,
        .invalidations = invs,
        .ninvalidations = 3,
        .threads = threads,
        .nthreads_replayed = 3,
        .interleave = "piped",
    };

    ms_model m;
    CHECK_EQ(ms_analyze(&raw, NULL, &m, err, sizeof err), 0);
    if (err[0]) fprintf(stderr, "%s\n", err);
    CHECK_EQ(m.nprocs, 2);
    CHECK_STR(m.interleave, "piped");
    CHECK_EQ(m.totals.reads, 78);
    CHECK_EQ(m.totals.inval.received, 14);
    /* processors */
    CHECK_EQ(m.nprocs_stat, 2);
    if (m.nprocs_stat == 2) {
        CHECK_EQ(m.procs[0].nthreads, 2);
        CHECK_EQ(m.procs[0].threads[0], 0);
        CHECK_EQ(m.procs[0].threads[1], 2);
        CHECK_EQ(m.procs[0].wait_turns, 5);
        CHECK_EQ(ms_counters_refs(&m.procs[0].c), 76);
        CHECK_EQ(m.procs[0].c.level[0].cause[MS_CAUSE_INVAL], 8);
        CHECK_EQ(m.procs[1].nthreads, 1);
        CHECK_EQ(m.procs[1].wait_turns, 6);
        CHECK_EQ(ms_counters_refs(&m.procs[1].c), 55);
    }
    int f = data_index(&m, "shared_f"), cnt = data_index(&m, "shared_counters");
    CHECK(f >= 0 && cnt >= 0);
    /* references: one row per (line, data, kind, cpu), most coherence misses first */
    CHECK_EQ(m.nrefs, 5);
    if (m.nrefs == 5) {
        CHECK_EQ(m.refs[0].line, kernel_line[0]);
        CHECK_EQ(m.refs[0].cpu, 1);
        CHECK_EQ(m.refs[0].kind, MS_REF_READ);
        CHECK_EQ(m.refs[1].cpu, 0);
        CHECK_EQ(m.refs[2].line, kernel_line[2]);
        CHECK_EQ(m.refs[2].kind, MS_REF_READWRITE);
        CHECK_EQ(m.refs[2].data, (uint32_t)cnt);
        CHECK_EQ(m.refs[3].kind, MS_REF_WRITE);
        CHECK_EQ(m.refs[3].cpu, 0); /* no misses on either cpu: key order puts cpu 0 first */
        CHECK_EQ(m.refs[3].c.writes, 20);
        CHECK_STR(m.files[m.refs[0].file], __FILE__);
    }
    /* invalidation causes on the victims' cells */
    CHECK_EQ(m.ncells, 2);
    for (size_t i = 0; i < m.ncells; i++) {
        const ms_cell *c = &m.cells[i];
        CHECK_STR(m.code[c->code].name, "kernel");
        if (c->data == (uint32_t)f) {
            CHECK_EQ(c->ninval_by, 2);
            if (c->ninval_by == 2) {
                CHECK_EQ(c->inval_by[0].count, 7);
                CHECK_EQ(c->inval_by[0].cpu, 0);
                CHECK_EQ(c->inval_by[0].data, (uint32_t)f);
                CHECK_EQ(c->inval_by[1].count, 5);
                CHECK_EQ(c->inval_by[1].cpu, 1);
            }
        } else {
            CHECK_EQ(c->ninval_by, 1);
            if (c->ninval_by == 1) {
                CHECK_EQ(c->inval_by[0].data, (uint32_t)f);
                CHECK_EQ(c->inval_by[0].count, 2);
            }
        }
    }
    ms_model_free(&m);

    /* One processor: none of it. */
    raw.nprocs = 0;
    CHECK_EQ(ms_analyze(&raw, NULL, &m, err, sizeof err), 0);
    CHECK_EQ(m.nprocs, 0);
    CHECK_EQ(m.nrefs, 0);
    CHECK_EQ(m.nprocs_stat, 0);
    CHECK(m.interleave == NULL);
    ms_model_free(&m);
    return check_result();
}
