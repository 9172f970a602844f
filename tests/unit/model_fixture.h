/* A hand-built model shaped like the paper's blocked matrix multiply (Figure 2): 3 code bins,
 * 4 data bins (one never referenced), 6 cells whose stall cycles sum to exactly 1000, two
 * cache levels and replacement causes, so that reports and sums can be checked exactly.
 *
 *   stall      Matrix.X(0)  Matrix.Y(1)  Matrix.Z(2)  unused(3)
 *   main(0)         8            9
 *   BlkMultiply(1) 43          855           77
 *   ClearProduct(2)                           8
 */
#ifndef MEMSPY_TEST_MODEL_FIXTURE_H
#define MEMSPY_TEST_MODEL_FIXTURE_H
#include <stdlib.h>
#include <string.h>
#include "model/model.h"

enum { FX_MAIN = 0, FX_BLK = 1, FX_CLEAR = 2 };
enum { FX_X = 0, FX_Y = 1, FX_Z = 2, FX_UNUSED = 3 };

typedef struct {
    uint32_t code, data;
    uint64_t reads, writes, stall_read, stall_write, read_misses, write_misses, cold, capacity, conflict;
} fixture_cell;

static const fixture_cell FIXTURE_CELLS[] = {
    { FX_BLK, FX_Y, 1288, 0, 855, 0, 871, 0, 0, 600, 271 }, { FX_BLK, FX_Z, 500, 100, 70, 7, 60, 10, 20, 30, 20 },
    { FX_BLK, FX_X, 400, 50, 40, 3, 30, 5, 35, 0, 0 },      { FX_MAIN, FX_Y, 100, 100, 5, 4, 5, 4, 9, 0, 0 },
    { FX_MAIN, FX_X, 50, 50, 4, 4, 4, 4, 8, 0, 0 },         { FX_CLEAR, FX_Z, 10, 200, 0, 8, 0, 8, 8, 0, 0 },
};

static char *fixture_strdup(const char *s) { return s ? strdup(s) : NULL; }

static void fixture_evictor(ms_cell *c, uint32_t code, uint32_t data, uint32_t level, uint64_t count)
{
    c->evicted_by = realloc(c->evicted_by, (c->nevicted_by + 1) * sizeof *c->evicted_by);
    c->evicted_by[c->nevicted_by++] = (ms_evictor){ code, data, level, count };
}

static void fixture_build(ms_model *m)
{
    static const char *const code_names[] = { "main", "BlkMultiply", "ClearProduct" };
    static const char *const data_names[] = { "Matrix.X", "Matrix.Y", "Matrix.Z", "unused" };
    ms_model_init(m);
    m->program = fixture_strdup("./blkmm");
    m->argc = 2;
    m->argv = calloc(2, sizeof *m->argv);
    m->argv[0] = fixture_strdup("./blkmm");
    m->argv[1] = fixture_strdup("295");
    m->cwd = fixture_strdup("/tmp/work");
    m->time = 1700000000;
    m->memspy_version = fixture_strdup("0.1.0");
    m->pid = 4242;
    m->exit_kind = MS_EXIT_NORMAL;
    m->wall_seconds = 1.25;
    m->nnotes = 1;
    m->notes = calloc(1, sizeof *m->notes);
    m->notes[0] = fixture_strdup("3 events dropped");

    m->config.nlevels = 2;
    m->config.level[0] = (ms_level_config){ 32768, 2, 64, 1, MS_POLICY_LRU };
    m->config.level[1] = (ms_level_config){ 1048576, 8, 64, 10, MS_POLICY_PLRU };
    m->config.mem_latency = 50;

    m->ncode = 3;
    m->code = calloc(m->ncode, sizeof *m->code);
    for (size_t i = 0; i < m->ncode; i++) {
        m->code[i].name = fixture_strdup(code_names[i]);
        m->code[i].file = fixture_strdup(i == FX_CLEAR ? NULL : "mm.c");
        m->code[i].line = (int)(10 * (i + 1));
    }
    m->ndata = 4;
    m->data = calloc(m->ndata, sizeof *m->data);
    for (size_t i = 0; i < m->ndata; i++) {
        char full[64];
        snprintf(full, sizeof full, "main:12>NewMatrix:30>%s", data_names[i]);
        m->data[i].name = fixture_strdup(data_names[i]);
        m->data[i].full_name = fixture_strdup(full);
        m->data[i].kind = i == FX_UNUSED ? MS_BIN_GLOBAL : MS_BIN_HEAP;
        m->data[i].site = fixture_strdup(i == FX_UNUSED ? NULL : "mm.c:30");
        m->data[i].objects = 1;
        m->data[i].bytes = 295 * 295 * 8;
        m->data[i].peak_bytes = 295 * 295 * 8;
    }

    m->ncells = sizeof FIXTURE_CELLS / sizeof *FIXTURE_CELLS;
    m->cells = calloc(m->ncells, sizeof *m->cells);
    for (size_t i = 0; i < m->ncells; i++) {
        const fixture_cell *f = &FIXTURE_CELLS[i];
        ms_cell *c = &m->cells[i];
        c->code = f->code;
        c->data = f->data;
        c->c.reads = f->reads;
        c->c.writes = f->writes;
        c->c.stall_read = f->stall_read;
        c->c.stall_write = f->stall_write;
        c->c.level[0].read_misses = f->read_misses;
        c->c.level[0].write_misses = f->write_misses;
        c->c.level[0].cause[MS_CAUSE_COLD] = f->cold;
        c->c.level[0].cause[MS_CAUSE_CAPACITY] = f->capacity;
        c->c.level[0].cause[MS_CAUSE_CONFLICT] = f->conflict;
    }
    /* Matrix.Y in BlkMultiply also misses in L2 (cold) and has replacement causes. */
    ms_cell *blk_y = &m->cells[0], *blk_z = &m->cells[1];
    blk_y->c.level[1].read_misses = 100;
    blk_y->c.level[1].cause[MS_CAUSE_COLD] = 100;
    blk_y->c.level[1].writebacks = 5;
    fixture_evictor(blk_y, FX_BLK, FX_Y, 0, 90);
    fixture_evictor(blk_y, FX_BLK, FX_Y, 1, 50);
    fixture_evictor(blk_y, FX_BLK, FX_Z, 0, 7);
    fixture_evictor(blk_y, FX_BLK, FX_X, 0, 3);
    fixture_evictor(blk_z, FX_BLK, FX_Y, 0, 40);
    fixture_evictor(blk_z, FX_CLEAR, FX_Z, 0, 10);

    for (size_t i = 0; i < m->ncells; i++) ms_counters_add(&m->totals, &m->cells[i].c);

    m->nfiles = 1;
    m->files = calloc(1, sizeof *m->files);
    m->files[0] = fixture_strdup("mm.c");
    m->nlines = 2;
    m->lines = calloc(2, sizeof *m->lines);
    m->lines[0] = (ms_line_stat){ 0, 42, FX_BLK, FX_Y, m->cells[0].c };
    m->lines[1] = (ms_line_stat){ 0, 43, FX_BLK, FX_Z, m->cells[1].c };
}

#endif
