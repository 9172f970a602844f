/* One OpenMP loop over an array, with the schedule named by argv[1] (static or dynamic), for
 * t_omp_dynamic. */
#include <stdio.h>
#include <string.h>

static double a[4096];

int main(int argc, char **argv)
{
    int dynamic = argc > 1 && strcmp(argv[1], "dynamic") == 0;
    if (dynamic) {
#pragma omp parallel for schedule(dynamic, 64) num_threads(3)
        for (int i = 0; i < 4096; i++) a[i] = i * 0.5;
    } else {
#pragma omp parallel for schedule(static) num_threads(3)
        for (int i = 0; i < 4096; i++) a[i] = i * 0.5;
    }
    printf("a[4095]=%g\n", a[4095]);
    return 0;
}
