/* A library built without memspy, without -g and stripped (t_libnames): its blocks are
 * allocated by a static helper (no symbol once stripped), its copies are memcpy calls from
 * an exported function and from a static one. */
#include <stdlib.h>
#include <string.h>

struct tbl {
    size_t n;
    unsigned char *rows;
};

__attribute__((noinline)) static void *grab(size_t n)
{
    void *p = malloc(n);
    if (!p) abort();
    return p;
}

__attribute__((noinline)) static void copy_rows(unsigned char *dst, const unsigned char *src, size_t n, int reps)
{
    for (int r = 0; r < reps; r++) {
        memcpy(dst, src, n);
        __asm__ volatile("" ::: "memory");
    }
}

/* A table of n bytes of rows. */
struct tbl *tbl_create(size_t n)
{
    struct tbl *t = grab(sizeof *t);
    t->n = n;
    t->rows = grab(n);
    return t;
}

/* Fill the rows from src (one memcpy, not a tail call); returns the first row byte. */
int tbl_fill(struct tbl *t, const unsigned char *src)
{
    memcpy(t->rows, src, t->n);
    return t->rows[0];
}

/* Copy the rows out into dst reps times (static code's memcpy). */
void tbl_copy_out(const struct tbl *t, unsigned char *dst, int reps) { copy_rows(dst, t->rows, t->n, reps); }

void tbl_destroy(struct tbl *t)
{
    free(t->rows);
    free(t);
}
