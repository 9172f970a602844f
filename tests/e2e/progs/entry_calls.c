/* Entry blocks counted by their calls (ABI 7, t_entry_calls.sh). bump, jumper, down and viaptr
 * are static; the first three are only called directly, so with optimisation their entry blocks
 * have no counter in the counting copy and count their calls; viaptr's address is taken (a
 * counter as before). Per iteration of main's loop (k = 0 .. N-1): jumper(k), which longjmps
 * back to main when k % 4 == 0 (entered N times, returns 3N/4 times), then bump twice (the
 * block's second call keeps its call word) and viaptr through a pointer; down(N) recurses N
 * times once the loop is done. usage: entry_calls N */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long sink;
static jmp_buf back;

__attribute__((noinline)) static void bump(long i)
{
    sink += i; /* ENTRY_BUMP */
}

__attribute__((noinline)) static void jumper(long i)
{
    sink ^= i; /* ENTRY_JUMPER */
    if (i % 4 == 0) longjmp(back, 1);
}

__attribute__((noinline)) static long down(long n)
{
    if (n <= 0) /* ENTRY_DOWN */
        return 0;
    long r = down(n - 1);
    sink += r;
    return r + 1;
}

__attribute__((noinline)) static void viaptr(long i)
{
    sink -= i; /* ENTRY_VIAPTR */
}

void (*volatile indirect)(long) = viaptr;

int main(int argc, char **argv)
{
    volatile long n = argc > 1 ? atol(argv[1]) : 8, i = 0;
    setjmp(back);
    while (i < n) {
        long k = i++;
        jumper(k);
        bump(k);
        bump(k);
        indirect(k);
    }
    printf("%ld %ld\n", down(n), (long)sink);
    return 0;
}
