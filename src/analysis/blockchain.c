/* A loop block's recurrence with the core's latencies; see blockchain.h. Each instruction's
 * register units read and written, the writes' latencies and the reads' advances come from
 * memspy-mcdeps (LLVM's scheduling model, as llvm-mca builds the instruction); a unit (RAX is
 * AL, AH and HAX; XMM0 to ZMM0 one unit; EFLAGS) makes a partial write a partial dependence,
 * as in llvm-mca. Memory is not a dependence (llvm-mca's default: no aliasing). */
#include "blockchain.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../util/util.h"
#include "tools.h"

enum { MAXU = 256, MAXS = 64, MAXOPS = 64 }; /* units in a block, carried units, operands */
#define NEG_INF (-1e300)

static int starts(const char *m, const char *p) { return !strncmp(m, p, strlen(p)); }

/* After prefix p in m, one of the floating-point type suffixes SS, SD, PS, PD (or SH, PH). */
static int fp_op(const char *m, const char *p)
{
    if (!starts(m, p)) return 0;
    const char *t = m + strlen(p);
    return (t[0] == 'S' || t[0] == 'P') && (t[1] == 'S' || t[1] == 'D' || t[1] == 'H');
}

int ms_insn_class(const char *opcode, int may_load)
{
    const char *b = opcode[0] == 'V' ? opcode + 1 : opcode; /* the AVX form is the same class */
    if (starts(opcode, "VFMADD") || starts(opcode, "VFMSUB") || starts(opcode, "VFNMADD") || starts(opcode, "VFNMSUB"))
        return MS_LAT_FMA;
    if (fp_op(b, "ADD") || fp_op(b, "SUB")) return MS_LAT_FADD;
    if (fp_op(b, "MUL")) return MS_LAT_FMUL;
    if (fp_op(b, "DIV")) return MS_LAT_FDIV;
    if ((starts(b, "IMUL") || starts(b, "MUL")) && b[b[0] == 'I' ? 4 : 3] >= '0' && b[b[0] == 'I' ? 4 : 3] <= '9')
        return MS_LAT_IMUL; /* IMUL64rr, IMUL32rri, MUL64r: integer */
    if (starts(b, "CVT")) { /* int <-> fp: CVTSI642SDrr, CVTTSD2SI64rr, CVTDQ2PDrr, CVTTPD2DQrr */
        const char *c = b[3] == 'T' ? b + 4 : b + 3;
        if (starts(c, "SI") || starts(c, "USI") || starts(c, "DQ2") || strstr(c, "2SI") || strstr(c, "2USI") ||
            strstr(c, "2DQ"))
            return MS_LAT_CVT;
    }
    if (starts(b, "SHUFP") || starts(b, "UNPCK") || starts(b, "PUNPCK") || starts(b, "PSHUFD") ||
        starts(b, "MOVDDUP") || starts(b, "MOVHLPS") || starts(b, "MOVLHPS"))
        return MS_LAT_SHUF; /* in-lane shuffles, as shufpd */
    if (may_load && starts(b, "MOV") && strstr(b, "rm")) return MS_LAT_LOAD;
    return -1;
}

typedef struct {
    int cls;
    int nw, nr;
    short wu[MAXOPS], ru[MAXOPS];  /* units written, read */
    double wl[MAXOPS], ra[MAXOPS]; /* each write's latency, each read's advance */
} insn;

/* The index of the unit named [s, s + n) in names (added when new); -1 if there are too many. */
static int unit_of(const char *s, size_t n, char (*names)[16], int *nu)
{
    for (int u = 0; u < *nu; u++)
        if (strlen(names[u]) == n && !strncmp(names[u], s, n)) return u;
    if (*nu == MAXU || n >= 16) return -1;
    memcpy(names[*nu], s, n);
    names[*nu][n] = '\0';
    return (*nu)++;
}

/* One "i LINE OPCODE LATENCY FLAGS [w UNIT CYCLES | r UNIT ADVANCE]..." line into *d; -1 if
 * it cannot be read. */
static int parse_line(const char *s, const char *e, insn *d, char (*names)[16], int *nu)
{
    char tok[4][64];
    int nt = 0;
    const char *p = s + 1;
    memset(d, 0, sizeof *d);
    int may_load = 0;
    while (p < e) {
        while (p < e && *p == ' ') p++;
        if (p >= e) break;
        const char *t = p;
        while (p < e && *p != ' ') p++;
        size_t n = (size_t)(p - t);
        if (nt < 4) { /* line, opcode, latency, flags */
            snprintf(tok[nt], sizeof tok[nt], "%.*s", (int)(n < 63 ? n : 63), t);
            if (++nt == 4) {
                may_load = tok[3][0] == 'L';
                d->cls = ms_insn_class(tok[1], may_load);
            }
            continue;
        }
        if (n != 1 || (*t != 'w' && *t != 'r')) return -1;
        char kind = *t;
        while (p < e && *p == ' ') p++;
        const char *un = p;
        while (p < e && *p != ' ') p++;
        int u = unit_of(un, (size_t)(p - un), names, nu);
        char *end;
        double v = strtod(p, &end);
        if (u < 0 || end == p || end > e) return -1;
        p = end;
        if (kind == 'w' && d->nw < MAXOPS) d->wu[d->nw] = (short)u, d->wl[d->nw++] = v;
        if (kind == 'r' && d->nr < MAXOPS) d->ru[d->nr] = (short)u, d->ra[d->nr++] = v;
    }
    return nt == 4 ? 0 : -1;
}

/* The latency from a value of class from to an instruction of class to: the bypass between
 * the adder and the multiplier. */
static double bypass(int from, int to, double cycles)
{
    int fp_from = from == MS_LAT_FADD || from == MS_LAT_FMUL, fp_to = to == MS_LAT_FADD || to == MS_LAT_FMUL;
    return fp_from && fp_to && from != to ? cycles : 0;
}

/* The maximum cycle mean of the max-plus matrix l (n x n, NEG_INF: no edge). */
static double max_cycle_mean(const double *l, size_t n)
{
    double *pw = malloc(n * n * sizeof *pw), *nx = malloc(n * n * sizeof *nx), best = 0;
    if (!pw || !nx) {
        free(pw);
        free(nx);
        return -1;
    }
    memcpy(pw, l, n * n * sizeof *pw);
    for (size_t k = 1; k <= n; k++) {
        for (size_t i = 0; i < n; i++)
            if (pw[i * n + i] > NEG_INF / 2 && pw[i * n + i] / (double)k > best) best = pw[i * n + i] / (double)k;
        if (k == n) break;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                double v = NEG_INF;
                for (size_t m = 0; m < n; m++)
                    if (pw[i * n + m] > NEG_INF / 2 && l[m * n + j] > NEG_INF / 2 && pw[i * n + m] + l[m * n + j] > v)
                        v = pw[i * n + m] + l[m * n + j];
                nx[i * n + j] = v;
            }
        memcpy(pw, nx, n * n * sizeof *pw);
    }
    free(pw);
    free(nx);
    return best;
}

/* A write's latency with fix applied to its instruction's class (never under one cycle where
 * the model's is one or more); fix NULL: the model's. */
static double write_latency(const insn *d, double lat, const ms_latency_fix *fix)
{
    if (!fix || d->cls < 0) return lat;
    double c = lat + fix->delta[d->cls];
    return c < 1 && lat >= 1 ? 1 : c;
}

/* The recurrence of the block d[0..n) over nu units; fix NULL: the model's latencies and bypass. */
static double recurrence(const insn *d, size_t n, int nu, const ms_latency_fix *fix, double byp)
{
    int idx[MAXU], prod[MAXU];
    char seen[MAXU] = { 0 }, carried[MAXU] = { 0 };
    size_t ns = 0;
    for (int u = 0; u < nu; u++) idx[u] = -1, prod[u] = -1;
    for (size_t i = 0; i < n; i++) { /* carried: read before it is written, and written */
        for (int k = 0; k < d[i].nr; k++) carried[d[i].ru[k]] |= !seen[d[i].ru[k]];
        for (int k = 0; k < d[i].nw; k++) seen[d[i].wu[k]] = 1, prod[d[i].wu[k]] = d[i].cls;
    }
    for (int u = 0; u < nu; u++)
        if (carried[u] && seen[u]) {
            if (ns == MAXS) return -1;
            idx[u] = (int)ns++;
        }
    if (!ns) return 0;
    double(*val)[MAXS] = malloc(MAXU * sizeof *val); /* per unit, its longest path from each carried unit */
    if (!val) return -1;
    for (int u = 0; u < nu; u++)
        for (size_t s = 0; s < ns; s++) val[u][s] = idx[u] == (int)s ? 0 : NEG_INF;
    for (size_t i = 0; i < n; i++) {
        double start[MAXS];
        for (size_t s = 0; s < ns; s++) {
            start[s] = NEG_INF;
            for (int k = 0; k < d[i].nr; k++) {
                int q = d[i].ru[k];
                if (val[q][s] <= NEG_INF / 2) continue;
                double v = val[q][s] + bypass(prod[q], d[i].cls, byp) - d[i].ra[k];
                if (v > start[s]) start[s] = v;
            }
        }
        for (int k = 0; k < d[i].nw; k++) {
            int w = d[i].wu[k];
            double lat = write_latency(&d[i], d[i].wl[k], fix);
            for (size_t s = 0; s < ns; s++) val[w][s] = start[s] > NEG_INF / 2 ? start[s] + lat : NEG_INF;
            prod[w] = d[i].cls;
        }
    }
    double *l = malloc(ns * ns * sizeof *l), best = -1;
    for (int t = 0; l && t < nu; t++)
        if (idx[t] >= 0)
            for (size_t s = 0; s < ns; s++) l[s * ns + (size_t)idx[t]] = val[t][s];
    if (l) best = max_cycle_mean(l, ns);
    free(l);
    free(val);
    return best;
}

int ms_block_recurrence(const char *deps, size_t len, const ms_latency_fix *fix, double *model, double *core)
{
    *model = *core = 0;
    if (!deps) return -1;
    char names[MAXU][16];
    int nu = 0, rc = 0;
    size_t n = 0, cap = 0;
    insn *d = NULL;
    for (const char *s = deps, *end = deps + len; s < end && rc == 0;) {
        const char *e = memchr(s, '\n', (size_t)(end - s));
        if (!e) e = end;
        if (*s == 'x') rc = -1; /* an instruction LLVM could not build: no recurrence */
        if (*s == 'i' && rc == 0) {
            if (n == cap) {
                insn *nd = realloc(d, (cap = cap ? 2 * cap : 16) * sizeof *d);
                if (!nd) {
                    rc = -1;
                    break;
                }
                d = nd;
            }
            rc = parse_line(s, e, &d[n++], names, &nu);
        }
        s = e + 1;
    }
    if (rc == 0 && n) {
        *model = recurrence(d, n, nu, NULL, fix ? fix->bypass_model : 0);
        *core = recurrence(d, n, nu, fix, fix ? fix->bypass_core : 0);
        if (*model < 0 || *core < 0) rc = -1;
    }
    if (rc) *model = *core = 0;
    free(d);
    return rc;
}

int ms_block_deps(const char *asm_text, const char *cpu, char **out, char *err, size_t errlen)
{
    *out = NULL;
    const char *tool = ms_tool_mcdeps_path();
    if (!tool) return ms_errorf(err, errlen, "memspy-mcdeps not found (built with llvm-14-dev)");
    char in[512], res[512], mcpu[128];
    if (ms_tool_scratch(in, sizeof in, "mcdeps-in") < 0) return ms_errorf(err, errlen, "cannot create a scratch file");
    if (ms_tool_scratch(res, sizeof res, "mcdeps-out") < 0) {
        unlink(in);
        return ms_errorf(err, errlen, "cannot create a scratch file");
    }
    FILE *f = fopen(in, "w");
    int ok = f && fprintf(f, "# LLVM-MCA-BEGIN b0\n%s\n# LLVM-MCA-END\n", asm_text) > 0;
    if (f && fclose(f) != 0) ok = 0;
    snprintf(mcpu, sizeof mcpu, "-mcpu=%s", cpu);
    char *argv[] = { (char *)tool, mcpu, in, NULL };
    int rc = ok ? ms_tool_run(argv, NULL, res, NULL) : -1;
    if (rc == 0 && ms_read_file(res, 0, out, NULL) != MS_READ_OK) rc = -1;
    unlink(in);
    unlink(res);
    return rc == 0 ? 0 : ms_errorf(err, errlen, "memspy-mcdeps failed on the block (status %d)", rc);
}

double ms_block_fix_cycles(double mca, double rthru, double model, double core)
{
    double bm = model > rthru ? model : rthru, bc = core > rthru ? core : rthru;
    double c = bc + (mca - bm);
    return c > rthru ? c : rthru;
}
