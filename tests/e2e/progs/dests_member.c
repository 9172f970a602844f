#include <stdlib.h>
#include <stdio.h>
#include <string.h>
struct matcher { unsigned *hash; unsigned *son; unsigned count; };
struct coder { long state[5]; struct matcher mf; int level; };
static int matcher_init(struct matcher *mf, unsigned count)
{
    mf->count = count;
    mf->hash = calloc(count, sizeof *mf->hash);
    mf->son = malloc(count * sizeof *mf->son);
    return mf->hash && mf->son;
}
struct coder *coder_new(unsigned count)
{
    struct coder *coder = calloc(1, sizeof *coder);
    if (!coder || !matcher_init(&coder->mf, count)) return NULL;
    return coder;
}
int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 1u << 16;
    struct coder *c = coder_new(n);
    if (!c) return 1;
    unsigned long sum = 0;
    for (unsigned r = 0; r < 4; r++)
        for (unsigned i = 0; i < n; i++) {
            unsigned h = (i * 2654435761u) % n;
            c->mf.son[i] = c->mf.hash[h];
            c->mf.hash[h] = i;
        }
    for (unsigned i = 0; i < n; i++) sum += c->mf.son[i];
    printf("%lu\n", sum);
    return 0;
}
