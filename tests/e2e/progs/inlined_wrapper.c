/* An allocation wrapper that gcc -O2 inlines and that returns its own parameter (pigz's
 * `alloc`: `ptr = realloc(ptr, size); ... return ptr;`): the caller's `job` then holds the
 * value whose SSA name keeps the wrapper's `ptr` as its variable, and a block stored in a
 * member of it, `job->buf = alloc(NULL, n)`, was named `ptr.buf`. */
#include <stdio.h>
#include <stdlib.h>

struct job {
    long seq;
    unsigned char *buf;
    size_t len;
};

static void *alloc(void *ptr, size_t size)
{
    ptr = realloc(ptr, size);
    if (ptr == NULL) abort();
    return ptr;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 100000;
    struct job *job = alloc(NULL, sizeof(struct job));
    job->seq = 1;
    job->len = n;
    job->buf = alloc(NULL, n);
    for (size_t i = 0; i < job->len; i++) job->buf[i] = (unsigned char)i;
    for (int r = 0; r < 20; r++)
        for (size_t i = 0; i < job->len; i++) job->buf[i] = (unsigned char)(job->buf[i] * 3 + i + r);
    unsigned sum = 0;
    for (size_t i = 0; i < job->len; i++) sum += job->buf[i];
    printf("%u\n", sum);
    return 0;
}
