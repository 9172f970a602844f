/* The rewrites of a block's instructions before llvm-mca (analysis/blockasm.c), on blocks
 * taken from gzip 1.12's send_bits and from tests/e2e/progs/mtool_small.c as memspy-cc -O2
 * (gcc 12) compiled them: exactly which instructions are the counting copy's
 * instrumentation, and the stack engine's stores and loads; a loop block's recurrence with the
 * core's latencies (analysis/blockchain.c) on LLVM 14's skylake tables (memspy-mcdeps). */
#include "analysis/blockasm.h"
#include "analysis/blockchain.h"
#include "analysis/blockgroup.h"
#include "analysis/tools.h"
#include "check.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N(a) (sizeof(a) / sizeof *(a))

/* The block word's value (movabsq, leaq, orq) and the buffer's address (leaq (%rbp,%rbx))
 * feed only the reservation's store that the code patterns drop: they go too; the program's
 * shift, or and compare stay. */
static void test_feeders(void)
{
    char *t[] = { "movl 1139935(%rip), %r14d",
                  "movl %r13d, %edi",
                  "shll %cl, %edi",
                  "cmpl %r14d, %edx",
                  "jge 0x66d10",
                  "leaq (%rbp,%rbx), %r15",
                  "movabsq $-4611686018427387904, %rsi",
                  "leaq 908091(%rip), %rdx",
                  "orq %rsi, %rdx",
                  "cmpq $4095, %rax",
                  "ja 0x673ce",
                  "movq %rdx, 8(%r15,%rax,8)",
                  "addq $1, %rax" };
    char drop[N(t)] = { 0 };
    drop[9] = drop[10] = drop[11] = drop[12] = 1; /* what the code patterns take out */
    ms_asm_drop_feeders(t, N(t), drop, 0);
    const char want[N(t)] = { 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
    CHECK(memcmp(drop, want, sizeof want) == 0);
    /* a register the program reads after the store is not the instrumentation's */
    char *u[] = { "leaq 8(%rip), %rdx", "movq %rdx, 8(%r15,%rax,8)", "movl (%rdx), %ecx" };
    char dropu[3] = { 0, 1, 0 };
    ms_asm_drop_feeders(u, 3, dropu, 0);
    CHECK(dropu[0] == 0);
    /* an or whose flags a later jump reads stays */
    char *v[] = { "orq %rsi, %rdx", "movq %rdx, 8(%r15,%rax,8)", "jne 0x10" };
    char dropv[3] = { 0, 1, 0 };
    ms_asm_drop_feeders(v, 3, dropv, 0);
    CHECK(dropv[0] == 0);
}

/* The count's store before the return, made from the buffer pair learnt in an earlier block of
 * the function; the trip count's increment in a loop of one block. */
static void test_count_moves(void)
{
    char *first[] = { "leaq (%rbp,%rbx), %r15", "cmpq $4095, %rax", "ja 0x1", "movq %rdx, 8(%r15,%rax,8)" };
    char dfirst[4] = { 0, 1, 1, 1 };
    int a = -1, b = -1;
    ms_asm_learn_buffer(first, 4, dfirst, &a, &b);
    CHECK(a == 6 && b == 1); /* %rbp, %rbx */
    char *exit_block[] = { "addq %rbx, %rbp",
                           "addq $1, %rax",
                           "movl %r12d, 1139423(%rip)",
                           "movq %rax, (%rbp)",
                           "addq $56, %rsp",
                           "popq %rbx",
                           "popq %rbp",
                           "retq" };
    char drop[N(exit_block)] = { 0 };
    ms_asm_drop_count_moves(exit_block, N(exit_block), drop, a, b);
    ms_asm_drop_feeders(exit_block, N(exit_block), drop, 0);
    const char want[N(exit_block)] = { 1, 0, 0, 1, 0, 0, 0, 0 }; /* %rax: the return value, maybe */
    CHECK(memcmp(drop, want, sizeof want) == 0);
    char *loop[] = { "addq $1, %r9", "addsd (%rdi,%rax,8), %xmm0", "addq $1, %rax", "cmpq %rax, %rsi", "jne 0x40" };
    char dl[N(loop)] = { 0 };
    ms_asm_drop_trip_count(loop, N(loop), dl);
    const char wl[N(loop)] = { 1, 0, 0, 0, 0 };
    CHECK(memcmp(dl, wl, sizeof wl) == 0);
}

/* gcc's counting copy's block counters (main._omp_fn.0 of examples/counters, memspy-cc -O2):
 * the id's load from the descriptor and the counter's update by it go; a load of another
 * table indexed the same way, and the program's own update through a register the id load
 * did not make, stay. */
static void test_counters(void)
{
    char *t[] = { "movq 304812(%rip), %rcx", "addq $1, (%r15,%rcx,8)", "testb $1, (%r14)",
                  "movq 304874(%rip), %rdx", "movl (%rsi), %eax",      "addq %rbx, (%r15,%rdx,8)",
                  "movq 100(%rip), %rcx",    "addq $1, (%r8,%rcx,8)",  "addq $1, (%r8,%rdi,8)" };
    const char desc[N(t)] = { 1, 0, 0, 1, 0, 0, 0, 0, 0 };
    char drop[N(t)] = { 0 };
    ms_asm_drop_counters(t, N(t), desc, drop);
    const char want[N(t)] = { 1, 1, 0, 1, 0, 1, 0, 0, 0 };
    CHECK(memcmp(drop, want, sizeof want) == 0);
}

/* Pushes and pops become stores and loads at fixed offsets, a direct call the return address's
 * store; an indirect call and anything else is left alone. */
static void test_stack_engine(void)
{
    ms_strbuf sb = MS_STRBUF_INIT;
    int pushed = 0, popped = 0;
    CHECK(ms_asm_stack_engine(&sb, "pushq %r15", &pushed, &popped) == 1);
    CHECK(ms_asm_stack_engine(&sb, "pushq %rbx", &pushed, &popped) == 1);
    CHECK(ms_asm_stack_engine(&sb, "popq %rbx", &pushed, &popped) == 1);
    CHECK(ms_asm_stack_engine(&sb, "popq %r15", &pushed, &popped) == 1);
    CHECK(ms_asm_stack_engine(&sb, "callq 7fd0", &pushed, &popped) == 1);
    CHECK(ms_asm_stack_engine(&sb, "callq *%rax", &pushed, &popped) == 0);
    CHECK(ms_asm_stack_engine(&sb, "addq $8, %rsp", &pushed, &popped) == 0);
    CHECK_STR(sb.s, "movq %r15, -8(%rsp)\nmovq %rbx, -16(%rsp)\nmovq 0(%rsp), %rbx\nmovq 8(%rsp), %r15\n"
                    "movq $0, -8(%rsp)\n");
    ms_strbuf_free(&sb);
}

/* A function's blocks outside loops costed together: an entry block bound by its stores (the
 * prologue's pushes: 6 cycles on the store port) and an exit block bound by its loads (the
 * pops: 3 cycles on each of two load ports), each run once per call, take 6 cycles together,
 * not 9; each keeps its share (6 * 6/9 = 4, 3 * 6/9 = 2). A loop's block and another function's
 * are left alone; a group whose sum is its bound already is unchanged. */
static void test_group(void)
{
    enum { NB = 5 };
    uint64_t func[NB] = { 0x100, 0x100, 0x100, 0x200, 0x200 };
    unsigned char in_loop[NB] = { 0, 0, 1, 0, 0 };
    double count[NB] = { 1000, 1000, 50000, 10, 10 };
    float res[NB * MS_MCA_RES] = { 0 };
    res[0 * MS_MCA_RES + 1] = 6;                           /* the store port */
    res[1 * MS_MCA_RES + 2] = res[1 * MS_MCA_RES + 3] = 3; /* two load ports */
    res[2 * MS_MCA_RES + 1] = 1;                           /* the loop's block */
    res[3 * MS_MCA_RES + 1] = res[4 * MS_MCA_RES + 1] = 2; /* both on one port */
    double cyc[NB] = { 6, 3, 1.5, 2, 2 };
    ms_block_group_scale(NB, func, in_loop, count, res, cyc);
    CHECK(cyc[0] > 4 - 1e-9 && cyc[0] < 4 + 1e-9);
    CHECK(cyc[1] > 2 - 1e-9 && cyc[1] < 2 + 1e-9);
    CHECK(cyc[2] == 1.5 && cyc[3] == 2 && cyc[4] == 2);
}

/* A loop's block that calls a small leaf function costs what it adds to the busiest resource of
 * the call: the callee (0x200) takes 6 cycles a call, (1000 * 4 + 500 * 4) / 1000, bound by its
 * store port (6 a call); the calling block (steady state 1.6) adds its one store: 1 cycle. A
 * block bound by a chain through the loop (steady state 10, few resources) keeps what the
 * callee's 6 cycles do not hide: 4. A callee with a loop (0x300), or one that calls out in 2%
 * of its calls (0x400: 20 of 1000; 1% is still a leaf), leaves its caller's block alone, and so
 * does a block outside loops; the callees' own costs are unchanged. */
static void test_call_overlap(void)
{
    enum { NB = 10 };
    uint64_t func[NB] = { 0x100, 0x100, 0x100, 0x100, 0x100, 0x200, 0x200, 0x300, 0x400, 0x400 };
    uint64_t callee[NB] = { 0x200, 0x200, 0x300, 0x400, 0x200, 0, 0, 0, 0x500, 0 };
    unsigned char in_loop[NB] = { 1, 1, 1, 1, 0, 0, 0, 1, 0, 0 };
    double count[NB] = { 1000, 1000, 1000, 1000, 1000, 1000, 500, 1000, 20, 1000 };
    float res[NB * MS_MCA_RES] = { 0 };
    res[0 * MS_MCA_RES + 0] = 1.5f; /* the calling block: dispatch, and the return address's store */
    res[0 * MS_MCA_RES + 1] = 1;
    res[1 * MS_MCA_RES + 0] = 0.5f; /* the chain-bound block */
    res[5 * MS_MCA_RES + 0] = 3;    /* the callee's entry: the prologue's stores */
    res[5 * MS_MCA_RES + 1] = 6;
    res[6 * MS_MCA_RES + 0] = 1; /* its exit: loads */
    res[6 * MS_MCA_RES + 2] = 2;
    double cyc[NB] = { 1.6, 10, 1.6, 1.6, 1.6, 4, 4, 2, 3, 1 };
    ms_block_call_overlap(NB, func, in_loop, callee, count, res, cyc);
    CHECK(cyc[0] > 1 - 1e-9 && cyc[0] < 1 + 1e-9);
    CHECK(cyc[1] > 4 - 1e-9 && cyc[1] < 4 + 1e-9);
    CHECK(cyc[2] == 1.6 && cyc[3] == 1.6 && cyc[4] == 1.6);
    CHECK(cyc[5] == 4 && cyc[6] == 4 && cyc[7] == 2 && cyc[8] == 3 && cyc[9] == 1);
    count[8] = 10;
    ms_block_call_overlap(NB, func, in_loop, callee, count, res, cyc);
    CHECK(cyc[3] < 1.6);
}

/* The recurrence of block text (AT&T) for skylake through memspy-mcdeps, with the model's
 * latencies into *m and fix's into *c; 0, or -1 (the tool missing: the caller skips). */
static int rec_of(const char *text, const ms_latency_fix *fix, double *m, double *c)
{
    char err[256], *deps = NULL;
    *m = *c = -1;
    if (ms_block_deps(text, "skylake", &deps, err, sizeof err) < 0) return -1;
    int rc = ms_block_recurrence(deps, strlen(deps), fix, m, c);
    free(deps);
    return rc;
}

#define NEAR(x, v) ((x) > (v)-1e-9 && (x) < (v) + 1e-9)

/* A loop block's recurrence with LLVM's register uses and defs (memspy-mcdeps) on skylake's
 * tables (addsd, mulsd and FMA 4 cycles, divsd 14, imul 3, a load 5, cvtsi2sd 5 + cvttsd2si
 * 6, a folded load's register operand read 5 cycles late), with the model's latencies and a
 * core's (addsd 2, mulsd 3, FMA 4.5, divsd 13, imul 4, a conversion 1 longer, a bypass of 0.4
 * each way between adder and multiplier). */
static void test_recurrence(void)
{
    ms_latency_fix fix = { 1, { -2, -1, 0, 0.5, -1, 1, 1, 0 }, 0.4, 0, "" };
    double m, c;
    if (!ms_tool_mcdeps_path()) {
        printf("note: memspy-mcdeps not built (no llvm-14-dev): recurrences not checked\n");
        return;
    }
    /* the dense chain x = x * a[i] + 0.5 (mulsd, addsd through %xmm0): 8 -> 5.8 */
    CHECK(rec_of("movsd (%rax), %xmm15\nmulsd %xmm15, %xmm0\nmovsd .LC0(%rip), %xmm15\naddsd %xmm15, %xmm0\n"
                 "addq $8, %rax\ncmpq %rax, %rdx\njne 4660",
                 &fix, &m, &c) == 0);
    CHECK(NEAR(m, 8) && NEAR(c, 5.8));
    /* the reduction unrolled by two (two addsd): 8 -> 4 */
    CHECK(rec_of("movsd (%rax), %xmm15\naddsd %xmm15, %xmm0\nmovsd 8(%rax), %xmm15\naddsd %xmm15, %xmm0\n"
                 "addq $16, %rax\njne 4660",
                 &fix, &m, &c) == 0);
    CHECK(NEAR(m, 8) && NEAR(c, 4));
    /* an FMA reduction s += a[i] * b[i], its load folded: the accumulator is read 5 cycles
     * late, so the chain is the FMA's 4 (9 with the load), 4.5 on the core */
    CHECK(rec_of("vmovsd (%rsi,%rax,8), %xmm1\nvfmadd231sd (%rdi,%rax,8), %xmm1, %xmm0\naddq $1, %rax\n"
                 "cmpq %rax, %rdx\njne 4660",
                 &fix, &m, &c) == 0);
    CHECK(NEAR(m, 4) && NEAR(c, 4.5));
    /* a division chain x = x / a[i]: divsd 14 -> 13 */
    CHECK(rec_of("divsd (%rdi,%rax,8), %xmm0\naddq $1, %rax\ncmpq %rax, %rdx\njne 4660", &fix, &m, &c) == 0);
    CHECK(NEAR(m, 14) && NEAR(c, 13));
    /* x = x / a[i] + 0.5: the divider and the adder (no bypass between them), 18 -> 15 */
    CHECK(rec_of("divsd (%rdi,%rax,8), %xmm0\naddsd %xmm1, %xmm0\naddq $1, %rax\njne 4660", &fix, &m, &c) == 0);
    CHECK(NEAR(m, 18) && NEAR(c, 15));
    /* an integer multiply chain h = h * a[i] (its load folded): 3 -> 4 */
    CHECK(rec_of("imulq (%rdi,%rax,8), %rdx\naddq $1, %rax\ncmpq %rax, %rsi\njne 4660", &fix, &m, &c) == 0);
    CHECK(NEAR(m, 3) && NEAR(c, 4));
    /* an integer to double and back: cvtsi2sd 5 + cvttsd2si 6, each one longer on the core */
    CHECK(rec_of("cvtsi2sd %rdx, %xmm3\ncvttsd2si %xmm3, %rdx\naddq $1, %rax\njne 4660", &fix, &m, &c) == 0);
    CHECK(NEAR(m, 11) && NEAR(c, 13));
    /* an integer loop: its induction variable (1), untouched */
    CHECK(rec_of("movq (%rdi,%rax,8), %rcx\naddq %rcx, %rdx\nimulq $1000003, %rax, %rcx\nincq %rax\njne 4660", &fix, &m,
                 &c) == 0);
    CHECK(NEAR(m, 1) && c == m);
    /* no carried chain: y[i] = x[i] * a, each iteration's registers its own (the pointers are
     * not advanced: no register read before it is written and written) */
    CHECK(rec_of("movsd (%rdi), %xmm0\nmulsd %xmm1, %xmm0\nmovsd %xmm0, (%rsi)", &fix, &m, &c) == 0);
    CHECK(m == 0 && c == 0);
    /* a zero idiom cuts the chain; a movsd between registers merges into its destination:
     * %xmm2 4 -> 2, %xmm3 through the merge 5 -> 3 */
    CHECK(rec_of("xorps %xmm0, %xmm0\naddsd %xmm1, %xmm0\nvaddsd %xmm0, %xmm2, %xmm2\nmovsd %xmm2, %xmm3\n"
                 "addsd %xmm3, %xmm3",
                 &fix, &m, &c) == 0);
    CHECK(NEAR(m, 5) && NEAR(c, 3));
    /* a partial write: movb into %al, then %rax read as a whole, is a chain through %rax */
    CHECK(rec_of("movb (%rdi), %al\naddq %rax, %rdx\njne 4660", &fix, &m, &c) == 0);
    CHECK(NEAR(m, 1));
    CHECK(ms_block_recurrence("i 1 ADDSDrr", 11, &fix, &m, &c) == -1 && m == 0 && c == 0);
    CHECK(ms_block_recurrence("x 3\n", 4, &fix, &m, &c) == -1);
    /* the classes by LLVM's opcode names */
    CHECK(ms_insn_class("VADDPDYrr", 0) == MS_LAT_FADD && ms_insn_class("SUBSSrm", 1) == MS_LAT_FADD);
    CHECK(ms_insn_class("MULSDrr_Int", 0) == MS_LAT_FMUL && ms_insn_class("VFMADD213PDYm", 1) == MS_LAT_FMA);
    CHECK(ms_insn_class("DIVSDrr", 0) == MS_LAT_FDIV && ms_insn_class("DIV64r", 0) == -1);
    CHECK(ms_insn_class("IMUL64rr", 0) == MS_LAT_IMUL && ms_insn_class("MUL64r", 0) == MS_LAT_IMUL);
    CHECK(ms_insn_class("CVTSI642SDrr", 0) == MS_LAT_CVT && ms_insn_class("CVTTSD2SI64rr_Int", 0) == MS_LAT_CVT);
    CHECK(ms_insn_class("CVTSD2SSrr", 0) == -1 && ms_insn_class("UNPCKLPDrr", 0) == MS_LAT_SHUF);
    CHECK(ms_insn_class("MOV64rm", 1) == MS_LAT_LOAD && ms_insn_class("MOV64mr", 0) == -1);
    /* the chain's part moves, what llvm-mca adds beyond its bounds stays, never under rthru */
    CHECK(ms_block_fix_cycles(8.08, 1.2, 8, 5.8) > 5.88 - 1e-9 && ms_block_fix_cycles(8.08, 1.2, 8, 5.8) < 5.88 + 1e-9);
    CHECK(ms_block_fix_cycles(3.5, 3, 2, 1) == 3.5);
    CHECK(ms_block_fix_cycles(8, 3, 8, 1) == 3);
}

int main(void)
{
    test_recurrence();
    test_group();
    test_call_overlap();
    test_feeders();
    test_count_moves();
    test_stack_engine();
    test_counters();
    return check_result();
}
