/* A library built without memspy, without -g and stripped (t_libnames): its blocks are
 * allocated by a static helper (no symbol once stripped), its copies are memcpy calls from
 * an exported function and from a static one. tbl_head returns a block it allocated (one
 * per call: the caller's variable names it), tbl_create two (the library's name), tbl_scan
 * three of its own (a large one and two of one line). */
#include <stdlib.h>
#include <string.h>

static unsigned char last_rows[4096] __attribute__((aligned(64))); /* the library's own data: no symbol once stripped */

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

/* Fill the rows from src and keep its first 4096 bytes (memcpy calls, not tail calls). */
int tbl_fill(struct tbl *t, const unsigned char *src)
{
    memcpy(t->rows, src, t->n);
    size_t keep = t->n < sizeof last_rows ? t->n : sizeof last_rows;
    __asm__("" : "+r"(keep)); /* a size the compiler cannot see: a call of memcpy */
    memcpy(last_rows, src, keep);
    return t->rows[0] + last_rows[1];
}

/* Copy the rows out into dst reps times (static code's memcpy). */
void tbl_copy_out(const struct tbl *t, unsigned char *dst, int reps) { copy_rows(dst, t->rows, t->n, reps); }

/* A copy of the first n bytes of the rows in a block of its own, for the caller to free. */
unsigned char *tbl_head(const struct tbl *t, size_t n)
{
    unsigned char *h = grab(n);
    __asm__("" : "+r"(n)); /* a call of memcpy */
    memcpy(h, t->rows, n);
    return h;
}

/* Scan the rows through blocks of its own, freed before it returns (it returns an int): a
 * copy of the rows and two 64-byte ones (memcpy calls). */
int tbl_scan(const struct tbl *t)
{
    unsigned char *big = grab(t->n), *a = grab(64), *b = grab(64);
    size_t n = t->n, line = 64;
    __asm__("" : "+r"(n), "+r"(line)); /* calls of memcpy */
    memcpy(big, t->rows, n);
    memcpy(a, big, line);
    memcpy(b, big + line, line);
    int r = a[1] + b[1];
    free(big);
    free(a);
    free(b);
    return r;
}

void tbl_destroy(struct tbl *t)
{
    free(t->rows);
    free(t);
}
