/* A block arena in the manner of leveldb's Arena (t_arena_names): a class without
 * constructor, destructor or operator on the allocation's path, whose blocks come from one
 * member function (NewBlock) reached from two entry points (Allocate, AllocateAligned) and two
 * lines (a large record's own block, a shared block), used by three classes. The blocks are
 * kept in the arena's member vector (blocks_[]); the bins of that one name are told apart by
 * the first caller outside the arena (Table::Add, Index::Insert, Log::Append), which DWARF
 * shows to be a class's member functions where no frame's text does. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace kv {

class Arena {
  public:
    char *Allocate(size_t bytes)
    {
        if (bytes <= left_) return Take(bytes);
        return Fallback(bytes);
    }
    char *AllocateAligned(size_t bytes)
    {
        size_t pad = (8 - ((size_t)ptr_ & 7)) & 7;
        if (bytes + pad <= left_) {
            ptr_ += pad;
            left_ -= pad;
            return Take(bytes);
        }
        return Fallback(bytes);
    }
    std::vector<char *> blocks_;

  private:
    char *Take(size_t bytes)
    {
        char *r = ptr_;
        ptr_ += bytes;
        left_ -= bytes;
        return r;
    }
    __attribute__((noinline)) char *Fallback(size_t bytes);
    __attribute__((noinline)) void NewBlock(size_t bytes);
    char *ptr_ = nullptr;
    size_t left_ = 0;
};

void Arena::NewBlock(size_t bytes) { blocks_.push_back(new char[bytes]); }

char *Arena::Fallback(size_t bytes)
{
    if (bytes > 1024) { /* a large record: its own block */
        NewBlock(bytes);
        return blocks_.back();
    }
    NewBlock(4096);
    ptr_ = blocks_.back();
    left_ = 4096;
    return Take(bytes);
}

class Table {
  public:
    __attribute__((noinline)) void Add(int i)
    {
        char *p = arena_.Allocate(100);
        memset(p, i, 100);
        sum_ += p[7];
    }
    long sum_ = 0;
    Arena arena_;
};

class Index {
  public:
    __attribute__((noinline)) void Insert(int i)
    {
        long *p = (long *)arena_.AllocateAligned(64);
        for (int k = 0; k < 8; k++) p[k] = i + k;
        sum_ += p[3];
    }
    long sum_ = 0;
    Arena arena_;
};

class Log {
  public:
    __attribute__((noinline)) void Append(int i)
    {
        char *p = arena_.Allocate(2000);
        memset(p, i, 2000);
        sum_ += p[1999];
    }
    long sum_ = 0;
    Arena arena_;
};

} // namespace kv

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 400;
    kv::Table t;
    kv::Index x;
    kv::Log l;
    for (int i = 0; i < n; i++) {
        t.Add(i & 63);
        x.Insert(i);
        if (i % 10 == 0) l.Append(i & 63);
    }
    printf("%ld %zu %zu %zu\n", t.sum_ + x.sum_ + l.sum_, t.arena_.blocks_.size(), x.arena_.blocks_.size(),
           l.arena_.blocks_.size());
    return 0;
}
