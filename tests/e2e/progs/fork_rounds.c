/* A serial update before each of ROUNDS parallel sums (argument 1, default 4): the team waits
 * at the fork while the master runs the serial loop. One synchronisation point per code
 * location, however many times the region runs (t_wait_points). */
#include <stdio.h>
#include <stdlib.h>

static double a[1 << 16];

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    double s = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < (1 << 16); i++) a[i] = a[i] * 0.5 + i;
#pragma omp parallel for reduction(+ : s)
        for (int i = 0; i < (1 << 16); i++) s += a[i];
    }
    printf("%f\n", s);
    return 0;
}
