/* Calls that the compiler merges into one: four paths end in the same call through a
 * function pointer with the same arguments, which gcc -O2's cross-jumping turns into one call
 * that every path jumps to (t_shared_calls). Each out-parameter record's end label must stay
 * with its own call. */
#include <stdlib.h>
#include <stdio.h>
int open_buf(int n, char **out) { *out = malloc(n); return *out != 0; }
extern int (*volatile opener)(int, char **);
int (*volatile opener)(int, char **) = open_buf;
__attribute__((noinline)) int pick(int k, int n, char **out)
{
    if (k == 1) { puts("one"); return opener(n, out); }
    if (k == 2) { puts("two"); return opener(n, out); }
    if (k == 3) { puts("three"); return opener(n, out); }
    return opener(n, out);
}
int main(int argc, char **argv)
{
    (void)argv;
    char *a, *b;
    pick(argc, 4096, &a);
    pick(argc + 1, 8192, &b);
    for (int i = 0; i < 4096; i++) a[i] = (char)i;
    for (int i = 0; i < 8192; i++) b[i] = (char)i;
    printf("%d\n", a[100] + b[200]);
    return 0;
}
