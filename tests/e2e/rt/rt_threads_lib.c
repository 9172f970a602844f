/* Shared library for rt_threads libctor: its constructor starts two threads (before main)
 * and joins them; the program reads their result. */
#include <pthread.h>

static double rows[2][256];
static double result;

static void *fill(void *arg) {
    double *row = arg;
    for (int i = 0; i < 256; i++) row[i] = i;
    return NULL;
}

__attribute__((constructor)) static void start_threads(void) {
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, fill, rows[i]);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    for (int i = 0; i < 256; i++) result += rows[0][i] + rows[1][i];
}

double rt_threads_lib_result(void) { return result; }
