/* Every kind of data bin: globals, a function static, stack arrays, heap objects from one
 * site reached by two call paths, and a member assigned from calloc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int n;
    double *vals;
} Vec;

double table[2048];                 /* global */
volatile int count_a, count_b;      /* small globals sharing a 16-byte granule */

static double *make_buffer(int n)
{
    double *buf = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; i++)
        buf[i] = i;
    return buf;
}

/* Write and read their caller's stack array through a pointer (every compiler instruments
 * these): the bin is the owner's stack, the code is fill or total. Recurrences, so that no
 * compiler vectorizes them and the counts are exact. */
__attribute__((noinline)) static void fill(double *p, int n)
{
    p[0] = 0.5;
    for (int i = 1; i < n; i++)
        p[i] = p[i - 1] * 0.5 + i;
}

__attribute__((noinline)) static double total(const double *p, int size, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s = s * 0.5 + p[i % size];
    return s;
}

__attribute__((noinline)) static double sum_local(int n)
{
    double scratch[512];            /* stack of sum_local */
    fill(scratch, 512);
    return total(scratch, 512, n);
}

static int counter_bump(void)
{
    static int hits[64];            /* function static */
    for (int i = 0; i < 64; i++)
        hits[i]++;
    return hits[0];
}

int main(void)
{
    Vec *v = malloc(sizeof *v);
    v->n = 1000;
    v->vals = calloc((size_t)v->n, sizeof(double));
    for (int i = 0; i < v->n; i++)
        v->vals[i] = i;
    double *first = make_buffer(3000);
    double *second = make_buffer(5000);
    for (int i = 0; i < 2048; i++)
        table[i] = first[i % 3000] + second[i % 5000];
    char *copy = malloc(8192);
    memcpy(copy, second, 8192);
    memset(copy, 0, 4096);
    for (int r = 0; r < 100; r++) {
        count_a = count_a + 1;
        count_b = count_b + 2;
        count_b = count_b + 2;
    }
    int h = 0;
    for (int r = 0; r < 10; r++)
        h += counter_bump();
    double s = sum_local(10000) + table[5] + v->vals[7] + copy[5000];
    printf("%.1f %d\n", s, h);
    free(first);
    free(second);
    free(copy);
    free(v->vals);
    free(v);
    return 0;
}
