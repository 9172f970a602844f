/* Test of ms_analyze on a raw profile built in memory for this very test binary: pcs are
 * real return addresses inside the test's own functions (so libdw finds real names, files
 * and lines), the module is /proc/self/exe with its load bias from dl_iterate_phdr. Heap
 * bins are named from allocation destination records written here as the compiler plugins
 * write them, at the positions libdw gives the calls (this file is built without a plugin). */
#define _GNU_SOURCE
#include "analysis/analyze.h"
#include "analysis/symbolize.h"
#include "check.h"

#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOINLINE __attribute__((noinline, noclone))

static uint64_t last_site;   /* return address of the last fake_alloc call */
static uint64_t last_caller; /* return address of the last new_matrix call */
static uint64_t last_wrap;   /* return address of the last wrap_alloc call */
double test_grid[64];

NOINLINE static void *fake_alloc(size_t n)
{
    last_site = (uint64_t)(uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
    return malloc(n);
}

NOINLINE static uint64_t pc_here(void)
{
    uint64_t pc = (uint64_t)(uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
    return pc;
}

static int new_matrix_line;
NOINLINE static double *new_matrix(size_t n)
{
    double *m = fake_alloc(n * sizeof *m);
    new_matrix_line = __LINE__ - 1;
    last_caller = (uint64_t)(uintptr_t)__builtin_return_address(0);
    __asm__ volatile("" ::: "memory");
    return m;
}

static int wrap_line;
static void *kept;
NOINLINE static void keep(void *p)
{
    kept = p;
    __asm__ volatile("" ::: "memory");
}
/* The allocation is a function argument here and in the callers: no name anywhere. */
NOINLINE static void *wrap_alloc(void)
{
    last_wrap = (uint64_t)(uintptr_t)__builtin_return_address(0);
    wrap_line = __LINE__ + 1;
    keep(fake_alloc(8));
    __asm__ volatile("" ::: "memory");
    return kept;
}

NOINLINE static void consume(void *p) { free(p); }

NOINLINE static int *static_owner(void)
{
    static int counter;
    counter++;
    return &counter;
}

static uint64_t kernel_pc[4];
static int kernel_line[4], kernel_a_line, kernel_b_line;
NOINLINE static void kernel_a(void)
{
    kernel_a_line = __LINE__ - 2;
    kernel_pc[0] = pc_here();
    kernel_line[0] = __LINE__ - 1;
    kernel_pc[1] = pc_here();
    kernel_line[1] = __LINE__ - 1;
}
NOINLINE static void kernel_b(void)
{
    kernel_b_line = __LINE__ - 2;
    kernel_pc[2] = pc_here();
    kernel_line[2] = __LINE__ - 1;
    kernel_pc[3] = pc_here();
    kernel_line[3] = __LINE__ - 1;
}

static int find_main_bias(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    *(uint64_t *)out = info->dlpi_addr;
    return 1; /* the first object is the executable */
}

static ms_raw_bin heap_bin(uint32_t id, uint64_t site, uint64_t caller)
{
    ms_raw_bin b = { .id = id, .kind = MS_BIN_HEAP, .pc = site, .depth = 1, .objects = 1, .bytes = 64 };
    b.path = malloc(sizeof *b.path);
    b.path[0] = caller;
    return b;
}

static ms_raw_counter counter(uint32_t ctx, uint64_t reads, uint64_t stall)
{
    ms_raw_counter c = { .ctx = ctx };
    c.c.reads = reads;
    c.c.stall_read = stall;
    c.c.level[0].read_misses = reads / 2;
    return c;
}

static int data_index(const ms_model *m, const char *name)
{
    for (size_t i = 0; i < m->ndata; i++)
        if (strcmp(m->data[i].name, name) == 0) return (int)i;
    return -1;
}

static const ms_cell *cell_of(const ms_model *m, const char *code, const char *data)
{
    for (size_t i = 0; i < m->ncells; i++)
        if (strcmp(m->code[m->cells[i].code].name, code) == 0 && strcmp(m->data[m->cells[i].data].name, data) == 0)
            return &m->cells[i];
    return NULL;
}

/* The destination record of the call whose return address is ra, one level, at the position
 * libdw gives it: the callee, "r" if the value is returned ("-" if not), then the level's
 * kind, flags, type and path (msplug_abi.h). malloc'd. */
static char *record_at(ms_symbolizer *sym, uint64_t ra, const char *callee, const char *ret, const char *kind,
                       const char *flags, const char *type, const char *path)
{
    const ms_sym *f = ms_symbolize(sym, ra, true);
    char *r = NULL;
    if (f && asprintf(&r, "1\tc\ttest_analyze.c\t%s\t%s\t1\t%d\t%d\t%s\t%s\t%s\t%s", callee, ret, f->frames[0].line,
                      f->frames[0].col, kind, flags, type, path) < 0)
        r = NULL;
    return r;
}

static char *file_line(int line)
{
    static char buf[8][600];
    static int next;
    char *b = buf[next++ % 8];
    snprintf(b, sizeof buf[0], "%s:%d", __FILE__, line);
    return b;
}

/* Regions that are no heap block or global: a named stack variable (STACKVAR) is
 * stack:FUNC.VAR beside its function's frame stack:FUNC, malloc's bookkeeping is the heap bin
 * heap:headers, and memory of no known object is other:MAPPING. */
static void test_region_names(ms_raw raw)
{
    uint64_t fn = (uint64_t)(uintptr_t)&kernel_b;
    ms_raw_bin bins[4] = {
        { .id = 1, .kind = MS_BIN_STACKVAR, .pc = fn, .name = "buf" },
        { .id = 2, .kind = MS_BIN_STACK, .pc = fn },
        { .id = 3, .kind = MS_BIN_MAPPING, .name = MS_RAW_LABEL_HEAP_HEADERS },
        { .id = 4, .kind = MS_BIN_MAPPING, .name = "/usr/lib/libfoo.so" },
    };
    ms_raw_context ctxs[4] = {
        { 0, 1, kernel_pc[0] }, { 1, 2, kernel_pc[0] }, { 2, 3, kernel_pc[0] }, { 3, 4, kernel_pc[0] }
    };
    ms_raw_counter counters[4] = { counter(0, 40, 400), counter(1, 30, 300), counter(2, 20, 200), counter(3, 10, 100) };
    raw.bins = bins;
    raw.nbins = 4;
    raw.contexts = ctxs;
    raw.ncontexts = 4;
    raw.counters = counters;
    raw.ncounters = 4;
    raw.evictions = NULL;
    raw.nevictions = 0;
    ms_model m;
    char err[256];
    CHECK(ms_analyze(&raw, NULL, &m, err, sizeof err) == 0);
    static const char *const want[] = { "stack:kernel_b.buf", "stack:kernel_b", "heap:headers", "other:libfoo.so" };
    static const ms_bin_kind kinds[] = { MS_BIN_STACK, MS_BIN_STACK, MS_BIN_HEAP, MS_BIN_OTHER };
    CHECK(m.ndata == 4);
    for (size_t i = 0; i < 4 && i < m.ndata; i++) {
        if (strcmp(m.data[i].name, want[i]) != 0 || m.data[i].kind != kinds[i]) {
            fprintf(stderr, "%s:%d: data[%zu] = %s (kind %d), want %s\n", __FILE__, __LINE__, i, m.data[i].name,
                    (int)m.data[i].kind, want[i]);
            check_failures++;
        }
    }
    if (m.ndata == 4) CHECK(strcmp(m.data[3].full_name, "other:/usr/lib/libfoo.so") == 0);
    ms_model_free(&m);
}

int main(void)
{
    /* Allocation statements whose pcs become the heap bins' sites and call paths. */
    double *grid_values = fake_alloc(64);
    int grid_line = __LINE__ - 1;
    uint64_t grid_site = last_site, main_pc = pc_here();
    double *X = new_matrix(4);
    int x_line = __LINE__ - 1;
    uint64_t x_caller = last_caller, matrix_site = last_site;
    double *Y = new_matrix(4);
    int y_line = __LINE__ - 1;
    uint64_t y_caller = last_caller;
    double *Z = new_matrix(4);
    uint64_t z_caller = last_caller;
    consume(wrap_alloc());
    uint64_t w1 = last_wrap, wrap_site = last_site;
    consume(wrap_alloc());
    uint64_t w2 = last_wrap;
    free(grid_values);
    free(X);
    free(Y);
    free(Z);
    kernel_a();
    kernel_b();

    ms_hier_config cfg;
    char cfg_text[256], err[256];
    CHECK(ms_config_preset("memspy92", &cfg, err, sizeof err) == 0);
    ms_config_format(&cfg, cfg_text, sizeof cfg_text);
    char exe[4096];
    CHECK(realpath("/proc/self/exe", exe) != NULL);
    uint64_t bias = 0;
    dl_iterate_phdr(find_main_bias, &bias);

    ms_raw_module mod = { bias, 0, 0, exe };
    ms_raw_bin bins[10] = {
        heap_bin(10, grid_site, main_pc),
        heap_bin(11, matrix_site, x_caller),
        heap_bin(12, matrix_site, y_caller),
        heap_bin(13, matrix_site, z_caller),
        heap_bin(14, wrap_site, w1),
        heap_bin(15, wrap_site, w2),
        { .id = 20,
          .kind = MS_BIN_GLOBAL,
          .addr = (uint64_t)(uintptr_t)test_grid,
          .size = sizeof test_grid,
          .name = "test_grid" },
        { .id = 21,
          .kind = MS_BIN_GLOBAL,
          .addr = (uint64_t)(uintptr_t)static_owner(),
          .size = 4,
          .name = "counter.0" },
        { .id = 22, .kind = MS_BIN_STACK, .pc = (uint64_t)(uintptr_t)&kernel_b },
        /* registered but never touched by any context: not a data bin of the model */
        { .id = 23, .kind = MS_BIN_GLOBAL, .addr = 16, .size = 8, .name = "never_touched" },
    };
    ms_raw_context ctxs[10] = {
        { 0, 10, kernel_pc[0] }, { 1, 10, kernel_pc[1] }, { 2, 11, kernel_pc[2] }, { 3, 12, kernel_pc[3] },
        { 4, 13, kernel_pc[0] }, { 5, 14, kernel_pc[0] }, { 6, 15, kernel_pc[0] }, { 7, 20, kernel_pc[0] },
        { 8, 21, kernel_pc[0] }, { 9, 22, kernel_pc[0] },
    };
    ms_raw_counter counters[5] = {
        counter(0, 10, 100), counter(1, 5, 50), counter(2, 7, 700), counter(3, 3, 30), counter(99, 1, 1),
    };
    ms_eviction evs[4] = { { 0, 2, 0, 4 }, { 1, 2, 0, 6 }, { 0, 3, 0, 10 }, { 2, 0, 1, 5 } };
    /* The records: grid_values and X, Y, Z declared by their calls in main; new_matrix's m,
     * returned (a wrapper's name: X, Y and Z are named further out); none for wrap_alloc. */
    ms_raw sym_raw = { .modules = &mod, .nmodules = 1 };
    ms_symbolizer *sym = NULL;
    char *sym_note = NULL;
    CHECK(ms_symbolizer_new(&sym_raw, &sym, &sym_note, err, sizeof err) == 0);
    free(sym_note);
    char *dests[5] = {
        record_at(sym, grid_site, "fake_alloc", "-", "v", "du", "double *", "grid_values"),
        record_at(sym, matrix_site, "fake_alloc", "r", "v", "d", "double *", "m"),
        record_at(sym, x_caller, "new_matrix", "-", "v", "du", "double *", "X"),
        record_at(sym, y_caller, "new_matrix", "-", "v", "du", "double *", "Y"),
        record_at(sym, z_caller, "new_matrix", "-", "v", "du", "double *", "Z"),
    };
    ms_symbolizer_free(sym);
    for (int i = 0; i < 5; i++) CHECK(dests[i] != NULL);
    char *notes[1] = { "dropped 3 events" };
    ms_raw raw = {
        .version = 1,
        .flags = MS_RAW_F_INCOMPLETE,
        .pid = 77,
        .exit_kind = MS_EXIT_SIGNAL,
        .exit_value = 11,
        .start_ns = 1000000000,
        .end_ns = 3500000000,
        .config_text = cfg_text,
        .exe = exe,
        .nlevels = cfg.nlevels,
        .modules = &mod,
        .nmodules = 1,
        .bins = bins,
        .nbins = 10,
        .contexts = ctxs,
        .ncontexts = 10,
        .counters = counters,
        .ncounters = 5,
        .evictions = evs,
        .nevictions = 4,
        .notes = notes,
        .nnotes = 1,
        .dests = dests,
        .ndests = 5,
    };

    ms_model m;
    CHECK(ms_analyze(&raw, NULL, &m, err, sizeof err) == 0);
    /* metadata */
    CHECK(m.pid == 77 && m.incomplete && m.wall_seconds == 2.5);
    CHECK(strcmp(m.incomplete_reason, "program killed by signal 11 (Segmentation fault)") == 0);
    CHECK(m.config.nlevels == cfg.nlevels && m.config.mem_latency == cfg.mem_latency);
    CHECK(m.nnotes == 3 && strcmp(m.notes[0], "dropped 3 events") == 0);
    /* the wrapper's two bins have no name: the run says so */
    if (m.nnotes == 3)
        CHECK_STR(m.notes[1], "2 heap bins named by allocation site (heap@FILE:LINE): no destination recorded for the "
                              "call (a pointer never stored anywhere named, or code built without memspy's compiler "
                              "plugins)");
    /* totals */
    CHECK(m.totals.reads == 26 && m.totals.stall_read == 881 && m.totals.level[0].read_misses == 5 + 2 + 3 + 1 + 0);
    /* data bins: ranked by stall, then by name */
    static const char *const want_data[] = { "double*.X",
                                             "double*.grid_values",
                                             "double*.Y",
                                             "unknown",
                                             "double*.Z",
                                             NULL,
                                             NULL,
                                             "kernel_b_placeholder",
                                             "static_owner::counter",
                                             "test_grid" };
    CHECK(m.ndata == 10);
    CHECK(data_index(&m, "never_touched") == -1);
    for (size_t i = 0; i < 5 && i < m.ndata; i++)
        if (strcmp(m.data[i].name, want_data[i]) != 0) {
            fprintf(stderr, "%s:%d: in %s: data[%zu] = %s, want %s\n", __FILE__, __LINE__, __func__, i, m.data[i].name,
                    want_data[i]);
            check_failures++;
        }
    char heap_fallback[64], heap_fallback2[64];
    snprintf(heap_fallback, sizeof heap_fallback, "heap@test_analyze.c:%d", wrap_line);
    /* the wrapper called from two lines of main: each bin says which (issue 12; neither keeps
     * the plain name) */
    snprintf(heap_fallback2, sizeof heap_fallback2, "heap@test_analyze.c:%d@main:", wrap_line);
    CHECK(data_index(&m, heap_fallback) == -1 && m.ndata > 6 &&
          strncmp(m.data[5].name, heap_fallback2, strlen(heap_fallback2)) == 0 &&
          strncmp(m.data[6].name, heap_fallback2, strlen(heap_fallback2)) == 0 &&
          strcmp(m.data[5].name, m.data[6].name) != 0);
    CHECK(data_index(&m, "stack:kernel_b") == 7);
    CHECK(data_index(&m, "static_owner::counter") == 8 && data_index(&m, "test_grid") == 9);
    int xi = data_index(&m, "double*.X"), gi = data_index(&m, "double*.grid_values");
    if (xi >= 0) {
        char want[256];
        snprintf(want, sizeof want, "main:%d>new_matrix:%d>double*.X", x_line, new_matrix_line);
        CHECK(strcmp(m.data[xi].full_name, want) == 0);
        CHECK(strcmp(m.data[xi].site, file_line(new_matrix_line)) == 0);
        CHECK(m.data[xi].kind == MS_BIN_HEAP && m.data[xi].objects == 1 && m.data[xi].bytes == 64);
    }
    if (gi >= 0) CHECK(strcmp(m.data[gi].site, file_line(grid_line)) == 0);
    int yi = data_index(&m, "double*.Y");
    if (yi >= 0) {
        char want[256];
        snprintf(want, sizeof want, "main:%d>new_matrix:%d>double*.Y", y_line, new_matrix_line);
        CHECK(strcmp(m.data[yi].full_name, want) == 0);
    }
    int ti = data_index(&m, "test_grid");
    if (ti >= 0) {
        CHECK(m.data[ti].kind == MS_BIN_GLOBAL && m.data[ti].bytes == sizeof test_grid);
        CHECK(m.data[ti].site && strstr(m.data[ti].site, "test_analyze.c:"));
    }
    /* code bins: kernel_b (730), kernel_a (150), ?? (1) */
    CHECK(m.ncode == 3);
    if (m.ncode == 3) {
        CHECK(strcmp(m.code[0].name, "kernel_b") == 0 && m.code[0].line == kernel_b_line);
        CHECK(strcmp(m.code[1].name, "kernel_a") == 0 && m.code[1].line == kernel_a_line);
        CHECK(m.code[1].file && strcmp(m.code[1].file, __FILE__) == 0);
        CHECK(strcmp(m.code[2].name, "??") == 0 && m.code[2].file == NULL);
    }
    /* cells: sums of contexts, sorted by stall */
    CHECK(m.ncells == 4);
    const ms_cell *a = cell_of(&m, "kernel_a", "double*.grid_values");
    const ms_cell *bx = cell_of(&m, "kernel_b", "double*.X");
    CHECK(a && a->c.reads == 15 && a->c.stall_read == 150 && a->c.level[0].read_misses == 7);
    CHECK(bx && bx == &m.cells[0] && bx->c.reads == 7);
    CHECK(cell_of(&m, "??", "unknown") == &m.cells[3]);
    /* replacement causes: (kernel_b, X) 4 + 6 = 10, (kernel_b, Y) 10; tie broken by data index */
    if (a && a->nevicted_by == 2) {
        CHECK(a->evicted_by[0].count == 10 && a->evicted_by[0].data == (uint32_t)xi && a->evicted_by[0].code == 0);
        CHECK(a->evicted_by[1].count == 10 && a->evicted_by[1].data == (uint32_t)yi && a->evicted_by[1].level == 0);
    } else {
        CHECK(!"cell (kernel_a, grid_values) has 2 evictors");
    }
    if (bx && bx->nevicted_by == 1)
        CHECK(bx->evicted_by[0].code == 1 && bx->evicted_by[0].data == (uint32_t)gi && bx->evicted_by[0].level == 1 &&
              bx->evicted_by[0].count == 5);
    else
        CHECK(!"cell (kernel_b, X) has 1 evictor");
    /* per-line statistics: one per context line */
    CHECK(m.nfiles == 1 && strcmp(m.files[0], __FILE__) == 0);
    CHECK(m.nlines == 4);
    for (size_t i = 0; i < m.nlines && i < 4; i++) CHECK(m.lines[i].line == kernel_line[i]);
    if (m.nlines == 4) CHECK(m.lines[0].c.reads == 10 && m.lines[1].c.reads == 5 && m.lines[2].c.stall_read == 700);

    /* Same input, same output. */
    ms_model m2;
    CHECK(ms_analyze(&raw, NULL, &m2, err, sizeof err) == 0);
    CHECK(m2.ndata == m.ndata && m2.ncells == m.ncells);
    for (size_t i = 0; i < m.ndata && i < m2.ndata; i++) CHECK(strcmp(m.data[i].full_name, m2.data[i].full_name) == 0);
    ms_model_free(&m2);
    if (check_failures) /* show what the analysis produced */
        for (size_t i = 0; i < m.ndata; i++)
            fprintf(stderr, "data[%zu] %s | %s | %s\n", i, m.data[i].name, m.data[i].full_name,
                    m.data[i].site ? m.data[i].site : "-");
    ms_model_free(&m);
    test_region_names(raw); /* raw still points at bins' paths and dests: free them after */
    for (int i = 0; i < 6; i++) free(bins[i].path);
    for (int i = 0; i < 5; i++) free(dests[i]);
    return check_result();
}
