/* Test program for t_threads_omp.sh: one parallel region of 3 threads with a static loop
 * (its barrier), a critical section, a named critical section and an omp lock. */
#include <omp.h>
#include <stdio.h>
#define N 3000
static double a[N];
/* one sum per lock: the three sections exclude only themselves, not each other */
static double total_critical, total_named, total_locked;
static omp_lock_t lock;

int main(void) {
    omp_init_lock(&lock);
#pragma omp parallel num_threads(3)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) a[i] = i;
#pragma omp critical
        total_critical += a[omp_get_thread_num()];
#pragma omp critical(named)
        total_named += 1;
        omp_set_lock(&lock);
        total_locked += 1;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    printf("total %g\n", total_critical + total_named + total_locked);
    return 0;
}
