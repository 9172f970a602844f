/* Chained hash table of the replay's synchronisation objects. */
#include "sync_table.h"
#include <stdlib.h>

static void free_obj(sync_obj *o)
{
    if (o->type == SYNC_COND) free(o->u.cond.pending);
    if (o->type == SYNC_ATOMIC) {
        if (o->u.atomic.seqs != &o->u.atomic.seq1) free(o->u.atomic.seqs);
        if (o->u.atomic.done != &o->u.atomic.done1) free(o->u.atomic.done);
        return; /* its block's */
    }
    free(o);
}

/* An atomic's address keeps its low bits: the 4-byte words of one 512-byte block take
 * consecutive buckets (the block's number is hashed), so that a program's flags side by side
 * (ptri's Ready[], looked up a million times out of order) share the cache lines of the
 * bucket array instead of missing on one each. */
static size_t bucket_of(size_t nbuckets, sync_type type, uint64_t a, uint64_t b)
{
    uint64_t near = 0;
    if (type == SYNC_ATOMIC) {
        near = a >> 2;
        a >>= 9;
    }
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)type << 59)) * 0xff51afd7ed558ccdull;
    return (size_t)((h ^ (h >> 32)) + near) & (nbuckets - 1);
}

sync_obj *sync_find(const sync_table *t, sync_type type, uint64_t a, uint64_t b)
{
    if (!t->nbuckets) return NULL;
    for (sync_obj *o = t->buckets[bucket_of(t->nbuckets, type, a, b)]; o; o = o->next)
        if (o->a == a && o->b == b && o->type == type) return o;
    return NULL;
}

/* Double the buckets (keeping the load factor at most 1). Returns 0 or -1. */
static int grow(sync_table *t)
{
    size_t n = t->nbuckets ? 2 * t->nbuckets : 64;
    sync_obj **buckets = calloc(n, sizeof *buckets);
    if (!buckets) return -1;
    for (size_t i = 0; i < t->nbuckets; i++) {
        for (sync_obj *o = t->buckets[i], *next; o; o = next) {
            next = o->next;
            size_t k = bucket_of(n, o->type, o->a, o->b);
            o->next = buckets[k];
            buckets[k] = o;
        }
    }
    free(t->buckets);
    t->buckets = buckets;
    t->nbuckets = n;
    return 0;
}

sync_obj *sync_get(sync_table *t, sync_type type, uint64_t a, uint64_t b)
{
    sync_obj *o = sync_find(t, type, a, b);
    if (o) return o;
    if (t->nobjs >= t->nbuckets && grow(t) < 0) return NULL;
    if (type == SYNC_ATOMIC) {
        if (!t->pool || t->pool->used == SYNC_POOL_OBJS) {
            sync_pool *p = calloc(1, sizeof *p);
            if (!p) return NULL;
            p->next = t->pool;
            t->pool = p;
        }
        o = &t->pool->obj[t->pool->used++];
    } else if (!(o = calloc(1, sizeof *o))) {
        return NULL;
    }
    o->type = type;
    o->a = a;
    o->b = b;
    size_t k = bucket_of(t->nbuckets, type, a, b);
    o->next = t->buckets[k];
    t->buckets[k] = o;
    t->nobjs++;
    return o;
}

void sync_remove(sync_table *t, sync_obj *o)
{
    for (sync_obj **p = &t->buckets[bucket_of(t->nbuckets, o->type, o->a, o->b)]; *p; p = &(*p)->next) {
        if (*p == o) {
            *p = o->next;
            t->nobjs--;
            free_obj(o);
            return;
        }
    }
}

void sync_table_free(sync_table *t)
{
    for (size_t i = 0; i < t->nbuckets; i++) {
        for (sync_obj *o = t->buckets[i], *next; o; o = next) {
            next = o->next;
            free_obj(o);
        }
    }
    for (sync_pool *p = t->pool, *next; p; p = next) {
        next = p->next;
        free(p);
    }
    free(t->buckets);
    t->buckets = NULL;
    t->pool = NULL;
    t->nbuckets = t->nobjs = 0;
}
