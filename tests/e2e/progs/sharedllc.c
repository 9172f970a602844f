/* Two threads, each streaming over an array of its own, KIB KiB of each (argv[1], at most 4096),
 * PASSES times (argv[2]): thread 0 reads `left`, one byte per 64-byte line, thread 1 `right`,
 * two bytes per line (so in a round-robin replay it moves through its lines half as fast, and
 * the two streams do not fill each set in lockstep). Nothing is shared, so every miss beyond
 * the first pass is the arrays' own size against the cache: a private cache level sees one
 * array, a shared one both. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_BYTES (4096u << 10)

static _Alignas(64) unsigned char left[MAX_BYTES], right[MAX_BYTES];
static size_t nbytes;
static int passes;
static pthread_barrier_t start;

typedef struct {
    const unsigned char *a;
    size_t step; /* bytes between two reads */
    unsigned sum;
} sweep_arg;

static void *sweep(void *p)
{
    sweep_arg *s = p;
    unsigned sum = 0;
    pthread_barrier_wait(&start);
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = 0; i < nbytes; i += s->step) sum += s->a[i];
    s->sum = sum;
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned long kib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1536;
    passes = argc > 2 ? atoi(argv[2]) : 4;
    if (kib == 0 || kib > MAX_BYTES >> 10 || passes < 1) {
        fprintf(stderr, "usage: sharedllc [KIB (1..4096)] [PASSES]\n");
        return 2;
    }
    nbytes = (size_t)kib << 10;
    pthread_barrier_init(&start, NULL, 2);
    sweep_arg args[2] = { { left, 64, 0 }, { right, 32, 0 } };
    pthread_t t;
    pthread_create(&t, NULL, sweep, &args[1]);
    sweep(&args[0]);
    pthread_join(t, NULL);
    printf("kib=%lu passes=%d sum=%u\n", kib, passes, args[0].sum + args[1].sum);
    return 0;
}
