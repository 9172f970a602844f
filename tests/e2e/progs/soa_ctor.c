/* A struct of arrays made by a constructor-like function called from two places (once through
 * a wrapper): each array is named after the caller's variable and the field it is stored in
 * (particles.x, grid.y), the structs after the callers' variables (issue 12, items 2 and 6). */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    double *x, *y;
    long n;
} soa;

__attribute__((noinline)) static soa *make_soa(long n)
{
    soa *s = malloc(sizeof *s);
    s->x = calloc((size_t)n, sizeof(double));
    s->y = calloc((size_t)n, sizeof(double));
    s->n = n;
    return s;
}

__attribute__((noinline)) static double sweep(const soa *s)
{
    double t = 0;
    for (long i = 0; i < s->n; i++) t += s->x[i] * s->y[i];
    return t;
}

__attribute__((noinline)) static soa *make_field(void) { return make_soa(3000); }

int main(void)
{
    soa *particles = make_soa(2000);
    soa *grid = make_field();
    for (long i = 0; i < particles->n; i++) particles->x[i] = particles->y[i] = (double)i;
    for (long i = 0; i < grid->n; i++) grid->x[i] = grid->y[i] = 1.0;
    printf("%g %g\n", sweep(particles), sweep(grid));
    return 0;
}
