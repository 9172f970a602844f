/* A threaded program with its own functions named like those memspy's runtime calls in zlib
 * and zstd (as a program that compiles zstd's sources in does, or one with a function called
 * crc32, here with another signature): the recording must never call them. Each of 4 threads
 * adds to its own 16384 doubles 4 times. Prints its own functions' calls: 1 (its crc32). */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#define N 16384
static double data[4][N];
static long own_calls;

int crc32(const char *s)
{
    int h = 0;
    own_calls++;
    while (*s) h = h * 31 + *s++;
    return h;
}

size_t ZSTD_compressStream2(void *cctx, void *out, void *in, int end)
{
    (void)cctx, (void)out, (void)in, (void)end;
    own_calls++;
    return (size_t)-1;
}

unsigned ZSTD_isError(size_t code)
{
    own_calls++;
    return code > (size_t)-120;
}

static void *work(void *arg)
{
    double *row = data[(long)arg];
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < N; i++) row[i] += i;
    return NULL;
}

int main(void)
{
    pthread_t t[3];
    for (long i = 0; i < 3; i++) pthread_create(&t[i], NULL, work, (void *)i);
    work((void *)3L);
    for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
    int crc = crc32("memspy");
    printf("crc %d, own calls %ld, sum %g\n", crc, own_calls, data[0][N - 1] + data[3][1]);
    return 0;
}
