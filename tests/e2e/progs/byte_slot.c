/* A block stored in a byte-pointer member of an array element reached through a cursor (xz's
 * initialize_new_thread: `worker_thread *thr = &coder->threads[coder->threads_initialized];
 * thr->in = lzma_alloc(...)`; t_names_paths): no type names a `uint8_t *` slot, its path does
 * (`thr.in`), not the allocator's local (`ptr`). */
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int state;
    unsigned char *in;
    size_t in_size;
} worker_thread;

typedef struct {
    worker_thread threads[4];
    int threads_initialized;
} stream_coder;

__attribute__((noinline)) void *coder_alloc(size_t size)
{
    void *ptr = malloc(size);
    return ptr;
}

__attribute__((noinline)) static int initialize_new_thread(stream_coder *coder, size_t size)
{
    worker_thread *thr = &coder->threads[coder->threads_initialized];
    thr->in = coder_alloc(size);
    if (thr->in == NULL) return 1;
    thr->in_size = size;
    thr->state = 1;
    coder->threads_initialized++;
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 5 ? (size_t)atoi(argv[1]) : 1 << 16;
    stream_coder c = { 0 };
    if (initialize_new_thread(&c, n)) return 1;
    long s = 0;
    for (size_t i = 0; i < c.threads[0].in_size; i += 64) s += c.threads[0].in[i] = 1;
    printf("%ld\n", s);
    return 0;
}
