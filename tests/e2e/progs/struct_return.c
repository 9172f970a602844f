/* zstd's ZSTDMT_getBuffer (t_real_names): the allocation is carried by a local into a struct
 * returned by value; the block is named after where the caller keeps the struct. */
#include <stdio.h>
#include <stdlib.h>

typedef struct { void *start; size_t capacity; } buffer_t;

static void *custom_malloc(size_t n) { return malloc(n); }

__attribute__((noinline)) static buffer_t get_buffer(size_t size)
{
    buffer_t buffer;
    void *const start = custom_malloc(size);
    buffer.start = start;
    buffer.capacity = start == NULL ? 0 : size;
    return buffer;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)(argc > 5 ? atoi(argv[1]) : 1 << 20);
    buffer_t dstBuff = get_buffer(n);
    buffer_t srcBuff = get_buffer(n / 2);
    long s = 0;
    for (size_t i = 0; i < n; i += 64) ((char *)dstBuff.start)[i] = (char)i;
    for (size_t i = 0; i < n / 2; i += 64) s += ((char *)srcBuff.start)[i];
    for (size_t i = 0; i < n; i += 64) s += ((char *)dstBuff.start)[i];
    printf("%ld\n", s);
    free(dstBuff.start);
    free(srcBuff.start);
    return 0;
}
