/* An instrumented program over an uninstrumented, stripped library (t_libnames): the
 * library allocates a 1 MiB table and copies it with memcpy, which memspy sees through its
 * interposed memcpy with pcs in the library; the block tbl_head returns is named head. */
#include <stdio.h>
#include <stdlib.h>

struct tbl;
struct tbl *tbl_create(size_t n);
int tbl_fill(struct tbl *t, const unsigned char *src);
void tbl_copy_out(const struct tbl *t, unsigned char *dst, int reps);
unsigned char *tbl_head(const struct tbl *t, size_t n);
int tbl_scan(const struct tbl *t);
void tbl_destroy(struct tbl *t);

#define N (1u << 20)

int main(void)
{
    unsigned char *src = malloc(N), *dst = malloc(N);
    for (size_t i = 0; i < N; i++) src[i] = (unsigned char)i;
    struct tbl *t = tbl_create(N);
    long sum = tbl_fill(t, src);
    tbl_copy_out(t, dst, 4);
    for (size_t i = 0; i < N; i += 4096) sum += dst[i];
    unsigned char *head = tbl_head(t, 65536); /* allocated by the library, returned */
    for (size_t i = 0; i < 65536; i += 64) sum += head[i];
    free(head);
    sum += tbl_scan(t);
    printf("%ld\n", sum);
    tbl_destroy(t);
    free(src);
    free(dst);
    return 0;
}
