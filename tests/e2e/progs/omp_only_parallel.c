/* An OpenMP program whose only OpenMP call is the parallel region itself (GOMP_parallel with
 * gcc): no omp_* function, no loop construct. The runtime interposes GOMP_parallel, so the
 * OpenMP library must still be linked (it was dropped by --as-needed: a crash at the region). */
#include <stdio.h>

static int hits[64];

int main(void)
{
#pragma omp parallel
    {
        hits[0] = 1;
    }
    printf("hits=%d\n", hits[0]);
    return 0;
}
