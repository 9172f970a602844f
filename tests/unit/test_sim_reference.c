/* The simulator against a brute-force reference model of docs/simulator.md (LRU levels,
 * write-back + write-allocate, writebacks allocating below, 3C causes by a fully associative
 * LRU list, causes of replacements, stall) on random reference streams: every counter of
 * every context and every replacement pair must be identical. The reference keeps each set
 * and each shadow as a plain array in recency order, so it is obviously right and slow; the
 * simulator's fast paths (order words, node indices kept next to ways and in per-line
 * records, per-line metadata chunks, the hit window) must agree with it on every stream. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"
#include "sim_testutil.h"

#define LINE 64u
#define MAX_LEVELS 3
#define MAX_WAYS 32
#define MAX_SETS 64
#define MAX_SHADOW 2048
#define SPACE_LINES 4096u /* the streams touch line numbers below this */
#define NCTX 6

typedef struct {
    uint64_t line;
    int dirty;
} way;

typedef struct {
    int sets, ways, latency;
    way set[MAX_SETS][MAX_WAYS]; /* index 0 = most recent */
    int used[MAX_SETS];
    uint64_t shadow[MAX_SHADOW]; /* fully associative LRU, index 0 = most recent */
    int shadow_used, capacity;
    unsigned char held[SPACE_LINES];
    uint32_t evictor[SPACE_LINES]; /* ctx + 1, 0 = none */
} ref_level;

typedef struct {
    int nlevels, mem_latency;
    ref_level lv[MAX_LEVELS];
    ms_counters ctr[NCTX];
    uint64_t pairs[NCTX][NCTX][MAX_LEVELS];
} ref_sim;

static int find(const ref_level *l, int s, uint64_t line)
{
    for (int w = 0; w < l->used[s]; w++)
        if (l->set[s][w].line == line) return w;
    return -1;
}

/* Move way w of set s to the front (most recent). */
static void touch(ref_level *l, int s, int w)
{
    way x = l->set[s][w];
    memmove(&l->set[s][1], &l->set[s][0], (size_t)w * sizeof(way));
    l->set[s][0] = x;
}

static int shadow_has(const ref_level *l, uint64_t line)
{
    for (int i = 0; i < l->shadow_used; i++)
        if (l->shadow[i] == line) return 1;
    return 0;
}

static void shadow_touch(ref_level *l, uint64_t line)
{
    int i = 0;
    while (i < l->shadow_used && l->shadow[i] != line) i++;
    if (i == l->shadow_used) {
        if (l->shadow_used < l->capacity) l->shadow_used++;
        i = l->shadow_used - 1; /* overwrite the least recent when full */
    }
    memmove(&l->shadow[1], &l->shadow[0], (size_t)i * sizeof(uint64_t));
    l->shadow[0] = line;
}

static void insert(ref_sim *r, int k, uint64_t line, int dirty, int ctx);

/* A dirty line leaving level k goes to level k+1 (memory absorbs the last level's). */
static void write_back(ref_sim *r, int k, uint64_t line, int ctx)
{
    if (k + 1 >= r->nlevels) return;
    ref_level *below = &r->lv[k + 1];
    r->ctr[ctx].level[k + 1].writebacks++;
    int s = (int)(line % (uint64_t)below->sets), w = find(below, s, line);
    if (w >= 0)
        below->set[s][w].dirty = 1; /* recency unchanged */
    else
        insert(r, k + 1, line, 1, ctx);
}

/* Put line at the front of its set at level k, evicting the least recent line if full. */
static void insert(ref_sim *r, int k, uint64_t line, int dirty, int ctx)
{
    ref_level *l = &r->lv[k];
    int s = (int)(line % (uint64_t)l->sets);
    if (l->used[s] == l->ways) {
        way victim = l->set[s][l->ways - 1];
        l->used[s]--;
        l->evictor[victim.line] = (uint32_t)ctx + 1;
        if (victim.dirty) write_back(r, k, victim.line, ctx);
    }
    memmove(&l->set[s][1], &l->set[s][0], (size_t)l->used[s] * sizeof(way));
    l->set[s][0] = (way){ line, dirty };
    l->used[s]++;
    l->held[line] = 1;
}

static void ref_access(ref_sim *r, uint64_t addr, int write, int ctx)
{
    uint64_t line = addr / LINE;
    ms_counters *c = &r->ctr[ctx];
    if (write)
        c->writes++;
    else
        c->reads++;
    int served = r->nlevels;
    for (int k = 0; k < r->nlevels; k++) {
        ref_level *l = &r->lv[k];
        int s = (int)(line % (uint64_t)l->sets), w = find(l, s, line);
        if (w >= 0) {
            touch(l, s, w);
            served = k;
        } else {
            int cause = !l->held[line] ? MS_CAUSE_COLD : shadow_has(l, line) ? MS_CAUSE_CONFLICT : MS_CAUSE_CAPACITY;
            c->level[k].cause[cause]++;
            if (write)
                c->level[k].write_misses++;
            else
                c->level[k].read_misses++;
            if (cause != MS_CAUSE_COLD && l->evictor[line]) r->pairs[ctx][l->evictor[line] - 1][k]++;
        }
        shadow_touch(l, line);
        if (served == k) break;
    }
    for (int k = served - 1; k >= 0; k--) insert(r, k, line, 0, ctx);
    if (write) {
        ref_level *l1 = &r->lv[0];
        l1->set[line % (uint64_t)l1->sets][0].dirty = 1; /* now the most recent of its set */
    }
    int lat = served == r->nlevels ? r->mem_latency : r->lv[served].latency;
    uint64_t stall = (uint64_t)(lat - r->lv[0].latency);
    if (write)
        c->stall_write += stall;
    else
        c->stall_read += stall;
}

typedef struct {
    int ctx, evictor, level;
    uint64_t count;
} pair_row;
typedef struct {
    pair_row rows[NCTX * NCTX * MAX_LEVELS];
    int n;
} pair_list;

static void collect(const ms_eviction *e, void *ud)
{
    pair_list *p = ud;
    if (p->n < NCTX * NCTX * MAX_LEVELS)
        p->rows[p->n++] = (pair_row){ (int)e->victim_ctx, (int)e->evictor_ctx, (int)e->level, e->count };
}

/* The next reference of a stream: random lines over `footprint` with a hot quarter, or
 * (strided) four interleaved walks over 8-byte elements that jump to a random line now and
 * then, as loops over arrays do; writes with probability 1/3. */
typedef struct {
    uint64_t x;
    int strided;
    uint64_t walk[4];
} stream;

static void next_ref(stream *st, unsigned footprint, uint64_t *addr, int *write, int *ctx)
{
    uint64_t x = st->x;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    st->x = x;
    unsigned pick = (unsigned)(x >> 32);
    if (st->strided) {
        int k = (int)((x >> 3) % 4);
        if ((x >> 40) % 97 == 0) st->walk[k] = ((x >> 8) % footprint) * LINE;
        *addr = st->walk[k];
        st->walk[k] = (st->walk[k] + 8) % ((uint64_t)footprint * LINE);
        *ctx = (k + 4 * (int)((x >> 24) & 1)) % NCTX;
    } else {
        unsigned line = (pick & 3) ? (pick >> 2) % (footprint / 4 + 1) : (pick >> 2) % footprint;
        *addr = (uint64_t)line * LINE + ((x >> 8) & 7) * 8;
        *ctx = (int)((x >> 24) % NCTX);
    }
    *write = (x >> 20) % 3 == 0;
}

/* One configuration: levels as {sets, ways, latency}; a stream of n references (next_ref). */
static void run_case(const char *name, int nlevels, const int geom[][3], int mem_latency, unsigned footprint, int n,
                     unsigned seed, int strided)
{
    ref_sim *r = calloc(1, sizeof *r);
    char text[256];
    int len = 0;
    r->nlevels = nlevels;
    r->mem_latency = mem_latency;
    for (int k = 0; k < nlevels; k++) {
        ref_level *l = &r->lv[k];
        l->sets = geom[k][0];
        l->ways = geom[k][1];
        l->latency = geom[k][2];
        l->capacity = l->sets * l->ways;
        len += snprintf(text + len, sizeof text - (size_t)len, "%sL%d=%d:%d:%u:%d:lru", k ? "," : "", k + 1,
                        l->sets * l->ways * (int)LINE, l->ways, LINE, l->latency);
    }
    snprintf(text + len, sizeof text - (size_t)len, ";mem=%d", mem_latency);
    ms_sim *sim = sim_from_text(text);

    stream st = { seed * 2654435761u + 1, strided, { 0, 0, 0, 0 } };
    for (int k = 0; k < 4; k++) st.walk[k] = (uint64_t)(k * (footprint / 4)) * LINE;
    for (int i = 0; i < n; i++) {
        uint64_t addr;
        int write, ctx;
        next_ref(&st, footprint, &addr, &write, &ctx);
        ref_access(r, addr, write, ctx);
        ms_sim_access(sim, 0, addr, 8, write ? MS_ACC_WRITE : 0, (uint32_t)ctx);
    }

    uint32_t nctx = 0;
    const ms_counters *got = ms_sim_counters(sim, &nctx);
    int bad = 0;
    for (int c = 0; c < NCTX && c < (int)nctx; c++) {
        ms_counters live = got[c];
#define MS_SPATIAL_COUNTER(member) live.member = 0; /* not modelled here: test_sim_util */
#include "sim/counters.def"
        if (memcmp(&live, &r->ctr[c], sizeof live) != 0) {
            fprintf(stderr, "%s: counters of context %d differ from the reference model\n", name, c);
            bad = 1;
        }
    }
    pair_list p = { .n = 0 };
    ms_sim_each_eviction(sim, collect, &p);
    int expected_pairs = 0;
    for (int v = 0; v < NCTX; v++)
        for (int e = 0; e < NCTX; e++)
            for (int k = 0; k < nlevels; k++) expected_pairs += r->pairs[v][e][k] != 0;
    if (p.n != expected_pairs) {
        fprintf(stderr, "%s: %d replacement pairs, reference has %d\n", name, p.n, expected_pairs);
        bad = 1;
    }
    for (int i = 0; i < p.n; i++)
        if (r->pairs[p.rows[i].ctx][p.rows[i].evictor][p.rows[i].level] != p.rows[i].count) {
            fprintf(stderr, "%s: pair (%d, %d, L%d) counts %llu, reference %llu\n", name, p.rows[i].ctx,
                    p.rows[i].evictor, p.rows[i].level + 1, (unsigned long long)p.rows[i].count,
                    (unsigned long long)r->pairs[p.rows[i].ctx][p.rows[i].evictor][p.rows[i].level]);
            bad = 1;
        }
    CHECK_EQ_INT(nctx, NCTX);
    CHECK_EQ_INT(bad, 0);
    /* the streams must exercise what they claim to */
    ms_counters tot;
    ms_sim_totals(sim, &tot);
    CHECK(tot.level[0].cause[MS_CAUSE_CONFLICT] > 0 && tot.level[0].cause[MS_CAUSE_CAPACITY] > 0);
    CHECK(p.n > 0);
    if (strided) /* the window counted many references without simulating them */
        CHECK(sim->win.filtered_total + sim->win.filtered > (uint64_t)n / 4);
    if (nlevels > 1) CHECK(tot.level[1].writebacks > 0);
    ms_sim_destroy(sim);
    free(r);
}

int main(void)
{
    static const int dm[][3] = { { 64, 1, 0 } };
    static const int two[][3] = { { 8, 4, 4 }, { 16, 8, 14 } };
    static const int three[][3] = { { 4, 8, 4 }, { 8, 16, 12 }, { 16, 16, 40 } };
    static const int wide[][3] = { { 2, 32, 3 }, { 32, 16, 10 } }; /* > 16 ways: shifted sets */
    run_case("direct-mapped", 1, dm, 50, 300, 200000, 1, 0);
    run_case("two levels", 2, two, 200, 700, 300000, 2, 0);
    run_case("three levels", 3, three, 200, 2000, 300000, 3, 0);
    run_case("32-way L1", 2, wide, 100, 1500, 300000, 4, 0);
    /* Strided walks: most references repeat a line of the hit window (window.c). */
    run_case("direct-mapped, strided", 1, dm, 50, 300, 200000, 5, 1);
    run_case("two levels, strided", 2, two, 200, 700, 300000, 6, 1);
    run_case("three levels, strided", 3, three, 200, 2000, 300000, 7, 1);
    run_case("32-way L1, strided", 2, wide, 100, 1500, 300000, 8, 1);
    return check_result();
}
