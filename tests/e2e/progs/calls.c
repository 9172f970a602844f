/* Call edges (t_calls.sh): main calls leaf() N times from one block (CALL_LEAF), through a
 * function pointer twice per iteration (CALL_PTR: leaf or other, alternately), and other()
 * calls leaf() once per call (CALL_INNER). usage: calls N */
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;

__attribute__((noinline)) long leaf(long x)
{
    sink += x;
    return sink;
}

__attribute__((noinline)) long other(long x)
{
    long r = leaf(x) + 1; /* CALL_INNER */
    sink -= 1;
    return r;
}

long (*volatile table[2])(long) = { leaf, other };

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10, s = 0;
    for (long i = 0; i < n; i++) {
        s += leaf(i);                /* CALL_LEAF */
        s += table[i & 1](i);        /* CALL_PTR */
        s += table[(i + 1) & 1](i);  /* CALL_PTR2 */
    }
    printf("%ld\n", s);
    return 0;
}
