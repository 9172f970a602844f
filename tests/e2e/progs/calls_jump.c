/* Direct call sites (ABI 6, t_calls.sh): twice() calls jumper() then leaf() in one block;
 * jumper() longjmps back to main on every fourth call, so leaf() runs 3 times in 4. The
 * block's first call (jumper) is counted by its block; the second (leaf) must not be: it keeps
 * its call word. Recursion: down() calls itself n times. usage: calls_jump N */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static jmp_buf back;

__attribute__((noinline)) void jumper(long i)
{
    sink += i;
    if (i % 4 == 0) longjmp(back, 1);
}

__attribute__((noinline)) void leaf(long i)
{
    sink -= i;
}

__attribute__((noinline)) void twice(long i)
{
    jumper(i); /* CALL_JUMPER */
    leaf(i);   /* CALL_LEAF */
    sink ^= i;
}

__attribute__((noinline)) long down(long n)
{
    long r = n > 0 ? down(n - 1) : 0; /* CALL_DOWN */
    sink += r;                         /* after the call: no tail recursion */
    return r + 1;
}

int main(int argc, char **argv)
{
    volatile long n = argc > 1 ? atol(argv[1]) : 8, i = 0;
    setjmp(back);
    while (i < n) {
        long k = i++;
        twice(k);
    }
    printf("%ld %ld\n", down(n), (long)sink);
    return 0;
}
