/* Out-parameters (t_names_paths): xz's lzma_lzma_encoder_create allocates into *coder_ptr,
 * called as create(&lz->coder) by lzma_encoder_init; the block is named after the caller's
 * argument (lz.coder), not the parameter (coder_ptr); a function that passes its own
 * out-parameter on (table_create) gives way to its caller's argument (table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int kind;
    void *coder;
} lz_encoder;

typedef struct {
    lz_encoder lz;
    long pos;
} next_coder;

__attribute__((noinline)) static int coder_create(void **coder_ptr, size_t size)
{
    if (*coder_ptr == NULL) {
        *coder_ptr = malloc(size);
        if (*coder_ptr == NULL) return 1;
    }
    memset(*coder_ptr, 1, size);
    return 0;
}

__attribute__((noinline)) static int encoder_init(lz_encoder *lz, size_t size)
{
    lz->kind = 1;
    return coder_create(&lz->coder, size);
}

__attribute__((noinline)) static int table_create(void **table_ptr, size_t size)
{
    return coder_create(table_ptr, size) ? 2 : 0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 5 ? (size_t)atoi(argv[1]) : 1 << 18;
    next_coder next = { { 0, NULL }, 0 };
    void *table = NULL;
    if (encoder_init(&next.lz, n) || table_create(&table, n / 2)) return 1;
    long s = 0;
    for (size_t i = 0; i < n; i += 64) s += ((char *)next.lz.coder)[i];
    for (size_t i = 0; i < n / 2; i += 64) s += ((char *)table)[i];
    printf("%ld\n", s);
    free(next.lz.coder);
    free(table);
    return 0;
}
