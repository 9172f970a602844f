/* A loop block's recurrence with the core's latencies; see blockchain.h. The registers an
 * instruction reads and writes are taken from its AT&T text (the last operand the destination;
 * a two-operand ALU or SSE instruction reads it too, a move, lea, conversion or three-operand
 * AVX instruction does not; zero idioms read nothing; the integer ALU writes the flags, which
 * conditional moves, set, adc and sbb read). Memory is not a dependence (llvm-mca's
 * default: no aliasing). */
#include "blockchain.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NREGS = 49, FLAGS = 48, MAXS = 32 };
#define NEG_INF (-1e300)

/* The register named at s (after its '%'): its index (GPRs 0-15, vector registers 16-47),
 * *partial set for an 8- or 16-bit GPR; -1 for others (rip, segments, masks). */
static int reg_id(const char *s, size_t n, int *partial)
{
    static const char *const gpr[16][5] = {
        { "rax", "eax", "ax", "al", "ah" },  { "rcx", "ecx", "cx", "cl", "ch" },  { "rdx", "edx", "dx", "dl", "dh" },
        { "rbx", "ebx", "bx", "bl", "bh" },  { "rsp", "esp", "sp", "spl", NULL }, { "rbp", "ebp", "bp", "bpl", NULL },
        { "rsi", "esi", "si", "sil", NULL }, { "rdi", "edi", "di", "dil", NULL },
    };
    *partial = 0;
    for (int r = 0; r < 8; r++)
        for (int k = 0; k < 5; k++)
            if (gpr[r][k] && strlen(gpr[r][k]) == n && !strncmp(s, gpr[r][k], n)) {
                *partial = k >= 2;
                return r;
            }
    if (n >= 2 && s[0] == 'r' && s[1] >= '0' && s[1] <= '9') { /* r8..r15, r8d, r8w, r8b */
        char *end;
        long v = strtol(s + 1, &end, 10);
        size_t used = (size_t)(end - s);
        if (v < 8 || v > 15 || used + 1 < n) return -1;
        *partial = used < n && (s[used] == 'w' || s[used] == 'b');
        return (int)v;
    }
    if (n >= 4 && (s[0] == 'x' || s[0] == 'y' || s[0] == 'z') && s[1] == 'm' && s[2] == 'm') {
        long v = strtol(s + 3, NULL, 10);
        return v >= 0 && v < 32 ? 16 + (int)v : -1;
    }
    return -1;
}

/* The registers named in operand text [s, e) into *mask; the first one's index, or -1. */
static int regs_in(const char *s, const char *e, uint64_t *mask, int *partial)
{
    int first = -1, p = 0;
    *partial = 0;
    for (const char *q = s; q < e; q++) {
        if (*q != '%') continue;
        size_t n = 0;
        while (q + 1 + n < e && ((q[1 + n] >= 'a' && q[1 + n] <= 'z') || (q[1 + n] >= '0' && q[1 + n] <= '9'))) n++;
        int r = reg_id(q + 1, n, &p);
        if (r >= 0) {
            *mask |= (uint64_t)1 << r;
            if (first < 0) *partial = p;
            if (first < 0) first = r;
        }
        q += n;
    }
    return first;
}

static int starts(const char *m, const char *p) { return !strncmp(m, p, strlen(p)); }

static int in_list(const char *m, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(m, *list)) return 1;
    return 0;
}

/* The class whose latency the model check measures, or -1. */
static int insn_class(const char *m, int mem_src, int nops)
{
    static const char *const fadd[] = { "addsd", "addss", "addpd", "addps", "subsd", "subss", "subpd", "subps", NULL };
    static const char *const fmul[] = { "mulsd", "mulss", "mulpd", "mulps", NULL };
    const char *b = m[0] == 'v' ? m + 1 : m;
    if (in_list(b, fadd)) return MS_LAT_FADD;
    if (in_list(b, fmul)) return MS_LAT_FMUL;
    if (starts(b, "mov") && mem_src && nops == 2) return MS_LAT_LOAD;
    return -1;
}

typedef struct {
    uint64_t reads, writes;
    int cls;
    double lat;
} dep;

/* What instruction text t (mnemonic, operands) reads and writes. */
static void decode(const char *t, dep *d)
{
    char m[32];
    size_t n = strcspn(t, " \t");
    snprintf(m, sizeof m, "%.*s", (int)(n < 31 ? n : 31), t);
    const char *ops[4], *ope[4];
    int nops = 0;
    const char *p = t + n;
    while (*p == ' ' || *p == '\t') p++;
    while (*p && nops < 4) { /* operands, split at commas outside parentheses */
        int depth = 0;
        const char *s = p;
        while (*p && (depth || *p != ',')) {
            depth += (*p == '(') - (*p == ')');
            p++;
        }
        while (*s == ' ') s++;
        ops[nops] = s;
        ope[nops++] = p;
        if (*p == ',') p++;
    }
    uint64_t all = 0, dst = 0, srcs = 0;
    int partial = 0, dst_mem = 0, mem_src = 0, same = nops >= 2;
    for (int i = 0; i < nops; i++) {
        uint64_t one = 0;
        int pa;
        regs_in(ops[i], ope[i], &one, &pa);
        int mem = memchr(ops[i], '(', (size_t)(ope[i] - ops[i])) != NULL || (ops[i][0] != '%' && ops[i][0] != '$');
        all |= one;
        /* a zero idiom: every operand the same register */
        if (ops[i][0] != '%' || mem || ope[i] - ops[i] != ope[0] - ops[0] ||
            strncmp(ops[i], ops[0], (size_t)(ope[0] - ops[0])))
            same = 0;
        if (i == nops - 1) {
            dst_mem = mem;
            if (!mem) dst = one, partial = pa;
        } else {
            srcs |= one;
            mem_src |= mem;
        }
    }
    int vec = (all >> 16) != 0; /* a vector register: no flags */
    d->cls = insn_class(m, mem_src, nops);
    d->reads = d->writes = 0;
    static const char *const flag_writers[] = { "add", "sub",  "and", "or", "xor",   "inc",   "dec",    "neg",
                                                "cmp", "test", "sh",  "sa", "ro",    "rc",    "imul",   "mul",
                                                "adc", "sbb",  "bt",  "bs", "tzcnt", "lzcnt", "popcnt", NULL };
    int writes_flags = 0;
    for (const char *const *w = flag_writers; *w && !vec; w++) writes_flags |= starts(m, *w);
    writes_flags |= starts(m, "ucomis") || starts(m, "comis") || starts(m, "vucomis") || starts(m, "vcomis") ||
                    starts(m, "ptest") || starts(m, "vptest");
    int reads_flags = starts(m, "cmov") || starts(m, "set") || starts(m, "adc") || starts(m, "sbb") ||
                      starts(m, "rc") || (m[0] == 'j' && !starts(m, "jmp"));
    if (writes_flags) d->writes |= (uint64_t)1 << FLAGS;
    if (reads_flags) d->reads |= (uint64_t)1 << FLAGS;
    if (m[0] == 'j' || starts(m, "call") || starts(m, "ret") || starts(m, "nop") ||
        ((starts(m, "cmp") || starts(m, "test")) && !vec) || starts(m, "ucomis") || starts(m, "comis") ||
        starts(m, "vucomis") || starts(m, "vcomis") || dst_mem) {
        d->reads |= all; /* no register written (the flags above) */
        return;
    }
    if ((starts(m, "mul") || starts(m, "imul") || starts(m, "div") || starts(m, "idiv")) && nops == 1 && !vec) {
        d->reads |= all | 1u | 4u; /* rax, rdx */
        d->writes |= 1u | 4u;
        return;
    }
    if (starts(m, "cqto") || starts(m, "cltd") || starts(m, "cqo") || starts(m, "cdq")) {
        d->reads |= 1u;
        d->writes |= 4u;
        return;
    }
    if (starts(m, "cltq") || starts(m, "cdqe")) {
        d->reads |= 1u;
        d->writes |= 1u;
        return;
    }
    if (starts(m, "xchg")) {
        d->reads |= all;
        d->writes |= all;
        return;
    }
    static const char *const zero[] = { "xor", "pxor", "vpxor", "xorps",  "xorpd",   "vxorps", "vxorpd",
                                        "sub", "psub", "vpsub", "pcmpeq", "vpcmpeq", NULL };
    int zero_idiom = 0;
    for (const char *const *z = zero; *z && same; z++) zero_idiom |= starts(m, *z);
    if (zero_idiom) {
        d->writes |= dst;
        return;
    }
    const char *b = m[0] == 'v' ? m + 1 : m;
    int fma = starts(m, "vfmadd") || starts(m, "vfmsub") || starts(m, "vfnmadd") || starts(m, "vfnmsub");
    int merge_move = (!strcmp(m, "movsd") || !strcmp(m, "movss")) && !mem_src && nops == 2;
    merge_move |= starts(b, "movhp") || starts(b, "movlp");
    int pure = (starts(m, "mov") && !merge_move) || starts(m, "lea") || starts(m, "cvt") || starts(m, "vcvt") ||
               starts(m, "pop") || starts(m, "set") || starts(m, "vbroadcast") || starts(m, "pshuf") ||
               (starts(m, "imul") && nops == 3) || (m[0] == 'v' && nops >= 3 && !fma) ||
               (starts(m, "vmov") && !merge_move);
    d->reads |= srcs;
    if (!pure || partial || starts(m, "cmov")) d->reads |= dst;
    d->writes |= dst;
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

/* The recurrence of the decoded block d[0..n) with each instruction's latency lat(i) and a
 * bypass of byp cycles between the adder and the multiplier. */
static double recurrence(const dep *d, size_t n, const double *lat, double byp)
{
    int idx[NREGS], prod[NREGS];
    uint64_t seen = 0, carried = 0;
    size_t ns = 0;
    for (int r = 0; r < NREGS; r++) idx[r] = -1, prod[r] = -1;
    for (size_t i = 0; i < n; i++) { /* carried: read before it is written, and written */
        carried |= d[i].reads & ~seen;
        seen |= d[i].writes;
        for (int r = 0; r < NREGS; r++)
            if (d[i].writes >> r & 1) prod[r] = d[i].cls; /* the live-in's producer: the last writer */
    }
    carried &= seen;
    for (int r = 0; r < NREGS; r++)
        if (carried >> r & 1) {
            if (ns == MAXS) return -1;
            idx[r] = (int)ns++;
        }
    if (!ns) return 0;
    double val[NREGS][MAXS];
    for (int r = 0; r < NREGS; r++)
        for (size_t s = 0; s < ns; s++) val[r][s] = idx[r] == (int)s ? 0 : NEG_INF;
    for (size_t i = 0; i < n; i++) {
        double start[MAXS];
        for (size_t s = 0; s < ns; s++) {
            start[s] = NEG_INF;
            for (int q = 0; q < NREGS; q++)
                if (d[i].reads >> q & 1 && val[q][s] > NEG_INF / 2) {
                    double v = val[q][s] + bypass(prod[q], d[i].cls, byp);
                    if (v > start[s]) start[s] = v;
                }
        }
        for (int w = 0; w < NREGS; w++)
            if (d[i].writes >> w & 1) {
                for (size_t s = 0; s < ns; s++) val[w][s] = start[s] > NEG_INF / 2 ? start[s] + lat[i] : NEG_INF;
                prod[w] = d[i].cls;
            }
    }
    double l[MAXS * MAXS];
    for (int t = 0; t < NREGS; t++)
        if (idx[t] >= 0)
            for (size_t s = 0; s < ns; s++) l[s * ns + (size_t)idx[t]] = val[t][s];
    return max_cycle_mean(l, ns);
}

int ms_block_recurrence(const char *info, const ms_latency_fix *fix, double *model, double *core)
{
    *model = *core = 0;
    const char *h = info ? strstr(info, "Instructions:") : NULL;
    if (!h) return -1;
    const char *ls = h;
    while (ls > info && ls[-1] != '\n') ls--;
    size_t col = (size_t)(h - ls);
    const char *row = strchr(h, '\n');
    size_t cap = 0, n = 0;
    dep *d = NULL;
    double *lm = NULL, *lc = NULL;
    int rc = 0;
    while (row && row[1] && row[1] != '\n') {
        row++;
        const char *eol = strchr(row, '\n');
        size_t len = eol ? (size_t)(eol - row) : strlen(row);
        if (n == cap) {
            cap = cap ? 2 * cap : 32;
            dep *nd = realloc(d, cap * sizeof *d);
            double *nm = realloc(lm, cap * sizeof *lm), *nc = nm ? realloc(lc, cap * sizeof *lc) : NULL;
            if (nd) d = nd;
            if (nm) lm = nm;
            if (nc) lc = nc;
            if (!nd || !nm || !nc) {
                rc = -1;
                break;
            }
        }
        char *end;
        strtol(row, &end, 10);
        double lat = (double)strtol(end, &end, 10);
        if (len <= col || end == row) {
            rc = -1;
            break;
        }
        char text[256];
        snprintf(text, sizeof text, "%.*s", (int)(len - col < 255 ? len - col : 255), row + col);
        decode(text, &d[n]);
        lm[n] = lat;
        lc[n] = d[n].cls >= 0 && fix ? lat + fix->delta[d[n].cls] : lat;
        if (lc[n] < 1 && lat >= 1) lc[n] = 1;
        n++;
        row = eol;
    }
    if (rc == 0 && n) {
        *model = recurrence(d, n, lm, fix ? fix->bypass_model : 0);
        *core = recurrence(d, n, lc, fix ? fix->bypass_core : 0);
        if (*model < 0 || *core < 0) rc = -1;
    }
    if (rc) *model = *core = 0;
    free(d);
    free(lm);
    free(lc);
    return rc;
}

double ms_block_fix_cycles(double mca, double rthru, double model, double core)
{
    double bm = model > rthru ? model : rthru, bc = core > rthru ? core : rthru;
    double c = bc + (mca - bm);
    return c > rthru ? c : rthru;
}
