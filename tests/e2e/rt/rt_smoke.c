/* Runtime smoke-test program: one behaviour per mode (argv[1]); prints a deterministic line
 * so stdout can be compared with and without the runtime. */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 1000

double table[64];                  /* a GLOBAL bin */

__attribute__((noinline)) void fill(double *a, int n) {
    for (int i = 0; i < n; i++) a[i] = i * 0.5;
}

__attribute__((noinline)) double sum(const double *a, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    return s;
}

/* The measured loop: exactly N writes and N reads of one malloc'd array. */
static int mode_loop(void) {
    double *a = malloc(N * sizeof *a);
    fill(a, N);
    printf("sum %g\n", sum(a, N));
    free(a);
    return 0;
}

static jmp_buf jb;
__attribute__((noinline)) void deep(int d) {
    volatile int local[4] = {d, d, d, d};
    if (d == 0) longjmp(jb, 1);
    deep(d - 1);
    table[d % 64] += local[0];
}

/* longjmp out of a recursion, then keep working: the shadow stack must resynchronise. */
static int mode_longjmp(void) {
    for (int k = 0; k < 3; k++)
        if (!setjmp(jb)) deep(50);
    double *a = malloc(N * sizeof *a);
    fill(a, N);
    printf("sum %g\n", sum(a, N));
    free(a);
    return 0;
}

/* Interposed string functions: a 4000-byte memcpy and a strlen of 99 characters. */
static int mode_strings(void) {
    char *src = malloc(4000), *dst = malloc(4000);
    memset(src, 'x', 4000);
    src[99] = 0;
    memcpy(dst, src, 4000);
    printf("len %zu\n", strlen(dst));
    free(src);
    free(dst);
    return 0;
}

static void *worker(void *arg) {
    double *a = arg;
    fill(a, N);
    return NULL;
}

/* Two threads each write their own array once: 2*N writes, flushed at thread exit. */
static int mode_threads(void) {
    pthread_t t[2];
    double *a[2];
    for (int i = 0; i < 2; i++) {
        a[i] = malloc(N * sizeof(double));
        pthread_create(&t[i], NULL, worker, a[i]);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    printf("sum %g\n", sum(a[0], N) + sum(a[1], N));
    free(a[0]);
    free(a[1]);
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "loop";
    for (int i = 0; i < 64; i++) table[i] = i;
    if (!strcmp(mode, "loop")) return mode_loop();
    if (!strcmp(mode, "exit3")) { mode_loop(); exit(3); }
    if (!strcmp(mode, "longjmp")) return mode_longjmp();
    if (!strcmp(mode, "strings")) return mode_strings();
    if (!strcmp(mode, "threads")) return mode_threads();
    mode_loop();
    fflush(stdout);
    if (!strcmp(mode, "segv")) { volatile int *p = (int *)16; *p = 1; }
    if (!strcmp(mode, "abort")) abort();
    if (!strcmp(mode, "_exit")) _exit(4);
    if (!strcmp(mode, "kill")) raise(SIGTERM);
    return 2;
}
