/* memcpy and memset of a length known only at run time, 0 here, beside one of 8 bytes: an
 * empty copy touches no memory and records nothing (an empty access once made the recorded
 * streams undecodable: leveldb's db_bench). Two threads (threaded replay) or one (argument 1). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char a[256], b[256];
static volatile size_t n0 = 0, n8 = 8;

static void *work(void *arg)
{
    for (int i = 0; i < 1000; i++) {
        size_t zero = n0, eight = n8;
        memcpy(a, b, zero);
        memset(a + 64, i, zero);
        memcpy(a + 128, b + 8, eight);
    }
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t t;
    int threads = argc < 2 || atoi(argv[1]) != 1;
    if (threads) pthread_create(&t, NULL, work, NULL);
    work(NULL);
    if (threads) pthread_join(t, NULL);
    printf("%d\n", a[128] + a[0]);
    return 0;
}
