/* Ideal-memory cycles per block with llvm-mca; see blockcost.h. The binary's code is
 * disassembled once (llvm-objdump), cut at the block pcs the plugin registered (a block ends
 * at the next block's pc or at its first unconditional jump or return), rewritten
 * (blockasm.c: the plugin's instrumentation taken out, the stack engine's pushes, pops and
 * calls; a versioned function's dispatch and prologue added to its copy's entry block), and
 * the blocks go to llvm-mca as code regions (# LLVM-MCA-BEGIN/END), split among one llvm-mca
 * per CPU the process may use (regions are costed independently: the same cycles). A block in
 * a loop costs llvm-mca's steady state, one outside loops its throughput bound, scaled with the
 * function's other blocks outside loops; a loop's block that calls a small leaf function what it
 * adds to the callee's busiest resource (blockgroup.c). docs/mtool.md. */
#define _GNU_SOURCE
#include "blockcost.h"
#include "blockasm.h"
#include "blockchain.h"
#include "blockgroup.h"
#include "corecheck.h"
#include "tools.h"
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "../util/strbuf.h"
#include "../util/util.h"

#define MCA_ITERATIONS 100
/* Bumped when the way blocks are cut or rewritten changes: older cache files are not used. */
#define BLOCKCOST_METHOD "m11"

/* How many llvm-mca processes for regions code regions: one per CPU this process may use, at
 * most 16, and at least 32 regions each (a process costs 40 ms to start). */
static size_t mca_parts(size_t regions)
{
    cpu_set_t set;
    long cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : sysconf(_SC_NPROCESSORS_ONLN);
    size_t n = cpus > 1 ? (size_t)cpus : 1;
    if (n > 16) n = 16;
    if (n > regions / 32) n = regions / 32;
    return n ? n : 1;
}

const char *ms_blockcost_host_cpu(void)
{
    char *info = NULL;
    if (ms_read_file("/proc/cpuinfo", 0, &info, NULL) != MS_READ_OK) return "generic";
    const char *cpu = "generic";
    const char *fam = strstr(info, "cpu family");
    const char *model = strstr(info, "\nmodel\t");
    int family = fam ? atoi(strchr(fam, ':') ? strchr(fam, ':') + 1 : fam) : 0;
    int mod = model ? atoi(strchr(model, ':') ? strchr(model, ':') + 1 : model) : 0;
    if (strstr(info, "AuthenticAMD")) {
        if (family >= 25)
            cpu = "znver3"; /* 19h; later families: the newest llvm-14 models */
        else if (family == 23)
            cpu = mod >= 0x30 ? "znver2" : "znver1";
    } else if (strstr(info, "GenuineIntel")) {
        cpu = "skylake";
    }
    free(info);
    return cpu;
}

static int list_cpus(ms_strbuf *list, char *err, size_t errlen);

/* memspy's cache directory ($XDG_CACHE_HOME/memspy, else ~/.cache/memspy) into dir, created
 * when make_dirs. Returns 0, or -1 when there is none. */
static int cache_dir(char *dir, size_t len, int make_dirs)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int w;
    if (xdg && *xdg)
        w = snprintf(dir, len, "%s/memspy", xdg);
    else if (home && *home)
        w = snprintf(dir, len, "%s/.cache/memspy", home);
    else
        return -1;
    if (w <= 0 || (size_t)w >= len) return -1;
    if (make_dirs) {
        char parent[4096];
        snprintf(parent, sizeof parent, "%.4000s", dir);
        char *slash = strrchr(parent, '/');
        if (slash) {
            *slash = '\0';
            mkdir(parent, 0700);
        }
        mkdir(dir, 0700);
    }
    return 0;
}

/* The cache file NAME-SIZE-MTIME.txt of a result of llvm-mca: SIZE and MTIME those of the
 * llvm-mca found in $PATH (another llvm-mca, another result). -1 if it cannot be found. */
static int mca_cache_file(char *out, size_t len, const char *name, int make_dirs)
{
    const char *path = getenv("PATH");
    char dir[4096], exe[4200];
    struct stat st;
    int found = 0;
    for (const char *p = path ? path : "/usr/bin"; p && *p && !found;) {
        size_t n = strcspn(p, ":");
        snprintf(exe, sizeof exe, "%.*s/%s", (int)(n < 4096 ? n : 4096), p, MS_LLVM_MCA);
        found = n && stat(exe, &st) == 0 && S_ISREG(st.st_mode);
        p += n + (p[n] == ':');
    }
    if (!found || cache_dir(dir, sizeof dir, make_dirs) < 0) return -1;
    int w = snprintf(out, len, "%s/%s-%lld-%lld.txt", dir, name, (long long)st.st_size, (long long)st.st_mtime);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

/* The cache file of llvm-mca's CPU list. */
static int cpu_list_cache(char *out, size_t len, int make_dirs)
{
    return mca_cache_file(out, len, "mca-cpus", make_dirs);
}

/* Write text to file whole or not at all (a temporary file renamed over it). */
static void cache_write(const char *file, const char *text)
{
    char tmp[4500];
    snprintf(tmp, sizeof tmp, "%s.%d", file, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (f && fputs(text, f) >= 0 && fclose(f) == 0)
        rename(tmp, file);
    else {
        if (f) fclose(f);
        unlink(tmp);
    }
}

int ms_cache_file(char *out, size_t len, const char *name, int make_dirs)
{
    char dir[4096];
    if (cache_dir(dir, sizeof dir, make_dirs) < 0) return -1;
    int w = snprintf(out, len, "%s/%s", dir, name);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

void ms_cache_write(const char *file, const char *text) { cache_write(file, text); }

/* The CPU names `llvm-mca -mcpu=help` lists, into *list (a strbuf of "name " entries); read
 * from the cache when this llvm-mca listed them before (saves a run of llvm-mca per command). */
static int known_cpus(ms_strbuf *list, char *err, size_t errlen)
{
    char cached[4400], *text = NULL;
    if (cpu_list_cache(cached, sizeof cached, 0) == 0 && ms_read_file(cached, 0, &text, NULL) == MS_READ_OK &&
        text[0]) {
        ms_strbuf_adds(list, text);
        free(text);
        return list->oom ? ms_errorf(err, errlen, "out of memory") : 0;
    }
    free(text);
    int rc = list_cpus(list, err, errlen);
    if (rc == 0 && cpu_list_cache(cached, sizeof cached, 1) == 0) cache_write(cached, list->s);
    return rc;
}

/* The CPU names `llvm-mca -mcpu=help` lists, into *list (a strbuf of "name " entries). */
static int list_cpus(ms_strbuf *list, char *err, size_t errlen)
{
    char out[512], er[512];
    if (ms_tool_scratch(out, sizeof out, "mcahelp") < 0 || ms_tool_scratch(er, sizeof er, "mcaerr") < 0)
        return ms_errorf(err, errlen, "cannot create a scratch file: %s", strerror(errno));
    char *argv[] = { MS_LLVM_MCA, "-mtriple=x86_64-unknown-linux-gnu", "-mcpu=help", NULL };
    int rc = ms_tool_run(argv, NULL, out, er);
    char *text = NULL, *etext = NULL;
    ms_read_file(out, 0, &text, NULL);
    ms_read_file(er, 0, &etext, NULL);
    unlink(out);
    unlink(er);
    if (rc == 127 || rc < 0) {
        free(text);
        free(etext);
        return ms_errorf(err, errlen, "%s not found: install Debian's llvm-14 package (scripts/deps.sh)", MS_LLVM_MCA);
    }
    /* the list goes to stdout or stderr depending on the version */
    for (int k = 0; k < 2; k++) {
        const char *t = k ? etext : text;
        const char *p = t ? strstr(t, "Available CPUs for this target:") : NULL;
        if (!p) continue;
        p = strchr(p, '\n');
        while (p && *++p) {
            const char *line = p;
            p = strchr(p, '\n');
            while (*line == ' ') line++;
            if (!*line || *line == '\n') {
                if (list->len) break;
                continue;
            }
            size_t w = strcspn(line, " \n");
            ms_strbuf_add(list, line, w);
            ms_strbuf_adds(list, " ");
            if (!p) break;
        }
        if (list->len) break;
    }
    free(text);
    free(etext);
    if (!list->len) return ms_errorf(err, errlen, "%s -mcpu=help listed no CPU", MS_LLVM_MCA);
    return 0;
}

int ms_blockcost_check_cpu(const char *cpu, char *err, size_t errlen)
{
    ms_strbuf list = MS_STRBUF_INIT;
    if (known_cpus(&list, err, errlen) < 0) {
        ms_strbuf_free(&list);
        return -1;
    }
    int found = 0;
    for (const char *p = list.s; *p && !found;) {
        size_t w = strcspn(p, " ");
        found = w == strlen(cpu) && strncmp(p, cpu, w) == 0;
        p += w + (p[w] == ' ');
    }
    int rc = found ? 0 : ms_errorf(err, errlen, "unknown CPU model '%s'; llvm-mca knows: %s", cpu, list.s);
    ms_strbuf_free(&list);
    return rc;
}

/* "Total Cycles:" / "Iterations:" (steady-state cycles per iteration) and "Block RThroughput:"
 * (the block's throughput bound, with no dependence between iterations: its resources and
 * dispatch alone) of each "Code Region - NAME" in llvm-mca's output, in order, into out and
 * rthru, and its resources' cycles (blockgroup.h: "Total uOps:" / "Dispatch Width:", then
 * "Resource pressure per iteration:") into res[i * MS_MCA_RES...] (n regions expected); with fix
 * and memspy-mcdeps' output for the same regions (deps), each region's recurrence with the
 * model's and the core's latencies into rec[2i], rec[2i + 1] (blockchain.h). */
static int parse_mca(const char *text, double *out, double *rthru, float *res, const ms_latency_fix *fix,
                     const char *deps, double *rec, size_t n, char *err, size_t errlen)
{
    size_t i = 0;
    const char *p = text, *dr = deps ? strstr(deps, "region ") : NULL;
    while (i < n && (p = strstr(p, "Iterations:")) != NULL) {
        double iters = strtod(p + 11, NULL);
        const char *c = strstr(p, "Total Cycles:");
        if (!c) break;
        double cycles = strtod(c + 13, NULL);
        const char *next = strstr(c, "Iterations:");
        const char *r = strstr(c, "Block RThroughput:"), *u = strstr(c, "Total uOps:"),
                   *w = strstr(c, "Dispatch Width:");
        const char *rp = strstr(c, "Resource pressure per iteration:");
        rthru[i] = r && (!next || r < next) ? strtod(r + 18, NULL) : 0;
        float *v = res + i * MS_MCA_RES;
        for (int k = 0; k < MS_MCA_RES; k++) v[k] = 0;
        double width = w && (!next || w < next) ? strtod(w + 15, NULL) : 0;
        if (u && (!next || u < next) && width > 0 && iters > 0) v[0] = (float)(strtod(u + 11, NULL) / iters / width);
        const char *line = rp && (!next || rp < next) ? strchr(rp, '\n') : NULL;
        line = line ? strchr(line + 1, '\n') : NULL; /* the values, under the units' numbers */
        const char *eol = line ? strchr(line + 1, '\n') : NULL;
        for (int k = 1; line && eol && k < MS_MCA_RES;) {
            while (line < eol && (*line == ' ' || *line == '\n')) line++;
            if (line >= eol) break;
            char *end = (char *)line + 1;
            v[k++] = *line == '-' ? 0 : (float)strtod(line, &end);
            if (end == line) break;
            line = end;
        }
        rec[2 * i] = rec[2 * i + 1] = 0;
        if (fix && dr) { /* this region's instructions: up to the next "region" line */
            const char *dn = strstr(dr + 7, "\nregion ");
            ms_block_recurrence(dr, dn ? (size_t)(dn + 1 - dr) : strlen(dr), fix, &rec[2 * i], &rec[2 * i + 1]);
            dr = dn ? dn + 1 : NULL;
        }
        out[i++] = iters > 0 ? cycles / iters : 0;
        p = c;
    }
    if (i != n) return ms_errorf(err, errlen, "llvm-mca reported %zu of %zu code regions", i, n);
    return 0;
}

/* One llvm-mca process's share of the regions: its scratch files and pid. */
typedef struct {
    char inp[512], out[512], er[512], dout[512]; /* dout: memspy-mcdeps' output */
    size_t first, n;                             /* its regions: first..first+n-1 in the order of the texts */
    pid_t pid, dpid;
    int wrote;
} mca_part;

/* ms_mca_cycles, with each region's throughput bound into out_rthru, its resources' cycles
 * into out_res[i * MS_MCA_RES...] and with fix its recurrences into out_rec[2i..2i+1] too (0
 * for an empty text). */
static int mca_costs(const char *const *asm_text, size_t n, const char *cpu, double *out_cycles, double *out_rthru,
                     float *out_res, const ms_latency_fix *fix, double *out_rec, char *err, size_t errlen)
{
    size_t regions = 0;
    for (size_t i = 0; i < n; i++) {
        out_cycles[i] = out_rthru[i] = 0;
        for (int r = 0; r < MS_MCA_RES; r++) out_res[i * MS_MCA_RES + r] = 0;
        regions += asm_text[i] && *asm_text[i];
    }
    if (!regions) return 0;
    size_t nparts = mca_parts(regions);
    mca_part *parts = calloc(nparts, sizeof *parts);
    double *got = malloc(regions * sizeof *got), *gotr = malloc(regions * sizeof *gotr);
    float *gotres = malloc(regions * MS_MCA_RES * sizeof *gotres);
    double *gotrec = malloc(2 * regions * sizeof *gotrec);
    if (!parts || !got || !gotr || !gotres || !gotrec) {
        free(gotrec);
        free(parts);
        free(got);
        free(gotr);
        free(gotres);
        return ms_errorf(err, errlen, "out of memory");
    }
    char mcpu[128], iters[64];
    snprintf(mcpu, sizeof mcpu, "-mcpu=%s", cpu);
    snprintf(iters, sizeof iters, "-iterations=%d", MCA_ITERATIONS);
    char *argv[] = { MS_LLVM_MCA,
                     "-mtriple=x86_64-unknown-linux-gnu",
                     mcpu,
                     iters,
                     "-all-views=false",
                     "-summary-view",
                     "-resource-pressure",
                     NULL };
    /* with fix, each part's regions also go to memspy-mcdeps: each instruction's registers and
     * latencies, for the recurrences (blockchain.h); without it, no correction */
    const char *deps_tool = fix && fix->active ? ms_tool_mcdeps_path() : NULL;
    char *dargv[] = { (char *)deps_tool, mcpu, NULL, NULL };
    int result = 0;
    /* each part's input (its regions, in order), then every part started, then waited for */
    size_t i = 0;
    for (size_t p = 0; p < nparts; p++) {
        mca_part *m = &parts[p];
        m->first = regions * p / nparts;
        m->n = regions * (p + 1) / nparts - m->first;
        m->pid = m->dpid = -1;
        ms_strbuf in = MS_STRBUF_INIT;
        for (size_t r = 0; r < m->n; i++)
            if (asm_text[i] && *asm_text[i]) {
                ms_strbuf_addf(&in, "# LLVM-MCA-BEGIN b%zu\n%s\n# LLVM-MCA-END\n", i, asm_text[i]);
                r++;
            }
        if (ms_tool_scratch(m->inp, sizeof m->inp, "mca-in") < 0 ||
            ms_tool_scratch(m->out, sizeof m->out, "mca-out") < 0 ||
            ms_tool_scratch(m->er, sizeof m->er, "mca-err") < 0 ||
            (deps_tool && ms_tool_scratch(m->dout, sizeof m->dout, "mcdeps-out") < 0)) {
            if (!result) result = ms_errorf(err, errlen, "cannot create a scratch file: %s", strerror(errno));
        } else if (!in.oom) {
            FILE *f = fopen(m->inp, "w");
            m->wrote = f && fwrite(in.s, 1, in.len, f) == in.len;
            if (f && fclose(f) != 0) m->wrote = 0;
        }
        if (in.oom && !result) result = ms_errorf(err, errlen, "out of memory");
        ms_strbuf_free(&in);
    }
    for (size_t p = 0; result == 0 && p < nparts; p++)
        if (parts[p].wrote) {
            parts[p].pid = ms_tool_spawn(argv, parts[p].inp, parts[p].out, parts[p].er);
            dargv[2] = parts[p].inp;
            if (deps_tool) parts[p].dpid = ms_tool_spawn(dargv, NULL, parts[p].dout, NULL);
        }
    for (size_t p = 0; p < nparts; p++) {
        mca_part *m = &parts[p];
        int rc = m->pid >= 0 ? ms_tool_wait(m->pid) : -1;
        char *text = NULL, *etext = NULL, *dtext = NULL;
        if (m->dpid >= 0 && ms_tool_wait(m->dpid) == 0) ms_read_file(m->dout, 0, &dtext, NULL);
        if (m->dout[0]) unlink(m->dout);
        if (m->inp[0]) {
            ms_read_file(m->out, 0, &text, NULL);
            ms_read_file(m->er, 0, &etext, NULL);
            unlink(m->inp);
            unlink(m->out);
            unlink(m->er);
        }
        if (result) { /* an earlier part's error stands; this one's files are gone */
        } else if (!m->wrote) {
            result = ms_errorf(err, errlen, "cannot write llvm-mca's input");
        } else if (rc == 127 || rc < 0) {
            result = ms_errorf(err, errlen, "%s not found: install Debian's llvm-14 package", MS_LLVM_MCA);
        } else if (rc != 0 || !text) {
            result = ms_errorf(err, errlen, "llvm-mca failed: %.300s", etext ? etext : "");
        } else {
            result = parse_mca(text, got + m->first, gotr + m->first, gotres + m->first * MS_MCA_RES, fix, dtext,
                               gotrec + 2 * m->first, m->n, err, errlen);
        }
        free(dtext);
        free(text);
        free(etext);
    }
    for (size_t k = 0, r = 0; result == 0 && k < n; k++)
        if (asm_text[k] && *asm_text[k]) {
            memcpy(out_res + k * MS_MCA_RES, gotres + r * MS_MCA_RES, MS_MCA_RES * sizeof *out_res);
            out_rthru[k] = gotr[r];
            if (fix) out_rec[2 * k] = gotrec[2 * r], out_rec[2 * k + 1] = gotrec[2 * r + 1];
            out_cycles[k] = got[r++];
        }
    free(gotrec);
    free(parts);
    free(got);
    free(gotr);
    free(gotres);
    return result;
}

int ms_mca_cycles(const char *const *asm_text, size_t n, const char *cpu, double *out_cycles, char *err, size_t errlen)
{
    double *rthru = malloc((n ? n : 1) * sizeof *rthru);
    float *res = malloc((n ? n : 1) * MS_MCA_RES * sizeof *res);
    int rc = rthru && res ? mca_costs(asm_text, n, cpu, out_cycles, rthru, res, NULL, NULL, err, errlen)
                          : ms_errorf(err, errlen, "out of memory");
    free(rthru);
    free(res);
    return rc;
}

int ms_mca_cycles_cached(const char *const *asm_text, size_t n, const char *cpu, double *out_cycles, char *err,
                         size_t errlen)
{
    /* the key: the texts (CRC-32 and length), the CPU model and the llvm-mca (mca_cache_file) */
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = asm_text[i] ? asm_text[i] : "";
        crc = crc32(crc, (const Bytef *)t, (uInt)strlen(t) + 1);
        len += strlen(t) + 1;
    }
    char name[256], file[4400], *text = NULL;
    snprintf(name, sizeof name, "mca-%s-%08lx-%zu-%zu", cpu, (unsigned long)crc, len, n);
    int cacheable = mca_cache_file(file, sizeof file, name, 0) == 0;
    if (cacheable && ms_read_file(file, 0, &text, NULL) == MS_READ_OK) {
        size_t got = 0;
        char *p = text, *end;
        for (; got < n; got++, p = end) {
            out_cycles[got] = strtod(p, &end);
            if (end == p) break;
        }
        free(text);
        if (got == n) return 0;
    }
    if (ms_mca_cycles(asm_text, n, cpu, out_cycles, err, errlen) < 0) return -1;
    ms_strbuf sb = MS_STRBUF_INIT;
    for (size_t i = 0; i < n; i++) ms_strbuf_addf(&sb, "%.17g\n", out_cycles[i]);
    if (!sb.oom && mca_cache_file(file, sizeof file, name, 1) == 0) cache_write(file, sb.s);
    ms_strbuf_free(&sb);
    return 0;
}

/* ---- disassembly ---- */

typedef struct {
    uint64_t addr;
    char *text;     /* instruction, comments and symbolic targets removed */
    int func_start; /* first instruction of a symbol */
    int plain_ref;  /* reads the versioning flag __memspy_plain (the dispatch at entry) */
    int desc_ref;   /* reads a plugin block descriptor (the counting copy's block counters) */
} insn;

/* Parse llvm-objdump -d output ("    1170:      \ttestl\t%edi, %edi") into insns. */
static int parse_objdump(char *text, insn **out, size_t *nout)
{
    size_t cap = 0, n = 0;
    insn *v = NULL;
    int next_is_start = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strchr(line, '>') && line[strlen(line) - 1] == ':' && line[0] != ' ') {
            next_is_start = 1; /* "0000000000001170 <f>:" */
            continue;
        }
        char *end;
        while (*line == ' ') line++;
        uint64_t a = strtoull(line, &end, 16);
        if (end == line || *end != ':') continue;
        char *ins = end + 1;
        while (isspace((unsigned char)*ins)) ins++;
        if (!*ins) continue;
        int plain_ref = strstr(ins, "<__memspy_plain>") != NULL;
        int desc_ref = strstr(ins, "<__memspy_blocks.") != NULL; /* a block descriptor's field */
        char *cut = strchr(ins, '#');
        if (cut) *cut = '\0';
        cut = strchr(ins, '<');
        if (cut) *cut = '\0';
        for (char *t = ins; *t; t++)
            if (*t == '\t') *t = ' ';
        size_t len = strlen(ins);
        while (len && isspace((unsigned char)ins[len - 1])) ins[--len] = '\0';
        if (ms_grow((void **)&v, &cap, n + 1, sizeof *v) < 0) {
            free(v);
            return -1;
        }
        v[n].addr = a;
        v[n].text = ins;
        v[n].func_start = next_is_start;
        v[n].plain_ref = plain_ref;
        v[n].desc_ref = desc_ref;
        next_is_start = 0;
        n++;
    }
    *out = v;
    *nout = n;
    return 0;
}

/* Whether the instruction never falls through: an unconditional jump, a return, a trap. */
static int ends_flow(const char *t) { return !strncmp(t, "jmp", 3) || !strncmp(t, "ret", 3) || !strncmp(t, "ud2", 3); }

/* Whether the instruction at addr is a conditional jump backwards (a loop's latch: what
 * follows it runs once, when the loop ends). */
static int branches_back(const char *t, uint64_t addr)
{
    unsigned long long target;
    if (t[0] != 'j' || !strncmp(t, "jmp", 3)) return 0;
    const char *op = strchr(t, ' ');
    return op && sscanf(op, " %llx", &target) == 1 && target <= addr;
}

/* Instructions llvm-mca cannot or should not model: padding and undecodable bytes. */
static int skip_insn(const char *t)
{
    return !strncmp(t, "nop", 3) || strstr(t, "(bad)") || !strncmp(t, "data16", 6) || !strncmp(t, "int3", 4) ||
           !strncmp(t, "ud2", 3) || !strncmp(t, "hlt", 3);
}

/* The cold path of each reservation found in ins[k, end) (drop[] relative to k): from its
 * check's branch target (the call of __memspy_flush, laid out after the block's code when the
 * compiler puts it there) to the jump back. Left in, its reloads would cut the block's
 * dependence chains in llvm-mca's view. */
static void drop_flush_paths(const insn *ins, size_t k, size_t end, char *drop)
{
    for (size_t j = k; j < end; j++) {
        const char *t = ins[j].text;
        size_t op = !strncmp(t, "ja ", 3) ? 3 : !strncmp(t, "jae ", 4) ? 4 : 0;
        unsigned long long target;
        if (!drop[j - k] || !op || sscanf(t + op, "%llx", &target) != 1) continue;
        for (size_t c = k; c < end; c++) {
            if (ins[c].addr != target) continue;
            for (size_t d = c; d < end; d++) {
                drop[d - k] = 1;
                if (!strncmp(ins[d].text, "jmp ", 4)) break;
            }
            break;
        }
    }
}

/* The target of a jump t ("jne 1170"), 0 if t is not a direct jump. */
static uint64_t jump_target(const char *t)
{
    unsigned long long target;
    const char *op = strchr(t, ' ');
    return t[0] == 'j' && op && sscanf(op, " %llx", &target) == 1 ? (uint64_t)target : 0;
}

/* The target of a direct call t ("callq 1170"), 0 if t is not one. */
static uint64_t call_target(const char *t)
{
    unsigned long long target;
    const char *op = strchr(t, ' ');
    return !strncmp(t, "call", 4) && op && sscanf(op, " %llx", &target) == 1 ? (uint64_t)target : 0;
}

/* A versioned function's dispatch (docs/plugin.md, "Versioning"): the instructions from its
 * symbol (ins[f]) up to its first conditional jump after the load of __memspy_plain, which
 * every call runs whatever the copy (the prologue's pushes, the flag's load and test) and no
 * block holds: *pro_end is the index after that jump, *plain and *count the copies' entries
 * (0 when not found). Returns 0 when the function has no dispatch near its start. */
static int find_dispatch(const insn *ins, size_t nins, size_t f, size_t *pro_end, uint64_t *plain, uint64_t *count)
{
    size_t d = f;
    *plain = *count = 0;
    while (d < nins && d < f + 40 && (d == f || !ins[d].func_start) && !ins[d].plain_ref) d++;
    if (d >= nins || d >= f + 40 || !ins[d].plain_ref) return 0;
    *pro_end = 0;
    for (size_t j = d + 1; j < nins && j < d + 8 && !ins[j].func_start; j++) {
        uint64_t t = ins[j].text[0] == 'j' && strncmp(ins[j].text, "jmp", 3) ? jump_target(ins[j].text) : 0;
        if (!t) continue;
        if (!*pro_end) *pro_end = j + 1;
        if (!strncmp(ins[j - 1].text, "cmpl $1,", 8)) *plain = t;
        if (!strncmp(ins[j - 1].text, "cmpl $2,", 8)) *count = t;
    }
    return *pro_end != 0;
}

/* Whether the block at ins[k] is its copy's entry: the first block at or after a copy's entry
 * address (prev: the previous block's address), reached from it by straight-line code. *gap
 * is where the code the block holds starts: the plain copy's entry (code the timing run
 * executes), or k for the counting copy (whose code before its first block is the count's
 * setup, instrumentation). */
static int entry_block(const insn *ins, size_t k, uint64_t prev, uint64_t plain, uint64_t count, size_t *gap)
{
    uint64_t a = ins[k].addr;
    uint64_t e = plain && plain <= a && plain > prev ? plain : count && count <= a && count > prev ? count : 0;
    if (!e) return 0;
    size_t t = k;
    while (t > 0 && ins[t].addr > e && !ins[t].func_start) t--;
    if (ins[t].addr != e) return 0;
    for (size_t j = t; j < k; j++)
        if (ends_flow(ins[j].text)) return 0;
    *gap = e == plain ? t : k;
    return 1;
}

/* Append ins[j] to sb as llvm-mca is to see it (the stack engine's pushes and pops, unfolded
 * floating-point loads), nothing for padding. */
static void emit_insn(ms_strbuf *sb, const char *t, int scratch_free, int *pushed, int *popped)
{
    if (skip_insn(t) || ms_asm_stack_engine(sb, t, pushed, popped) || ms_asm_unfold_fp(sb, t, scratch_free)) return;
    ms_strbuf_adds(sb, t);
    ms_strbuf_adds(sb, "\n");
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- cache ---- */

static int cache_key(const char *path, char *key, size_t keylen)
{
    char *data = NULL;
    size_t len = 0;
    if (ms_read_file(path, 0, &data, &len) != MS_READ_OK) return -1;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < len;) {
        uInt chunk = (uInt)(len - off > (1u << 30) ? (1u << 30) : len - off);
        crc = crc32(crc, (const Bytef *)data + off, chunk);
        off += chunk;
    }
    free(data);
    snprintf(key, keylen, "%08lx-%zu", (unsigned long)crc, len);
    return 0;
}

/* The cache of a binary's costs for cpu, with the core's latencies (tag, "" for none). */
static int cache_path(char *out, size_t len, const char *key, const char *cpu, const char *tag, int make_dirs)
{
    char dir[4096];
    if (cache_dir(dir, sizeof dir, make_dirs) < 0) return -1;
    int w = snprintf(out, len, "%s/blockcost-" BLOCKCOST_METHOD "-%s-%s%s%s.txt", dir, key, cpu, *tag ? "-" : "", tag);
    return w > 0 && (size_t)w < len ? 0 : -1;
}

/* A binary's cached costs, sorted by offset: lines "offset cycles function callee r0 ... r15"
 * (the block's function's address, the address its first direct call goes to or 0, and its
 * resources' cycles, blockgroup.h). */
typedef struct {
    uint64_t *offs, *func, *callee;
    double *cyc;
    float *res; /* n * MS_MCA_RES */
    size_t n;
} cached_costs;

static void cached_free(cached_costs *c)
{
    free(c->offs);
    free(c->func);
    free(c->callee);
    free(c->cyc);
    free(c->res);
    memset(c, 0, sizeof *c);
}

/* Read file into *c (empty when there is none). The lines are written in offset order. */
static void cache_load(const char *file, cached_costs *c)
{
    char *text = NULL;
    memset(c, 0, sizeof *c);
    if (ms_read_file(file, 0, &text, NULL) != MS_READ_OK) return;
    size_t lines = 1;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    c->offs = malloc(lines * sizeof *c->offs);
    c->func = malloc(lines * sizeof *c->func);
    c->cyc = malloc(lines * sizeof *c->cyc);
    c->callee = malloc(lines * sizeof *c->callee);
    c->res = calloc(lines * MS_MCA_RES, sizeof *c->res);
    size_t n = 0;
    int sorted = 1;
    int ok = c->offs && c->func && c->cyc && c->callee && c->res;
    for (char *line = strtok(text, "\n"); ok && line; line = strtok(NULL, "\n")) {
        char *end;
        c->offs[n] = strtoull(line, &end, 16);
        c->cyc[n] = strtod(end, &end);
        c->func[n] = strtoull(end, &end, 16);
        c->callee[n] = strtoull(end, &end, 16);
        for (int r = 0; r < MS_MCA_RES; r++) c->res[n * MS_MCA_RES + r] = strtof(end, &end);
        sorted &= !n || c->offs[n - 1] < c->offs[n];
        n++;
    }
    free(text);
    c->n = ok && sorted ? n : 0; /* unsorted: not ours, ignored */
}

/* Write the union of c and the new costs (u's offs, cyc, func, callee, res of the nu
 * blocks where is_new) to file in offset order, whole or not at all. */
static void cache_store(const char *file, const cached_costs *c, const cached_costs *u, const char *is_new, size_t nu)
{
    char tmp[4400];
    snprintf(tmp, sizeof tmp, "%s.%d", file, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return;
    for (size_t i = 0, k = 0; i < c->n || k < nu;) {
        while (k < nu && !is_new[k]) k++;
        int old = i < c->n && (k >= nu || c->offs[i] < u->offs[k]);
        if (!old && k >= nu) break;
        const cached_costs *from = old ? c : u;
        size_t at = old ? i : k;
        fprintf(f, "%llx %.6f %llx %llx", (unsigned long long)from->offs[at], from->cyc[at],
                (unsigned long long)from->func[at], (unsigned long long)from->callee[at]);
        const float *v = from->res + at * MS_MCA_RES;
        for (int r = 0; r < MS_MCA_RES; r++) fprintf(f, " %.6g", (double)v[r]);
        fputc('\n', f);
        if (old)
            i++;
        else
            k++;
    }
    if (fclose(f) == 0)
        rename(tmp, file);
    else
        unlink(tmp);
}

int ms_block_costs(const char *path, uint64_t bias, const uint64_t *pcs, const unsigned char *in_loop,
                   const uint64_t *counts, size_t n, const char *cpu, double *out_cycles, char *err, size_t errlen)
{
    for (size_t i = 0; i < n; i++) out_cycles[i] = 0;
    if (!n) return 0;
    uint64_t *offs = malloc(n * sizeof *offs); /* sorted, distinct file addresses */
    size_t *order = malloc(n * sizeof *order);
    double *cyc = calloc(n, sizeof *cyc);
    double *mcyc = calloc(n, sizeof *mcyc), *mrthru = calloc(n, sizeof *mrthru);
    double *mrec = calloc(2 * n, sizeof *mrec);         /* its recurrence: the model's, the core's (blockchain.h) */
    unsigned char *inl = calloc(n, 1);                  /* per distinct block: in a loop of its function */
    uint64_t *bfunc = calloc(n, sizeof *bfunc);         /* its function's address */
    uint64_t *bcallee = calloc(n, sizeof *bcallee);     /* where its first direct call goes, 0 none */
    double *bcount = calloc(n, sizeof *bcount);         /* its executions */
    float *bres = calloc(n * MS_MCA_RES, sizeof *bres); /* its resources' cycles */
    float *mres = calloc(n * MS_MCA_RES, sizeof *mres);
    char *missing = calloc(n, 1);
    const char **texts = calloc(n, sizeof *texts);
    char **owned = calloc(n, sizeof *owned);
    char *dis = NULL;
    insn *ins = NULL;
    size_t nins = 0, nu = 0;
    cached_costs cc = { NULL, NULL, NULL, NULL, NULL, 0 };
    int rc = -1;
    if (!offs || !order || !cyc || !mcyc || !mrthru || !mrec || !inl || !bfunc || !bcallee || !bcount || !bres ||
        !mres || !missing || !texts || !owned) {
        ms_errorf(err, errlen, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n; i++) offs[i] = pcs[i] - bias;
    qsort(offs, n, sizeof *offs, cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (!nu || offs[nu - 1] != offs[i]) offs[nu++] = offs[i];
    for (size_t i = 0; i < n; i++) {
        uint64_t off = pcs[i] - bias, *at = bsearch(&off, offs, nu, sizeof *offs, cmp_u64);
        if (at) inl[at - offs] |= !in_loop || in_loop[i];
        if (at) bcount[at - offs] += counts ? (double)counts[i] : 0;
    }
    char key[64], cfile[4300];
    ms_latency_fix fix; /* the core's latencies where the model's are off (corecheck.h) */
    ms_core_latency_fix(cpu, &fix);
    int cacheable = cache_key(path, key, sizeof key) == 0 && cache_path(cfile, sizeof cfile, key, cpu, fix.tag, 0) == 0;
    /* incremental: the blocks the cache holds are read from it, llvm-mca costs the others, and
     * the cache keeps both (another run of the same build costs only its new blocks) */
    if (cacheable) cache_load(cfile, &cc);
    size_t nmiss = 0;
    for (size_t b = 0; b < nu; b++) {
        uint64_t *hit = cc.n ? bsearch(&offs[b], cc.offs, cc.n, sizeof *cc.offs, cmp_u64) : NULL;
        missing[b] = !hit;
        nmiss += !hit;
        if (hit) {
            cyc[b] = cc.cyc[hit - cc.offs];
            bfunc[b] = cc.func[hit - cc.offs];
            bcallee[b] = cc.callee[hit - cc.offs];
            memcpy(bres + b * MS_MCA_RES, cc.res + (hit - cc.offs) * MS_MCA_RES, MS_MCA_RES * sizeof *bres);
        }
    }
    if (nmiss) {
        char out[512], er[512];
        if (ms_tool_scratch(out, sizeof out, "objdump") < 0 || ms_tool_scratch(er, sizeof er, "objdump-err") < 0) {
            ms_errorf(err, errlen, "cannot create a scratch file: %s", strerror(errno));
            goto out;
        }
        char *argv[] = { MS_LLVM_OBJDUMP, "-d", "--no-show-raw-insn", (char *)path, NULL };
        int st = ms_tool_run(argv, NULL, out, er);
        ms_read_file(out, 0, &dis, NULL);
        unlink(out);
        unlink(er);
        if (st != 0 || !dis) {
            ms_errorf(err, errlen,
                      st == 127 ? "%s not found: install Debian's llvm-14 package"
                                : "%s could not disassemble the program",
                      MS_LLVM_OBJDUMP);
            goto out;
        }
        if (parse_objdump(dis, &ins, &nins) < 0) {
            ms_errorf(err, errlen, "out of memory");
            goto out;
        }
        /* each block: its instructions from its pc to the next block's pc or the function's end */
        size_t k = 0, f = 0, fk = 0, pro_end = 0;
        uint64_t plain = 0, count = 0;
        int dispatch = 0, pair_a = -1, pair_b = -1; /* the function's buffer pair (blockasm.h) */
        for (size_t b = 0; b < nu; b++) {
            for (; k < nins && ins[k].addr < offs[b]; k++)
                if (ins[k].func_start) f = k;
            if (k < nins && ins[k].func_start) f = k;
            if (fk != f + 1) { /* a new function: its dispatch, if versioned */
                fk = f + 1;
                dispatch = find_dispatch(ins, nins, f, &pro_end, &plain, &count);
                pair_a = pair_b = -1;
            }
            if (!missing[b]) continue; /* from the cache */
            bfunc[b] = ins[f].addr;
            if (k >= nins || ins[k].addr != offs[b]) continue; /* not an instruction start */
            uint64_t stop = b + 1 < nu ? offs[b + 1] : UINT64_MAX;
            ms_strbuf sb = MS_STRBUF_INIT;
            int scratch_free = 1; /* the block leaves %xmm15/%ymm15 alone */
            size_t end = k;
            /* ... or its first unconditional jump or return: what follows it is not reached from
             * the block (another version's code, cold paths laid out after the loop) */
            while (end < nins && ins[end].addr < stop && (end == k || !ins[end].func_start))
                if (ends_flow(ins[end++].text) || branches_back(ins[end - 1].text, ins[end - 1].addr)) break;
            char **txt = malloc((end - k + 1) * sizeof *txt), *drop = calloc(end - k + 1, 1);
            if (!txt || !drop) {
                free(txt);
                free(drop);
                ms_errorf(err, errlen, "out of memory");
                goto out;
            }
            char *desc = calloc(end - k + 1, 1);
            for (size_t j = k; desc && j < end; j++) {
                txt[j - k] = ins[j].text;
                desc[j - k] = (char)ins[j].desc_ref;
                if (strstr(ins[j].text, "mm15")) scratch_free = 0;
            }
            if (!desc) {
                free(txt);
                free(drop);
                ms_errorf(err, errlen, "out of memory");
                goto out;
            }
            ms_asm_mark_instrumentation(txt, end - k, drop);
            ms_asm_drop_counters(txt, end - k, desc, drop);
            free(desc);
            drop_flush_paths(ins, k, end, drop);
            ms_asm_learn_buffer(txt, end - k, drop, &pair_a, &pair_b);
            ms_asm_drop_count_moves(txt, end - k, drop, pair_a, pair_b);
            uint64_t back = end > k ? jump_target(ins[end - 1].text) : 0;
            int self_loop = back >= offs[b] && back <= ins[end - 1].addr;
            ms_asm_drop_feeders(txt, end - k, drop, self_loop);
            if (self_loop) ms_asm_drop_trip_count(txt, end - k, drop);
            int pushed = 0, popped = 0;
            size_t gap;
            /* the entry block of a versioned function's copy: with the prologue and dispatch
             * every call runs, which no block holds (not a loop's header: once per call, not
             * once per iteration) */
            if (dispatch && !inl[b] && entry_block(ins, k, b ? offs[b - 1] : 0, plain, count, &gap)) {
                for (size_t j = f; j < pro_end; j++) emit_insn(&sb, ins[j].text, scratch_free, &pushed, &popped);
                for (size_t j = gap; j < k; j++) emit_insn(&sb, ins[j].text, scratch_free, &pushed, &popped);
            }
            for (size_t j = k; j < end; j++)
                if (!drop[j - k]) {
                    if (!bcallee[b]) bcallee[b] = call_target(ins[j].text);
                    emit_insn(&sb, ins[j].text, scratch_free, &pushed, &popped);
                }
            free(txt);
            free(drop);
            if (sb.oom) {
                ms_strbuf_free(&sb);
                ms_errorf(err, errlen, "out of memory");
                goto out;
            }
            owned[b] = ms_strbuf_take(&sb);
            if (getenv("MEMSPY_BLOCKCOST_DUMP")) /* debugging: what llvm-mca is given */
                fprintf(stderr, "memspy: block at %#llx:\n%s", (unsigned long long)offs[b], owned[b]);
            texts[b] = owned[b];
        }
        if (mca_costs(texts, nu, cpu, mcyc, mrthru, mres, fix.active ? &fix : NULL, mrec, err, errlen) < 0) goto out;
        /* a block in a loop: the steady state of its iterations (a chain through it from one
         * iteration to the next is the loop's); a block outside loops runs once per call, among
         * its caller's code, which the core overlaps with it: its throughput bound, without the
         * chains llvm-mca's iterations of it alone would make (docs/mtool.md) */
        for (size_t b = 0; b < nu; b++)
            if (missing[b]) { /* as the cache will give them back: a run and its resim agree */
                char num[64];
                /* in a loop, with the core's latencies on its chains where the model's are off */
                double loop = mrec[2 * b] != mrec[2 * b + 1]
                                  ? ms_block_fix_cycles(mcyc[b], mrthru[b], mrec[2 * b], mrec[2 * b + 1])
                                  : mcyc[b];
                snprintf(num, sizeof num, "%.6f", inl[b] ? loop : mrthru[b]);
                cyc[b] = strtod(num, NULL);
                for (int r = 0; r < MS_MCA_RES; r++) {
                    snprintf(num, sizeof num, "%.6g", (double)mres[b * MS_MCA_RES + r]);
                    bres[b * MS_MCA_RES + r] = strtof(num, NULL);
                }
            }
        cached_costs now = { offs, bfunc, bcallee, cyc, bres, nu };
        if (cacheable && cache_path(cfile, sizeof cfile, key, cpu, fix.tag, 1) == 0)
            cache_store(cfile, &cc, &now, missing, nu);
    }
    /* the code outside loops, function by function, costed together, then a loop's call of a
     * small leaf function with the callee's body (blockgroup.h) */
    if (counts) {
        ms_block_group_scale(nu, bfunc, inl, bcount, bres, cyc);
        ms_block_call_overlap(nu, bfunc, inl, bcallee, bcount, bres, cyc);
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t off = pcs[i] - bias;
        uint64_t *hit = bsearch(&off, offs, nu, sizeof *offs, cmp_u64);
        out_cycles[i] = hit ? cyc[hit - offs] : 0;
    }
    rc = 0;
out:
    if (owned)
        for (size_t i = 0; i < n; i++) free(owned[i]);
    free(owned);
    free((void *)texts);
    free(ins);
    free(dis);
    free(cyc);
    free(mcyc);
    free(mrthru);
    free(mrec);
    free(inl);
    free(missing);
    cached_free(&cc);
    free(bfunc);
    free(bcallee);
    free(bcount);
    free(bres);
    free(mres);
    free(order);
    free(offs);
    return rc;
}
