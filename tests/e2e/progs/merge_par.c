/* Parallel arrays read together at the same index, every eighth element (t_split.sh): each
 * line of x and of y that dot fetches has 8 of its 64 bytes used. AOS (-DAOS): the fix the
 * advice asks for, x[i] and y[i] side by side in one array of structs (one line per index,
 * not two). */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 17)
#define PASSES 10

#ifndef AOS
__attribute__((noinline)) static double dot(const double *x, const double *y)
{
    double sum = 0;
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i += 8) sum += x[i] * y[i];
    return sum;
}

int main(void)
{
    double *x = malloc(N * sizeof *x);
    double *y = malloc(N * sizeof *y);
    if (!x || !y) return 1;
    for (int i = 0; i < N; i++) x[i] = i, y[i] = 1;
    printf("%.0f\n", dot(x, y));
    return 0;
}
#else
struct xy {
    double x, y;
};

__attribute__((noinline)) static double dot(const struct xy *xy)
{
    double sum = 0;
    for (int p = 0; p < PASSES; p++)
        for (int i = 0; i < N; i += 8) sum += xy[i].x * xy[i].y;
    return sum;
}

int main(void)
{
    struct xy *xy = malloc(N * sizeof *xy);
    if (!xy) return 1;
    for (int i = 0; i < N; i++) xy[i].x = i, xy[i].y = 1;
    printf("%.0f\n", dot(xy));
    return 0;
}
#endif
