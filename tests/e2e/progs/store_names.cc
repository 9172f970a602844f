/* Heap blocks held in a local first, then stored into a named place (t_store_names): the place
 * names the block, not the local. An arena whose AllocateNewBlock keeps each block in a member
 * vector and returns it (leveldb's util/arena.cc: `blocks_[]`, not the callers' `result`),
 * `T *p = new T; v.push_back(p)` (`items[]`), a C-style struct member assigned from a local
 * (`g.cells`), a global assigned from a local (`last_item`), and locals that stay locals: never
 * stored (`double*.Y`), or stored only into the block itself (`Ring*.r`, `r->next = r`), and a
 * local pointer declared before the allocation stored into it (`double*.w`). */
#include <cstdio>
#include <cstdlib>
#include <vector>

class Arena {
public:
    Arena() : alloc_ptr_(nullptr), alloc_bytes_remaining_(0) {}
    ~Arena()
    {
        for (char *b : blocks_) delete[] b;
    }
    char *Allocate(size_t bytes)
    {
        if (bytes <= alloc_bytes_remaining_) {
            char *result = alloc_ptr_;
            alloc_ptr_ += bytes;
            alloc_bytes_remaining_ -= bytes;
            return result;
        }
        return AllocateFallback(bytes);
    }

private:
    static const size_t kBlockSize = 4096;
    __attribute__((noinline)) char *AllocateFallback(size_t bytes)
    {
        if (bytes > kBlockSize / 4) {
            char *result = AllocateNewBlock(bytes);
            return result;
        }
        alloc_ptr_ = AllocateNewBlock(kBlockSize);
        alloc_bytes_remaining_ = kBlockSize;
        char *result = alloc_ptr_;
        alloc_ptr_ += bytes;
        alloc_bytes_remaining_ -= bytes;
        return result;
    }
    __attribute__((noinline)) char *AllocateNewBlock(size_t block_bytes)
    {
        char *result = new char[block_bytes];
        blocks_.push_back(result);
        return result;
    }
    char *alloc_ptr_;
    size_t alloc_bytes_remaining_;
    std::vector<char *> blocks_;
};

struct Item {
    double v[8];
};

struct grid {
    int n;
    double *cells;
};

struct Ring {
    Ring *next;
    double v[7];
};

Item *last_item;

struct Obj {
    Obj *next;
    double v[7];
};
Obj *all_objs; /* every Obj, an intrusive list: its head names no block */

__attribute__((noinline)) Obj *obj_new(void)
{
    Obj *o = (Obj *)malloc(sizeof *o);
    o->next = all_objs;
    all_objs = o;
    return o;
}

/* Out of line: the blocks escape (clang -O2 removes a block that only its function uses). */
__attribute__((noinline)) double cell_sum(const struct grid *g)
{
    double s = 0;
    for (int i = 0; i < g->n; i++) s += g->cells[i];
    return s;
}

__attribute__((noinline)) double first_sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++) s += v[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    Arena arena;
    double s = 0;
    for (int i = 0; i < n; i++) { /* 64 per block of 4096 */
        char *p = arena.Allocate(64);
        p[0] = 1;
        s += p[0];
    }
    for (int i = 0; i < 3; i++) { /* a block of its own each */
        char *p = arena.Allocate(2000);
        p[1999] = 1;
        s += p[1999];
    }
    std::vector<Item *> items;
    for (int i = 0; i < n; i++) {
        Item *it = new Item;
        it->v[0] = i;
        items.push_back(it);
    }
    for (int i = 0; i < n; i++) {
        Item *q = new Item;
        q->v[1] = 2 * i;
        last_item = q;
        s += last_item->v[1];
    }
    struct grid *g = (struct grid *)malloc(sizeof *g);
    double *cells = (double *)calloc((size_t)(unsigned)n, sizeof(double));
    g->n = n;
    g->cells = cells;
    double *Y = (double *)malloc((size_t)(unsigned)n * sizeof(double));
    for (int i = 0; i < n; i++) Y[i] = i;
    Ring *r = new Ring;
    r->next = r;
    r->v[0] = 3;
    for (int i = 0; i < n; i++) {
        g->cells[i] = Y[i] + items[i]->v[0];
        s += r->next->v[0];
    }
    s += cell_sum(g);
    for (int i = 0; i < 100; i++) {
        Obj *ob = obj_new();
        ob->v[0] = i;
    }
    for (Obj *o = all_objs; o; o = o->next) s += o->v[0];
    double *w; /* a local declared before the allocation stored into it */
    w = (double *)malloc(16 * sizeof(double));
    for (int i = 0; i < 16; i++) w[i] = i;
    s += first_sum(w, 16) - 120; /* adds 0 */
    free(w);
    printf("store_names ran: %.0f\n", s);
    for (int i = 0; i < n; i++) delete items[i];
    free(g->cells);
    free(g);
    free(Y);
    delete r;
    return 0;
}
