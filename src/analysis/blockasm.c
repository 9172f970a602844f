/* Rewrites of a block's x86 instructions before llvm-mca costs them; see blockasm.h. */
#include "blockasm.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The general-purpose register family (0-15: rax..rdi, rbp, rsp, r8-r15) of the register name at
 * s (after its '%'), its name's length in *len; -1 for another register (vector, segment, rip). */
static int gpr_family(const char *s, size_t *len)
{
    static const char *const names[][5] = {
        { "rax", "eax", "ax", "al", "ah" }, { "rbx", "ebx", "bx", "bl", "bh" }, { "rcx", "ecx", "cx", "cl", "ch" },
        { "rdx", "edx", "dx", "dl", "dh" }, { "rsi", "esi", "si", "sil", "" },  { "rdi", "edi", "di", "dil", "" },
        { "rbp", "ebp", "bp", "bpl", "" },  { "rsp", "esp", "sp", "spl", "" },
    };
    size_t n = 0;
    while (isalnum((unsigned char)s[n])) n++;
    *len = n;
    if (n >= 2 && s[0] == 'r' && isdigit((unsigned char)s[1])) {
        int r = atoi(s + 1);
        return r >= 8 && r <= 15 ? r : -1;
    }
    for (int f = 0; f < 8; f++)
        for (int k = 0; k < 5; k++)
            if (names[f][k][0] && strlen(names[f][k]) == n && !strncmp(s, names[f][k], n)) return f;
    return -1;
}

/* The mnemonic's length (up to the first blank). */
static size_t mnem_len(const char *t) { return strcspn(t, " "); }

static int mnem_is(const char *t, const char *m) { return mnem_len(t) == strlen(m) && !strncmp(t, m, strlen(m)); }

/* The destination operand (the last one) of t, NULL if it has no operand. */
static const char *dest_operand(const char *t)
{
    const char *comma = strrchr(t, ',');
    const char *ops = t + mnem_len(t);
    const char *d = comma ? comma + 1 : ops;
    while (*d == ' ') d++;
    return *d ? d : NULL;
}

/* The family of t's destination when it is a whole general-purpose register that t writes without
 * reading it (a 32- or 64-bit move, load-effective-address, extension or pop); -1 otherwise. */
static int pure_def(const char *t)
{
    static const char *const writes[] = { "movq",   "movl",   "movabsq", "leaq",   "leal",
                                          "movzbl", "movzwl", "movzbq",  "movzwq", "movslq",
                                          "movsbl", "movswl", "movsbq",  "movswq", "popq" };
    int w = 0;
    for (size_t k = 0; k < sizeof writes / sizeof *writes && !w; k++) w = mnem_is(t, writes[k]);
    const char *d = dest_operand(t);
    if (!w || !d || d[0] != '%') return -1;
    size_t len;
    int f = gpr_family(d + 1, &len);
    if (f < 0 || d[1 + len] != '\0') return -1;
    const char *r = d + 1;
    int partial =
        r[0] != 'e' && (r[0] != 'r' || (isdigit((unsigned char)r[1]) && (r[len - 1] == 'w' || r[len - 1] == 'b')));
    if (partial) return -1; /* a 16- or 8-bit write merges into the register */
    /* the same family among the sources: read too */
    for (const char *p = t + mnem_len(t); p < d; p++)
        if (*p == '%' && gpr_family(p + 1, &len) == f) return -1;
    return f;
}

/* Whether t reads register family f (any occurrence but a pure destination counts). */
static int reads_family(const char *t, int f)
{
    int def = pure_def(t);
    const char *d = dest_operand(t);
    for (const char *p = t + mnem_len(t); *p; p++) {
        size_t len;
        if (*p != '%' || gpr_family(p + 1, &len) != f) continue;
        if (def == f && p == d) continue;
        return 1;
    }
    /* implicit readers: a call reads the argument registers (%rax: the vector count) and
     * %rsp, a return the return value's and %rsp (never a callee-saved register, which the
     * epilogue restored); push and pop read %rsp; string, division and the like, everything */
    if (!strncmp(t, "call", 4)) return f == 0 || f == 2 || f == 3 || f == 4 || f == 5 || f == 7 || f == 8 || f == 9;
    if (!strncmp(t, "ret", 3)) return f == 0 || f == 3 || f == 7;
    if (f == 7 && (!strncmp(t, "push", 4) || !strncmp(t, "pop", 3))) return 1;
    if (!strncmp(t, "div", 3) || !strncmp(t, "idiv", 4) || !strncmp(t, "cq", 2) || !strncmp(t, "cl", 2) ||
        !strncmp(t, "rep", 3) || !strncmp(t, "sto", 3) || !strncmp(t, "mul", 3) || !strncmp(t, "syscall", 7) ||
        !strncmp(t, "cpuid", 5) || !strncmp(t, "xchg", 4) || !strncmp(t, "cmpxchg", 7) || !strncmp(t, "lock", 4) ||
        !strncmp(t, "leave", 5) || !strncmp(t, "enter", 5))
        return 1; /* conservatively: they read more than they name */
    return 0;
}

/* Whether t reads the arithmetic flags (a conditional jump, set, move, add/subtract with carry). */
static int reads_flags(const char *t)
{
    if (t[0] == 'j') return !mnem_is(t, "jmp") && strncmp(t, "jmpq", 4) != 0;
    return !strncmp(t, "set", 3) || !strncmp(t, "cmov", 4) || !strncmp(t, "adc", 3) || !strncmp(t, "sbb", 3) ||
           !strncmp(t, "pushf", 5);
}

/* Whether t sets the arithmetic flags (every one of them: a compare, a test, an ALU operation). */
static int writes_flags(const char *t)
{
    static const char *const w[] = { "cmp", "test", "add", "sub", "and", "or", "xor", "neg", "comis", "ucomis" };
    for (size_t k = 0; k < sizeof w / sizeof *w; k++)
        if (!strncmp(t, w[k], strlen(w[k]))) return 1;
    return 0;
}

/* Instructions an instrumentation feeder may be: register moves and arithmetic that make a
 * block word (`movabsq $tag, %S`, `leaq desc(%rip), %D`, `orq %S, %D`, `btsq $63, %D`) or a buffer
 * address (`movq %fs:0, %T`, `leaq (%T,%O), %B`, `addq %T, %B`, `movq %B, %X`). */
static int feeder_shape(const char *t)
{
    static const char *const s[] = { "movabsq", "leaq", "leal", "orq", "btsq", "addq", "movq" };
    int ok = 0;
    for (size_t k = 0; k < sizeof s / sizeof *s && !ok; k++) ok = mnem_is(t, s[k]);
    const char *d = dest_operand(t);
    size_t len;
    if (!ok || !d || d[0] != '%' || gpr_family(d + 1, &len) < 0 || d[1 + len] != '\0') return 0;
    /* no memory read: a lea computes an address, a %fs:0 move reads the thread pointer */
    if (strchr(t, '(') && strncmp(t, "lea", 3) != 0) return 0;
    return 1;
}

/* Whether the flags t sets are read by a kept instruction after it (before another writer). */
static int flags_live_after(char *const *t, size_t n, size_t i)
{
    for (size_t j = i + 1; j < n; j++) {
        if (reads_flags(t[j])) return 1;
        if (writes_flags(t[j])) return 0;
    }
    return 0;
}

void ms_asm_drop_feeders(char *const *t, size_t n, char *drop, int self_loop)
{
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = n; i-- > 0;) {
            if (drop[i] || !feeder_shape(t[i])) continue;
            size_t len;
            const char *d = dest_operand(t[i]);
            int f = gpr_family(d + 1, &len);
            if (f == 7 || (writes_flags(t[i]) && flags_live_after(t, n, i))) continue;
            int dropped_reader = 0, kept_reader = 0, killed = 0;
            for (size_t j = i + 1; j < n && !kept_reader && !killed; j++) {
                if (reads_family(t[j], f)) {
                    if (drop[j])
                        dropped_reader = 1;
                    else
                        kept_reader = 1;
                } else if (pure_def(t[j]) == f) {
                    killed = 1;
                }
            }
            /* a loop of one block: the code before i runs after it, in the next iteration */
            for (size_t j = 0; self_loop && j < i && !kept_reader && !killed; j++) {
                if (reads_family(t[j], f))
                    kept_reader |= !drop[j], dropped_reader |= drop[j];
                else if (pure_def(t[j]) == f)
                    killed = 1;
            }
            if (dropped_reader && !kept_reader) drop[i] = 1, changed = 1;
        }
    }
}

void ms_asm_drop_trip_count(char *const *t, size_t n, char *drop)
{
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *d = dest_operand(t[i]);
        if (drop[i] || !d || d[0] != '%') continue;
        if (!(mnem_is(t[i], "addq") && !strncmp(t[i] + 5, "$1,", 3)) && !mnem_is(t[i], "incq")) continue;
        int f = gpr_family(d + 1, &len);
        if (f < 0 || f == 7 || flags_live_after(t, n, i)) continue;
        int other = 0;
        for (size_t j = 0; j < n && !other; j++) other = j != i && (reads_family(t[j], f) || pure_def(t[j]) == f);
        if (!other) drop[i] = 1; /* incremented, never read in the loop: the counting copy's trip count */
    }
}

int ms_asm_stack_engine(ms_strbuf *sb, const char *t, int *pushed, int *popped)
{
    const char *op = t + mnem_len(t);
    while (*op == ' ') op++;
    size_t len;
    if (mnem_is(t, "callq") && isxdigit((unsigned char)op[0])) {
        ms_strbuf_adds(sb, "movq $0, -8(%rsp)\n"); /* the return address's store */
        return 1;
    }
    if (op[0] != '%' || gpr_family(op + 1, &len) < 0 || op[1 + len] != '\0') return 0;
    if (mnem_is(t, "pushq")) {
        *pushed += 8;
        ms_strbuf_addf(sb, "movq %s, %d(%%rsp)\n", op, -*pushed);
        return 1;
    }
    if (mnem_is(t, "popq")) {
        ms_strbuf_addf(sb, "movq %d(%%rsp), %s\n", *popped, op);
        *popped += 8;
        return 1;
    }
    return 0;
}

/* The families of "(%X,%Y" at p (after its '('): 0 if p is not such a pair. */
static int base_pair(const char *p, int *x, int *y)
{
    size_t l1, l2;
    if (p[0] != '%' || (*x = gpr_family(p + 1, &l1)) < 0 || p[1 + l1] != ',' || p[2 + l1] != '%') return 0;
    *y = gpr_family(p + 3 + l1, &l2);
    return *y >= 0;
}

/* The buffer register that t makes from the pair (a, b) (`leaq (%A,%B), %R` or `addq %A, %B`
 * with R = B), -1 if none. */
static int makes_buffer(const char *t, int a, int b)
{
    const char *d = dest_operand(t);
    size_t len;
    int x, y, r = d && d[0] == '%' ? gpr_family(d + 1, &len) : -1;
    if (r < 0) return -1;
    if (mnem_is(t, "leaq") && t[5] == '(' && base_pair(t + 6, &x, &y) && t[6 + strcspn(t + 6, ")") + 1] == ',')
        return (x == a && y == b) || (x == b && y == a) ? r : -1;
    if (mnem_is(t, "addq") && t[5] == '%' && (x = gpr_family(t + 6, &len)) >= 0)
        return (x == a && r == b) || (x == b && r == a) ? r : -1;
    return -1;
}

void ms_asm_learn_buffer(char *const *t, size_t n, const char *drop, int *a, int *b)
{
    for (size_t i = 0; i < n; i++) {
        const char *open = drop[i] && mnem_is(t[i], "movq") ? strrchr(t[i], '(') : NULL;
        size_t len;
        int r = open && open[1] == '%' ? gpr_family(open + 2, &len) : -1;
        if (r < 0) continue;
        for (size_t j = i; j-- > 0;) { /* the last definition of the store's base */
            const char *d = dest_operand(t[j]);
            if (!d || d[0] != '%' || gpr_family(d + 1, &len) != r) continue;
            int x, y;
            if (mnem_is(t[j], "leaq") && t[j][5] == '(' && base_pair(t[j] + 6, &x, &y)) {
                *a = x, *b = y;
                return;
            }
            if (mnem_is(t[j], "addq") && t[j][5] == '%' && (x = gpr_family(t[j] + 6, &len)) >= 0) {
                *a = x, *b = r;
                return;
            }
            break;
        }
    }
}

void ms_asm_drop_count_moves(char *const *t, size_t n, char *drop, int a, int b)
{
    int buf[16] = { 0 };
    if (a < 0 || b < 0) return;
    for (size_t i = 0; i < n; i++) {
        int r = makes_buffer(t[i], a, b);
        const char *open = strchr(t[i], '(');
        size_t len;
        int base = open && open[1] == '%' && (open == t[i] + 5 || open[-1] == ' ') ? gpr_family(open + 2, &len) : -1;
        if (!drop[i] && mnem_is(t[i], "movq") && base >= 0 && buf[base] && open[2 + len] == ')' &&
            (open == t[i] + 5 || !strcmp(open, dest_operand(t[i])))) {
            drop[i] = 1; /* the count's store into b[0], or its load from it */
            continue;
        }
        const char *d = dest_operand(t[i]);
        int def = d && d[0] == '%' ? gpr_family(d + 1, &len) : -1;
        if (def >= 0 && def < 16) buf[def] = 0;
        if (r >= 0 && r < 16) buf[r] = 1;
    }
}

/* ---- the code patterns of the plugin's instrumentation ---- */

/* The register operand "%reg" at s (its length), 0 if none. */
static size_t reg_len(const char *s)
{
    if (*s != '%') return 0;
    size_t n = 1;
    while (isalnum((unsigned char)s[n])) n++;
    return n;
}

/* The buffer register B of a reservation whose count is the register C: the base of the first
 * store into `k(%B,%C,8)` or `leaq (%B,%C,8)` among t[from, from + 16), into buf. */
static int count_store_base(char *const *t, size_t from, size_t n, const char *c, char *buf, size_t len)
{
    char pat[48];
    snprintf(pat, sizeof pat, ",%s,8)", c);
    for (size_t j = from; j < n && j < from + 16; j++) {
        const char *at = strstr(t[j], pat);
        if (!at || (strncmp(t[j], "movq ", 5) && strncmp(t[j], "leaq ", 5))) continue;
        const char *open = at;
        while (open > t[j] && *open != '(') open--;
        if (*open != '(' || (size_t)(at - open - 1) >= len) return 0;
        snprintf(buf, len, "%.*s", (int)(at - open - 1), open + 1);
        return 1;
    }
    return 0;
}

/* The instrumentation's code pattern in a block of the instrumented body (docs/plugin.md):
 * a reservation `movq (%B), %C` + `cmpq $40xx, %C` + `ja` (B: the thread buffer, C: its word
 * count), the record pointer `leaq (%B,%C,8), %P`, stores into `k(%P)` or `k(%B,%C,8)`, the
 * count's update `addq $n, %C` and `movq %C, (%B)`; clang's code addresses the buffer through
 * %fs (`movq %fs:(%B), %C`, `jae`, stores into `%fs:k(%B,%C,8)`, `movq %C, %fs:(%B)`) and
 * computes a record's address with a `leaq ..., %R` just before storing %R. In gcc's counting
 * copy the count stays in a register (no load, no store): `cmpq $40xx, %C` + `ja` with a store
 * into `k(%B,%C,8)` after it, and `addq $n, %C`. Marks those instructions in drop[] (the plain
 * copy the timing run executes has none of them); the count's store before a call and its
 * load after it in the counting copy are left in (their buffer register is not known there). */
void ms_asm_mark_instrumentation(char *const *t, size_t n, char *drop)
{
    char buf[32] = "", cnt[32] = "", ptr[32] = "";
    for (size_t i = 0; i < n; i++) {
        const char *x = t[i];
        char a[32], b[32];
        long imm;
        if (i + 1 < n && sscanf(x, "cmpq $%ld, %31s", &imm, b) == 2 && imm >= 4000 && imm <= 4096 &&
            (!strncmp(t[i + 1], "ja ", 3) || !strncmp(t[i + 1], "jae ", 4)) &&
            count_store_base(t, i + 2, n, b, a, sizeof a)) { /* a count in a register */
            snprintf(buf, sizeof buf, "%s", a);
            snprintf(cnt, sizeof cnt, "%s", b);
            drop[i] = drop[i + 1] = 1;
            i += 1;
            continue;
        }
        if (i + 1 < n &&
            (sscanf(x, "movq (%31[^)]), %31s", a, b) == 2 || sscanf(x, "movq %%fs:(%31[^)]), %31s", a, b) == 2) &&
            sscanf(t[i + 1], "cmpq $%ld, %31s", &imm, b) == 2 && imm >= 4000 && imm <= 4096) {
            snprintf(buf, sizeof buf, "%s", a);
            snprintf(cnt, sizeof cnt, "%s", b);
            drop[i] = drop[i + 1] = 1;
            if (i + 2 < n && (!strncmp(t[i + 2], "ja ", 3) || !strncmp(t[i + 2], "jae ", 4))) drop[i + 2] = 1;
            i += 1;
            continue;
        }
        if (!buf[0]) continue;
        char pat[96];
        snprintf(pat, sizeof pat, "(%s,%s,8)", buf, cnt);
        if (!strncmp(x, "leaq ", 5) && !strncmp(x + 5 + strspn(x + 5, " "), pat, strlen(pat))) {
            const char *r = strrchr(x, '%');
            if (r && reg_len(r) < sizeof ptr) snprintf(ptr, sizeof ptr, "%.*s", (int)reg_len(r), r);
            drop[i] = 1;
            continue;
        }
        const char *comma = strrchr(x, ',');
        const char *dst = comma ? comma + 1 + strspn(comma + 1, " ") : NULL;
        if (!strncmp(x, "movq ", 5) && dst &&
            (strstr(x, pat) || (ptr[0] && strchr(dst, '(') && !strncmp(strchr(dst, '(') + 1, ptr, strlen(ptr)) &&
                                strchr(dst, '(')[1 + strlen(ptr)] == ')'))) {
            drop[i] = 1; /* a record store */
            char src[32], lea_dst[32];
            if (i > 0 && !drop[i - 1] && sscanf(x, "movq %31[^,],", src) == 1 && src[0] == '%' &&
                !strncmp(t[i - 1], "leaq ", 5) && sscanf(strrchr(t[i - 1], ',') + 1, " %31s", lea_dst) == 1 &&
                !strcmp(lea_dst, src))
                drop[i - 1] = 1; /* the record's address, computed for it alone */
            continue;
        }
        char fs_pat[96];
        snprintf(pat, sizeof pat, "%s, (%s)", cnt, buf);
        snprintf(fs_pat, sizeof fs_pat, "%s, %%fs:(%s)", cnt, buf);
        if (!strncmp(x, "movq ", 5) && (strstr(x, pat) || strstr(x, fs_pat))) {
            drop[i] = 1; /* the count's update: the reservation is over */
            cnt[0] = ptr[0] = '\0';
            continue;
        }
        char reload[96], fs_reload[96];
        snprintf(reload, sizeof reload, "movq (%s), ", buf);
        snprintf(fs_reload, sizeof fs_reload, "movq %%fs:(%s), ", buf);
        if (!strncmp(x, reload, strlen(reload)) || !strncmp(x, fs_reload, strlen(fs_reload))) {
            drop[i] = 1; /* the count's reload after a call (the counting copy) */
            continue;
        }
        if (cnt[0] && !strncmp(x, "addq $", 6) && dst && !strcmp(dst, cnt)) {
            drop[i] = 1;
            continue;
        }
        if (ptr[0] && dst && !strcmp(dst, ptr)) ptr[0] = '\0'; /* the program reuses the register */
        if (cnt[0] && dst && !strcmp(dst, cnt)) cnt[0] = '\0';
    }
}

void ms_asm_drop_counters(char *const *t, size_t n, const char *desc, char *drop)
{
    for (size_t i = 0; i < n; i++) {
        const char *d = desc[i] && mnem_is(t[i], "movq") && strstr(t[i], "(%rip)") ? dest_operand(t[i]) : NULL;
        size_t len;
        int f = d && d[0] == '%' ? gpr_family(d + 1, &len) : -1;
        if (f < 0) continue;
        char pat[40];
        snprintf(pat, sizeof pat, ",%s,8)", d);
        for (size_t j = i + 1; j < n && j < i + 9; j++) {
            size_t tl = strlen(t[j]), pl = strlen(pat);
            if ((mnem_is(t[j], "addq") || mnem_is(t[j], "incq")) && tl > pl && !strcmp(t[j] + tl - pl, pat)) {
                drop[i] = drop[j] = 1;
                break;
            }
            if (pure_def(t[j]) == f) break;
        }
    }
}

/* ---- folded loads ---- */

/* llvm-mca 14's AMD models put a folded load's latency on the register operand's chain
 * (`mulsd (%rbx), %xmm0` costs load + multiply per iteration of a chain through %xmm0, which
 * the core does not: the load issues early). A floating-point arithmetic instruction with a
 * memory source is given to llvm-mca as a load into a scratch register the block does not use
 * and the register form: the same work, the dependence the core sees (docs/mtool.md). */
static const char *const FP_OPS[] = { "add", "sub", "mul", "div", "min", "max" };

/* The load for the suffix of an FP arithmetic mnemonic ("sd" -> "movsd"). */
static const char *fp_load(const char *suffix, int vex)
{
    if (!strcmp(suffix, "sd")) return vex ? "vmovsd" : "movsd";
    if (!strcmp(suffix, "ss")) return vex ? "vmovss" : "movss";
    if (!strcmp(suffix, "pd")) return vex ? "vmovupd" : "movupd";
    if (!strcmp(suffix, "ps")) return vex ? "vmovups" : "movups";
    return NULL;
}

/* Append t to sb, unfolding an FP arithmetic memory source into scratch register reg
 * ("%xmm15" or "%ymm15"); returns 1 if it did. */
int ms_asm_unfold_fp(ms_strbuf *sb, const char *t, int scratch_free)
{
    if (!scratch_free) return 0;
    int vex = t[0] == 'v';
    const char *m = t + vex;
    for (size_t k = 0; k < sizeof FP_OPS / sizeof *FP_OPS; k++) {
        size_t ol = strlen(FP_OPS[k]);
        if (strncmp(m, FP_OPS[k], ol) != 0) continue;
        char suffix[3] = { m[ol], m[ol] ? m[ol + 1] : 0, 0 };
        const char *load = fp_load(suffix, vex);
        if (!load || (m[ol + 2] != ' ' && m[ol + 2] != '\0')) return 0;
        const char *ops = m + ol + 2;
        while (*ops == ' ') ops++;
        const char *comma = strstr(ops, "), ");
        if (!comma || !strchr(ops, '(') || strchr(ops, '%') == NULL || ops[0] == '%') return 0;
        size_t memlen = (size_t)(comma + 1 - ops);
        const char *rest = comma + 3; /* "%xmm0" or "%xmmA, %xmmD" */
        const char *reg = strstr(rest, "%ymm") == rest ? "%ymm15" : "%xmm15";
        ms_strbuf_addf(sb, "%s %.*s, %s\n%.*s %s, %s\n", load, (int)memlen, ops, reg, (int)(ops - t), t, reg, rest);
        return 1;
    }
    return 0;
}
