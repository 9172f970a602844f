// leveldb's pattern (t_real_names): strings that the C++ library grows on the program's behalf
// (std::string::append, _M_mutate in libstdc++.so): each block is named after the program's
// string, a member of an object (`data_` in a constructor, `rep_` in a member function). And
// a const table in an anonymous namespace, as leveldb's crc32c tables: `store::kTable`.
#include <cstdio>
#include <string>

namespace store {
namespace {
const unsigned kTable[256] = { 1, 2, 3 };
}
} // namespace store

struct Gen {
    int id = 1;
    std::string data_;
    Gen()
    {
        std::string piece(100, 'x');
        while (data_.size() < (1u << 20)) data_.append(piece);
    }
};

struct Batch {
    int id = 2;
    std::string rep_;
    void Put(const char *k, size_t n) { rep_.append(k, n); }
};

int main(int argc, char **)
{
    Gen g;
    Batch b;
    for (int i = 0; i < 20000; i++) b.Put(g.data_.data() + (i * 97) % 1000000, 50);
    long s = 0;
    for (int r = 0; r < 4; r++)
        for (size_t i = 0; i < b.rep_.size(); i += 64) s += b.rep_[i];
    for (size_t i = 0; i < g.data_.size(); i += 64) s += g.data_[i];
    for (int i = argc; i < 256 + argc; i += 16) s += store::kTable[i & 255];
    std::printf("%ld\n", s);
    return 0;
}
