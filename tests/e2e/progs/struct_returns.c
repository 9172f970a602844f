/* Structs with a pointer member returned by value (t_struct_names): `r.start = malloc(n);
 * return r;` in a function whose small struct clang returns in registers ({ i8*, i64 }: extern
 * make_buf; static make_local, whose result clang -O2 cuts down to the pointer) and a large one
 * returned in memory (sret: make_big). Each block is named after the caller's variable and the
 * member: b.start, l.start, g.start. */
#include <stdio.h>
#include <stdlib.h>

struct buf {
    char *start;
    size_t n;
};
struct big {
    char *start;
    size_t n, used, pad;
};

__attribute__((noinline)) struct buf make_buf(size_t n)
{
    struct buf r;
    r.start = malloc(n);
    r.n = n;
    return r;
}

__attribute__((noinline)) static struct buf make_local(size_t n)
{
    struct buf r;
    r.start = malloc(n);
    r.n = n + 1; /* not make_buf's code, which gcc -O2 would fold it into */
    return r;
}

__attribute__((noinline)) struct big make_big(size_t n)
{
    struct big r;
    r.start = malloc(n);
    r.n = n;
    r.used = r.pad = 0;
    return r;
}

int main(int argc, char **argv)
{
    size_t n = (size_t)(argc > 1 ? atoi(argv[1]) : 1 << 16);
    struct buf b = make_buf(n);
    struct buf l = make_local(n / 2);
    struct big g = make_big(n / 4);
    long s = 0;
    for (size_t i = 0; i < n; i += 64) b.start[i] = (char)1;
    for (size_t i = 0; i < n / 2; i += 64) l.start[i] = (char)2;
    for (size_t i = 0; i < n / 4; i += 64) g.start[i] = (char)3;
    for (size_t i = 0; i < n; i += 64) s += b.start[i];
    for (size_t i = 0; i < n / 2; i += 64) s += l.start[i];
    for (size_t i = 0; i < n / 4; i += 64) s += g.start[i];
    printf("%ld\n", s);
    free(b.start);
    free(l.start);
    free(g.start);
    return 0;
}
