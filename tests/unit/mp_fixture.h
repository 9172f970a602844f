/* A hand-built model of a 2-processor run, shaped like ccSIM's nbf example: code bins worker
 * (0) and main (1), data bins f (0), counters (1) and g (2), one source file. Eight
 * per-(context, cpu) rows R1..R8 are summed into cells, processors, references and totals
 * with ms_counters_add, exactly as the analysis does, so tests can check exact numbers:
 *
 *   row code   data     cpu line kind  reads writes stall  L1 misses (cause)    received (ti ta fi fa) lock fbm sent pattern
 *   R1  worker f        0   141  Read    60    0    150    15 (cold 5, inval 10) 20 (15 3 1 1)        12  10   0   migratory 10
 *   R2  worker f        1   141  Read    40    0    100    10 (cold 5, inval 5)  12 (10 1 1 0)        10   5   0   spsc 5
 *   R3  worker f        0   141  Write    0   50    100     5 (inval 5)           8 (5 1 1 1)          3   5  25   migratory 5
 *   R4  worker f        1   141  Write    0   50    100     5 (cold 5)            0                    0   0  15
 *   R5  worker counters 0   150  RW      25   25    100    10 (cold 1, inval 9)  10 (0 0 8 2)          0   9  10   mpmc 9
 *   R6  worker counters 1   150  RW      25   25    100    10 (cold 1, inval 9)  10 (0 0 8 2)          0   9  10   mpmc 9
 *   R7  main   f        0    30  Read    20    0     50     5 (cold 5)
 *   R8  worker g        0   141  Read    10    0     10     2 (cold 2)
 *
 * Threads: cpu 0 ran threads 0 and 2 (7 wait turns), cpu 1 thread 1 (3). Invalidation causes:
 * (worker, f) <- worker/f on cpu 1: 25, on cpu 0: 15; (worker, counters) <- worker/counters on
 * cpu 0: 10, on cpu 1: 10. */
#ifndef MEMSPY_TEST_MP_FIXTURE_H
#define MEMSPY_TEST_MP_FIXTURE_H
#include <stdlib.h>
#include <string.h>
#include "model/model.h"

enum { MP_WORKER = 0, MP_MAIN = 1 };
enum { MP_F = 0, MP_COUNTERS = 1, MP_G = 2 };

typedef struct {
    uint32_t code, data, cpu;
    int line;
    ms_ref_kind kind;
    uint64_t reads, writes, stall_read, stall_write, read_misses, write_misses, cold, inval;
    ms_inval_counters v;
    int pattern;
    uint64_t pattern_misses;
} mp_row;

static const mp_row MP_ROWS[] = {
    { MP_WORKER,
      MP_F,
      0,
      141,
      MS_REF_READ,
      60,
      0,
      150,
      0,
      15,
      0,
      5,
      10,
      { 20, 15, 3, 1, 1, 12, 10, 0 },
      MS_PAT_MIGRATORY,
      10 },
    { MP_WORKER, MP_F, 1, 141, MS_REF_READ, 40, 0, 100, 0, 10, 0, 5, 5, { 12, 10, 1, 1, 0, 10, 5, 0 }, MS_PAT_SPSC, 5 },
    { MP_WORKER,
      MP_F,
      0,
      141,
      MS_REF_WRITE,
      0,
      50,
      0,
      100,
      0,
      5,
      0,
      5,
      { 8, 5, 1, 1, 1, 3, 5, 25 },
      MS_PAT_MIGRATORY,
      5 },
    { MP_WORKER, MP_F, 1, 141, MS_REF_WRITE, 0, 50, 0, 100, 0, 5, 5, 0, { 0, 0, 0, 0, 0, 0, 0, 15 }, 0, 0 },
    { MP_WORKER,
      MP_COUNTERS,
      0,
      150,
      MS_REF_READWRITE,
      25,
      25,
      50,
      50,
      5,
      5,
      1,
      9,
      { 10, 0, 0, 8, 2, 0, 9, 10 },
      MS_PAT_MPMC,
      9 },
    { MP_WORKER,
      MP_COUNTERS,
      1,
      150,
      MS_REF_READWRITE,
      25,
      25,
      50,
      50,
      5,
      5,
      1,
      9,
      { 10, 0, 0, 8, 2, 0, 9, 10 },
      MS_PAT_MPMC,
      9 },
    { MP_MAIN, MP_F, 0, 30, MS_REF_READ, 20, 0, 50, 0, 5, 0, 5, 0, { 0 }, 0, 0 },
    { MP_WORKER, MP_G, 0, 141, MS_REF_READ, 10, 0, 10, 0, 2, 0, 2, 0, { 0 }, 0, 0 },
};
#define MP_NROWS (sizeof MP_ROWS / sizeof *MP_ROWS)

static char *mp_strdup(const char *s) { return s ? strdup(s) : NULL; }

static ms_counters mp_counters(const mp_row *r)
{
    ms_counters c;
    memset(&c, 0, sizeof c);
    c.reads = r->reads;
    c.writes = r->writes;
    c.stall_read = r->stall_read;
    c.stall_write = r->stall_write;
    c.level[0].read_misses = r->read_misses;
    c.level[0].write_misses = r->write_misses;
    c.level[0].cause[MS_CAUSE_COLD] = r->cold;
    c.level[0].cause[MS_CAUSE_INVAL] = r->inval;
    c.inval = r->v;
    c.pattern[r->pattern] = r->pattern_misses;
    return c;
}

static ms_cell *mp_cell(ms_model *m, uint32_t code, uint32_t data)
{
    for (size_t i = 0; i < m->ncells; i++)
        if (m->cells[i].code == code && m->cells[i].data == data) return &m->cells[i];
    ms_cell *c = &m->cells[m->ncells++];
    c->code = code;
    c->data = data;
    return c;
}

static void mp_invalidator(ms_cell *c, uint32_t code, uint32_t data, uint32_t cpu, uint64_t count)
{
    c->inval_by = realloc(c->inval_by, (c->ninval_by + 1) * sizeof *c->inval_by);
    c->inval_by[c->ninval_by++] = (ms_invalidator){ code, data, cpu, count };
}

static void mp_fixture_build(ms_model *m)
{
    static const char *const code_names[] = { "worker", "main" };
    static const char *const data_names[] = { "f", "counters", "g" };
    ms_model_init(m);
    m->program = mp_strdup("./nbf");
    m->argc = 1;
    m->argv = calloc(1, sizeof *m->argv);
    m->argv[0] = mp_strdup("./nbf");
    m->cwd = mp_strdup("/tmp/work");
    m->time = 1700000000;
    m->memspy_version = mp_strdup("0.1.0");
    m->pid = 99;
    m->config.nlevels = 1;
    m->config.level[0] = (ms_level_config){ 32768, 4, 64, 1, MS_POLICY_LRU };
    m->config.mem_latency = 50;
    m->config.nprocs = 2;
    m->nprocs = 2;
    m->interleave = mp_strdup("interleaved");

    m->ncode = 2;
    m->code = calloc(m->ncode, sizeof *m->code);
    for (size_t i = 0; i < m->ncode; i++) {
        m->code[i].name = mp_strdup(code_names[i]);
        m->code[i].file = mp_strdup("src/nbf.c");
        m->code[i].line = i == MP_WORKER ? 130 : 20;
    }
    m->ndata = 3;
    m->data = calloc(m->ndata, sizeof *m->data);
    for (size_t i = 0; i < m->ndata; i++) {
        m->data[i].name = mp_strdup(data_names[i]);
        m->data[i].full_name = mp_strdup(data_names[i]);
        m->data[i].kind = MS_BIN_GLOBAL;
        m->data[i].bytes = 800;
    }
    m->nfiles = 1;
    m->files = calloc(1, sizeof *m->files);
    m->files[0] = mp_strdup("src/nbf.c");

    m->cells = calloc(MP_NROWS, sizeof *m->cells);
    m->refs = calloc(MP_NROWS, sizeof *m->refs);
    m->nprocs_stat = 2;
    m->procs = calloc(2, sizeof *m->procs);
    for (size_t i = 0; i < MP_NROWS; i++) {
        const mp_row *r = &MP_ROWS[i];
        ms_counters c = mp_counters(r);
        ms_counters_add(&mp_cell(m, r->code, r->data)->c, &c);
        ms_counters_add(&m->procs[r->cpu].c, &c);
        ms_counters_add(&m->totals, &c);
        m->refs[m->nrefs++] = (ms_reference_stat){ 0, r->line, r->code, r->data, r->cpu, r->kind, c };
    }
    qsort(m->refs, m->nrefs, sizeof *m->refs, ms_reference_order);
    ms_cell *wf = mp_cell(m, MP_WORKER, MP_F), *wc = mp_cell(m, MP_WORKER, MP_COUNTERS);
    mp_invalidator(wf, MP_WORKER, MP_F, 1, 25);
    mp_invalidator(wf, MP_WORKER, MP_F, 0, 15);
    mp_invalidator(wc, MP_WORKER, MP_COUNTERS, 0, 10);
    mp_invalidator(wc, MP_WORKER, MP_COUNTERS, 1, 10);
    static const uint32_t threads0[] = { 0, 2 }, threads1[] = { 1 };
    m->procs[0] = (ms_proc_stat){ 0, malloc(sizeof threads0), 2, 7, m->procs[0].c };
    memcpy(m->procs[0].threads, threads0, sizeof threads0);
    m->procs[1] = (ms_proc_stat){ 1, malloc(sizeof threads1), 1, 3, m->procs[1].c };
    memcpy(m->procs[1].threads, threads1, sizeof threads1);

    m->nlines = 0;
}

#endif
