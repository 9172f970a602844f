/* The core measured: effective clock and dependent-chain latencies (corecheck.h). */
#include "corecheck.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "../util/strbuf.h"
#include "../util/util.h"
#include "blockchain.h"
#include "blockcost.h"
#include "tools.h"

static double now_s(void)
{
    struct timespec ts; /* this thread's CPU time: time the machine gave to others is not counted */
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#if defined(__x86_64__)
#define X5(i) i "\n\t" i "\n\t" i "\n\t" i "\n\t" i "\n\t"
#define X20(i) X5(i) X5(i) X5(i) X5(i)

typedef enum {
    CHAIN_ADD,
    CHAIN_IMUL,
    CHAIN_ADDSD,
    CHAIN_MULSD,
    CHAIN_LOAD,
    CHAIN_MULADD,
    CHAIN_FMA,
    CHAIN_DIVSD,
    CHAIN_CVT,
    CHAIN_SHUF
} chain_kind;

/* The shortest time of 4 trials of rounds x 20 dependent instructions of one kind. */
static double chain_seconds(chain_kind k, unsigned long rounds)
{
    /* the load chain walks a ring of 8 lines (a pointer to itself is renamed away by some
     * cores: 0.3 cycles a load on a Golden Cove core where the ring takes 5) */
    enum { LINE = 64 / sizeof(void *), RING = 8 * LINE };
    void *ring[RING] __attribute__((aligned(64)));
    for (size_t i = 0; i < RING; i += LINE) ring[i] = &ring[(i + LINE) % RING];
    double best = 0;
    for (int trial = 0; trial < 4; trial++) {
        uint64_t x = (uint64_t)trial + 3;
        double d = 1.0, one = 1.0, div = 1.0000001; /* a divisor the divider has no shortcut for */
        void *p = ring;
        double t0 = now_s();
        switch (k) {
        case CHAIN_ADD:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("add %0, %0") : "+r"(x));
            break;
        case CHAIN_IMUL:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("imul %0, %0") : "+r"(x));
            break;
        case CHAIN_ADDSD:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("addsd %1, %0") : "+x"(d) : "x"(one));
            break;
        case CHAIN_MULSD:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("mulsd %1, %0") : "+x"(d) : "x"(one));
            break;
        case CHAIN_MULADD: /* a multiply feeding an add feeding the next multiply: the bypass between them */
            for (unsigned long i = 0; i < rounds; i++)
                __asm__ volatile(X20("mulsd %1, %0\n\taddsd %1, %0") : "+x"(d) : "x"(one));
            break;
        case CHAIN_FMA: /* d += 1 * 1 */
            for (unsigned long i = 0; i < rounds; i++)
                __asm__ volatile(X20("vfmadd231sd %1, %1, %0") : "+x"(d) : "x"(one));
            break;
        case CHAIN_DIVSD:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("divsd %1, %0") : "+x"(d) : "x"(div));
            break;
        case CHAIN_CVT: /* an integer to double and back: one link, two conversions */
            for (unsigned long i = 0; i < rounds; i++)
                __asm__ volatile(X20("cvtsi2sd %0, %%xmm3\n\tcvttsd2si %%xmm3, %0") : "+r"(x) : : "xmm3");
            break;
        case CHAIN_SHUF:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("shufpd $1, %0, %0") : "+x"(d));
            break;
        case CHAIN_LOAD:
            for (unsigned long i = 0; i < rounds; i++) __asm__ volatile(X20("mov (%0), %0") : "+r"(p));
            break;
        }
        double t = now_s() - t0;
        if (t > 0 && (best == 0 || t < best)) best = t;
    }
    return best;
}

/* The chains checked against the model: llvm-mca's text of one link, the class of
 * instructions whose latency it measures (blockchain.h; -1: the bypass between adder and
 * multiplier), how many of them one link has, a divisor of the rounds timed (long links), and
 * whether the CPU must have FMA. The classes are those real loops' chains go through. */
static const struct {
    chain_kind kind;
    const char *insn, *mca;
    int cls, per_link, slow, fma;
} chains[] = {
    { CHAIN_ADDSD, "addsd", "addsd %xmm1, %xmm0", MS_LAT_FADD, 1, 1, 0 },
    { CHAIN_MULSD, "mulsd", "mulsd %xmm1, %xmm0", MS_LAT_FMUL, 1, 1, 0 },
    { CHAIN_LOAD, "mov (load)", "movq (%rax), %rax", MS_LAT_LOAD, 1, 1, 0 },
    { CHAIN_MULADD, "mulsd+addsd", "mulsd %xmm1, %xmm0\naddsd %xmm1, %xmm0", -1, 2, 1, 0 },
    { CHAIN_FMA, "vfmadd231sd", "vfmadd231sd %xmm1, %xmm1, %xmm0", MS_LAT_FMA, 1, 1, 1 },
    { CHAIN_DIVSD, "divsd", "divsd %xmm1, %xmm0", MS_LAT_FDIV, 1, 4, 0 },
    { CHAIN_IMUL, "imul", "imulq %rax, %rax", MS_LAT_IMUL, 1, 1, 0 },
    { CHAIN_CVT, "cvtsi2sd+tsd2si", "cvtsi2sd %rax, %xmm3\ncvttsd2si %xmm3, %rax", MS_LAT_CVT, 2, 4, 0 },
    { CHAIN_SHUF, "shufpd", "shufpd $1, %xmm0, %xmm0", MS_LAT_SHUF, 1, 1, 0 },
};
#define NCHAINS (sizeof chains / sizeof *chains)

/* Whether chain k can be timed on this CPU (FMA: the CPU has it). */
static int chain_ok(size_t k)
{
    __builtin_cpu_init();
    return !chains[k].fma || __builtin_cpu_supports("fma");
}

/* How many of the chains this CPU times. */
static size_t chains_timed(void)
{
    size_t n = 0;
    for (size_t k = 0; k < NCHAINS; k++) n += chain_ok(k);
    return n;
}
#endif

double ms_effective_clock_hz(void)
{
#if defined(__x86_64__)
    /* Register-to-register adds (1 cycle) and multiplies (3 cycles): never an add of an
     * immediate, which cores since Golden Cove fold at rename, several to a cycle (a chain of
     * them read 23.9 GHz on a 4.15 GHz core). The lower of the two is the clock: a core that
     * shortened one chain would otherwise be read as faster than it is. */
    /* 5M and 4.5M cycles a trial (1-1.5 ms: the thread's CPU clock counts nanoseconds) */
    enum { ADDS = 250000, MULS = 75000 };
    double ta = chain_seconds(CHAIN_ADD, ADDS), tm = chain_seconds(CHAIN_IMUL, MULS);
    double add = ta > 0 ? 20.0 * ADDS / ta : 0, mul = tm > 0 ? 3 * 20.0 * MULS / tm : 0;
    return add < mul ? add : mul;
#else
    return 0;
#endif
}

#if defined(__x86_64__)
/* The cache file of this machine's chain latencies: core-HASH.txt, HASH of the host name and
 * the first processor's identity in /proc/cpuinfo (vendor, family, model, stepping,
 * microcode, model name). -1 when there is no cache directory. */
static int chains_cache_file(char *out, size_t len, int make_dirs)
{
    static const char *const keys[] = { "vendor_id", "cpu family", "model", "model name", "stepping", "microcode" };
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    for (const char *p = host; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    char *info = NULL;
    if (ms_read_file("/proc/cpuinfo", 0, &info, NULL) == MS_READ_OK) {
        char *end = strstr(info, "\n\n"); /* the first processor */
        if (end) *end = '\0';
        for (char *line = strtok(info, "\n"); line; line = strtok(NULL, "\n"))
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
                size_t n = strlen(keys[k]);
                if (strncmp(line, keys[k], n) || (line[n] != '\t' && line[n] != ' ' && line[n] != ':')) continue;
                for (const char *p = line; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
            }
    }
    free(info);
    char name[64];
    snprintf(name, sizeof name, "core-%016llx.txt", (unsigned long long)h);
    return ms_cache_file(out, len, name, make_dirs);
}

/* The lines of s. */
static size_t chains_count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* The chains' core cycles from the cache ("INSN CYCLES" a line, in chains' order): 1 if every
 * chain was there, else 0. */
static int chains_cached(ms_core_reading *r, const char *file)
{
    char *text = NULL;
    if (ms_read_file(file, 0, &text, NULL) != MS_READ_OK) return 0;
    size_t i = 0;
    char *line = text;
    for (size_t k = 0; k < NCHAINS && i < MS_MTOOL_CHAINS && line && *line; k++) {
        if (!chain_ok(k)) continue;
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        char *sp = strrchr(line, ' ');
        if (!sp || (size_t)(sp - line) != strlen(chains[k].insn) || strncmp(line, chains[k].insn, (size_t)(sp - line)))
            break;
        char *end;
        double v = strtod(sp + 1, &end);
        if (end == sp + 1 || *end || !(v > 0)) break;
        snprintf(r->chains[i].insn, sizeof r->chains[i].insn, "%s", chains[k].insn);
        r->chains[i++].core_cycles = v;
        line = nl ? nl + 1 : NULL;
    }
    free(text);
    if (i != chains_timed() || i > MS_MTOOL_CHAINS) return 0;
    r->nchains = i;
    return 1;
}
#endif

void ms_core_measure(ms_core_reading *r)
{
    memset(r, 0, sizeof *r);
    r->clock_hz = ms_effective_clock_hz();
#if defined(__x86_64__)
    /* the chains' latencies are the core's: measured once per machine and CPU, then cached
     * (14 ms of the 24 ms this took; the clock, which turbo and the load move, is measured
     * every time) */
    char file[4400];
    int cache = chains_cache_file(file, sizeof file, 1) == 0;
    if (cache && chains_cached(r, file)) return;
    const unsigned long rounds = 50000; /* 1M links: 4-5M cycles for a 4-5 cycle link */
    ms_strbuf text = MS_STRBUF_INIT;
    for (size_t i = 0; i < NCHAINS && r->nchains < MS_MTOOL_CHAINS; i++) {
        if (!chain_ok(i)) continue;
        ms_mtool_chain *c = &r->chains[r->nchains++];
        snprintf(c->insn, sizeof c->insn, "%s", chains[i].insn);
        unsigned long n = rounds / (unsigned long)chains[i].slow;
        double t = chain_seconds(chains[i].kind, n);
        c->core_cycles = r->clock_hz > 0 ? t * r->clock_hz / (20.0 * (double)n) : 0;
        if (c->core_cycles > 0) ms_strbuf_addf(&text, "%s %.17g\n", c->insn, c->core_cycles);
    }
    char *out = ms_strbuf_take(&text);
    if (cache && out && chains_count_lines(out) == chains_timed()) /* every chain timed */
        ms_cache_write(file, out);
    free(out);
#endif
}

int ms_core_model(ms_core_reading *r, const char *cpu, char *err, size_t errlen)
{
#if defined(__x86_64__)
    const char *text[MS_MTOOL_CHAINS] = { 0 };
    double cyc[MS_MTOOL_CHAINS] = { 0 };
    for (size_t i = 0; i < r->nchains; i++)
        for (size_t k = 0; k < NCHAINS; k++)
            if (!strcmp(r->chains[i].insn, chains[k].insn)) text[i] = chains[k].mca;
    if (ms_mca_cycles_cached(text, r->nchains, cpu, cyc, err, errlen) < 0) return -1;
    int fix = !getenv("MEMSPY_MTOOL_MODEL_LATENCY") && ms_tool_mcdeps_path(); /* the recurrences need it */
    for (size_t i = 0; i < r->nchains; i++) {
        double off;
        r->chains[i].model_cycles = cyc[i];
        r->chains[i].corrected = fix && ms_mtool_chain_misfit(&r->chains[i], &off);
    }
#else
    (void)r, (void)cpu, (void)err, (void)errlen;
#endif
    return 0;
}

const char *ms_core_closest_cpu(void)
{
    const char *host = ms_blockcost_host_cpu();
#if defined(__x86_64__)
    /* the vendor's models with distinct chain latencies in LLVM 14 (icelake, alderlake and
     * sapphirerapids take skylake's; znver1 and znver2 the same adds and multiplies) */
    static const char *const intel[] = { "skylake", "broadwell", "haswell", "sandybridge" };
    static const char *const amd[] = { "znver3", "znver2", "znver1" };
    const char *const *cand = !strcmp(host, "skylake") ? intel : !strncmp(host, "znver", 5) ? amd : NULL;
    size_t ncand = cand == intel ? sizeof intel / sizeof *intel : cand ? sizeof amd / sizeof *amd : 0;
    if (!ncand) return host;
    ms_core_reading core;
    char file[4400], err[512];
    memset(&core, 0, sizeof core);
    if (chains_cache_file(file, sizeof file, 0) < 0 || !chains_cached(&core, file)) ms_core_measure(&core);
    if (!core.nchains) return host;
    const char *best = host;
    double best_score = 0;
    for (size_t k = 0; k <= ncand; k++) { /* the host's pick first, then the others */
        const char *cpu = k ? cand[k - 1] : host;
        if (k && !strcmp(cpu, host)) continue;
        ms_core_reading r = core;
        if (ms_core_model(&r, cpu, err, sizeof err) < 0) return host;
        double score = 0;
        for (size_t i = 0; i < r.nchains; i++)
            if (r.chains[i].core_cycles > 0 && r.chains[i].model_cycles > 0)
                score += fabs(log(r.chains[i].model_cycles / r.chains[i].core_cycles));
        if (!k)
            best_score = score;
        else if (score < best_score - 0.1) {
            best = cpu;
            best_score = score;
        }
    }
    return best;
#else
    return host;
#endif
}

/* The chain named insn in r, or NULL. */
static const ms_mtool_chain *chain_named(const ms_core_reading *r, const char *insn)
{
    for (size_t i = 0; i < r->nchains; i++)
        if (!strcmp(r->chains[i].insn, insn) && r->chains[i].core_cycles > 0 && r->chains[i].model_cycles > 0)
            return &r->chains[i];
    return NULL;
}

/* x to a tenth of a cycle: the correction and its name in the cache agree. */
static double tenth(double x) { return round(x * 10) / 10; }

void ms_core_latency_fix(const char *cpu, ms_latency_fix *fix)
{
    memset(fix, 0, sizeof *fix);
#if defined(__x86_64__)
    if (getenv("MEMSPY_MTOOL_MODEL_LATENCY")) return; /* the model's latencies alone (docs/mtool.md) */
    if (!ms_tool_mcdeps_path()) return;               /* no recurrences without memspy-mcdeps */
    ms_core_reading core;
    char file[4400], err[512];
    memset(&core, 0, sizeof core);
    if (chains_cache_file(file, sizeof file, 0) < 0 || !chains_cached(&core, file)) ms_core_measure(&core);
    if (!core.nchains || ms_core_model(&core, cpu, err, sizeof err) < 0) return;
    double core_c[MS_LAT_CLASSES] = { 0 }, model_c[MS_LAT_CLASSES] = { 0 };
    for (size_t k = 0; k < NCHAINS; k++) { /* each class's chain; a class not timed keeps the model's */
        const ms_mtool_chain *c = chains[k].cls >= 0 ? chain_named(&core, chains[k].insn) : NULL;
        if (!c) continue;
        int cl = chains[k].cls;
        core_c[cl] = tenth(c->core_cycles);
        model_c[cl] = tenth(c->model_cycles);
        if (c->corrected) fix->delta[cl] = tenth((core_c[cl] - model_c[cl]) / chains[k].per_link);
        fix->active |= c->corrected;
    }
    const ms_mtool_chain *pair = chain_named(&core, "mulsd+addsd");
    if (pair && core_c[MS_LAT_FADD] > 0 && core_c[MS_LAT_FMUL] > 0 &&
        (fix->delta[MS_LAT_FADD] != 0 || fix->delta[MS_LAT_FMUL] != 0 || pair->corrected)) {
        /* each way between the adder and the multiplier: what the pair takes beyond the two */
        fix->bypass_core = (tenth(pair->core_cycles) - core_c[MS_LAT_FADD] - core_c[MS_LAT_FMUL]) / 2;
        fix->bypass_model = (tenth(pair->model_cycles) - model_c[MS_LAT_FADD] - model_c[MS_LAT_FMUL]) / 2;
        if (fix->bypass_core < 0) fix->bypass_core = 0;
        if (fix->bypass_model < 0) fix->bypass_model = 0;
        fix->active |= pair->corrected;
    }
    if (fix->active)
        snprintf(fix->tag, sizeof fix->tag, "core-a%+.1f-m%+.1f-l%+.1f-f%+.1f-d%+.1f-i%+.1f-c%+.1f-s%+.1f-b%.2f-%.2f",
                 fix->delta[MS_LAT_FADD], fix->delta[MS_LAT_FMUL], fix->delta[MS_LAT_LOAD], fix->delta[MS_LAT_FMA],
                 fix->delta[MS_LAT_FDIV], fix->delta[MS_LAT_IMUL], fix->delta[MS_LAT_CVT], fix->delta[MS_LAT_SHUF],
                 fix->bypass_core, fix->bypass_model);
#else
    (void)cpu;
#endif
}
