/* An array of structs of which the hot loop (sum_x) reads one field (t_split.sh): each
 * 64-byte line it fetches holds one element, of which 8 bytes (x) are used. SOA (-DSOA): the
 * fix the advice asks for, x in an array of its own. */
#include <stdio.h>
#include <stdlib.h>

#define N 20000
#define PASSES 20

#ifndef SOA
struct rec {
    double x, y, z, w;
    char name[32];
};

__attribute__((noinline)) static double sum_x(const struct rec *recs)
{
    double sum = 0;
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i++) sum += recs[i].x;
    return sum;
}

int main(void)
{
    struct rec *recs = malloc(N * sizeof *recs);
    if (!recs) return 1;
    for (int i = 0; i < N; i++) recs[i].x = i, recs[i].y = recs[i].z = recs[i].w = 0, recs[i].name[0] = 0;
    printf("%.0f\n", sum_x(recs));
    return 0;
}
#else
struct rest {
    double y, z, w;
    char name[32];
};

__attribute__((noinline)) static double sum_x(const double *xs)
{
    double sum = 0;
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i++) sum += xs[i];
    return sum;
}

int main(void)
{
    double *xs = malloc(N * sizeof *xs);
    struct rest *rest = malloc(N * sizeof *rest);
    if (!xs || !rest) return 1;
    for (int i = 0; i < N; i++) xs[i] = i, rest[i].y = rest[i].z = rest[i].w = 0, rest[i].name[0] = 0;
    printf("%.0f\n", sum_x(xs));
    return 0;
}
#endif
