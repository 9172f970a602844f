/* `memspy run --focus` on loops (t_focus_loops): references whose count each loop fixes.
 * Pointer chases (a load whose address the previous load gives) keep every compiler from
 * vectorising, so each iteration makes the same references at any -O level:
 *   two_loops   loop A: n loads of nxt;  loop B: 2n iterations of a load of nxt, a load and a
 *               store of cnt (6n references)
 *   caller      its loop loads cnt, calls visit (2 loads) and stores into res, n times (4n
 *               references, in one block around the call), then visit is called once more
 *               after the loop (2 references outside it)
 *   nest        the outer loop runs r times: the inner loop's n loads of nxt, then a load and
 *               a store of cnt (r * (n + 2) references; the inner loop alone r * n)
 *   same_line   two loops whose lines start on one line (a name by the first line is ambiguous) */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
static int nxt[N];
static long cnt[N], res[N];

__attribute__((noinline)) static int two_loops(int n, int j)
{
    for (int k = 0; k < n; k++) /* LOOP-A */
        j = nxt[j];
    for (int k = 0; k < 2 * n; k++) { /* LOOP-B */
        j = nxt[j];
        cnt[j]++;
    }
    return j;
}

__attribute__((noinline)) static long visit(int k) { return cnt[nxt[k & (N - 1)]]; }

__attribute__((noinline)) static long caller(int n)
{
    long s = 0;
    for (int k = 0; k < n; k++) { /* LOOP-CALL */
        s += cnt[(k * 7) & (N - 1)];
        s += visit(k);
        res[k & (N - 1)] = s;
    }
    return s + visit(n);
}

__attribute__((noinline)) static int nest(int r, int n, int j)
{
    for (int i = 0; i < r; i++) { /* LOOP-OUTER */
        for (int k = 0; k < n; k++) /* LOOP-INNER */
            j = nxt[j];
        cnt[i & (N - 1)] += j;
    }
    return j;
}

__attribute__((noinline)) static int same_line(int n, int j)
{
    for (int k = 0; k < n; k++) j = nxt[j]; for (int k = 0; k < n; k++) /* LOOP-SAME */
        j = nxt[j] ^ 1;
    return j;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, r = argc > 2 ? atoi(argv[2]) : 10;
    for (int i = 0; i < N; i++) nxt[i] = (i * 97 + 13) & (N - 1);
    int j = two_loops(n, 1);
    long s = caller(n);
    j = nest(r, n, j);
    j = same_line(n, j);
    for (int i = 0; i < N; i += 512) s += res[i];
    printf("%d %ld\n", j, s);
    return 0;
}
