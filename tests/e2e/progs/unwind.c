/* The shadow call stack survives longjmp out of a deep recursion: an allocation made after
 * it must have the call path main > alloc_after, without the abandoned frames. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int depth_sink;

__attribute__((noinline)) static void deep(int d)
{
    depth_sink = d;
    if (d == 0)
        longjmp(env, 1);
    deep(d - 1);
    depth_sink = d;
}

__attribute__((noinline)) static double *alloc_after(int n)
{
    double *after = malloc(sizeof(double) * (size_t)n);
    after[0] = 0;
    for (int i = 1; i < n; i++)   /* a recurrence: no compiler vectorizes it */
        after[i] = after[i - 1] + 1;
    return after;
}

int main(void)
{
    if (!setjmp(env))
        deep(60);
    double *p = alloc_after(100);
    printf("%.0f\n", p[99]);
    free(p);
    return 0;
}
