/* A conditional store that clang -O3 -march=x86-64-v3 vectorises with masked stores
 * (t_plugin_llvm.sh): cond N reads a[0..N) and stores b[i] where a[i] > 0.5.
 * N = 992: 31 vector iterations of 4 x 8 floats, no scalar tail. */
#include <stdio.h>
#include <stdlib.h>

float a[1024] __attribute__((aligned(64))), b[1024] __attribute__((aligned(64)));

__attribute__((noinline)) void cond(int n) {
    for (int i = 0; i < n; i++)
        if (a[i] > 0.5f) b[i] = a[i] * 2;
}

int main(int argc, char **argv) {
    for (int i = 0; i < 1024; i++) a[i] = (float)(i % 3) * 0.4f;
    cond(argc > 1 ? atoi(argv[1]) : 992);
    printf("%g\n", b[5]);
    return 0;
}
