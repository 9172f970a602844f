/* The versions of a function (t_run_modes.sh): kernel runs its instrumented body, its plain
 * copy (MEMSPY_MODE=time) or its counting copy (MEMSPY_MODE=count). where() prints the pc it
 * returns to in kernel, relative to the executable's load address, so that the test can check
 * which copy ran and that its pcs still name kernel and the call's line.
 * usage: timemode N */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static double a[4096];

__attribute__((noinline)) int where(void)
{
    Dl_info info;
    char *ra = __builtin_return_address(0);
    if (dladdr(ra, &info)) printf("caller 0x%lx\n", (unsigned long)(ra - (char *)info.dli_fbase - 1));
    return 0;
}

__attribute__((noinline)) double kernel(int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) {
        a[i % 4096] += i;
        s += a[(i * 7) % 4096];
    }
    s += where(); /* WHERE */
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    printf("sum %.1f\n", kernel(n));
    return 0;
}
