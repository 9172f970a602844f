/* A block that realloc moves (tests/e2e/t_names.sh): libc copies the 16 ints written first
 * (72 usable bytes: 2 cache lines), references of the program to its block `v`. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int *v = malloc(16 * sizeof *v);
    for (int i = 0; i < 16; i++)
        v[i] = i;
    int *old = v;
    v = realloc(v, (size_t)1 << 20);   /* 1 MiB: glibc maps a new chunk, the block moves */
    long s = 0;
    for (int i = 0; i < 16; i++)
        s += v[i];
    printf("%ld %s\n", s, v != old ? "moved" : "in place");
    free(v);
    return 0;
}
