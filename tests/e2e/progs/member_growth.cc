// A class whose members grow inside the C++ library (t_member_names): a std::string member
// appended to in a loop (its blocks allocated by libstdc++'s _M_mutate/_M_create, a library
// without DWARF) and a std::vector member push_back'd (its blocks allocated by operator new
// from inline std:: code, out of line at -O0). Each block is named after its member.
#include <cstdio>
#include <string>
#include <vector>

struct Journal {
    int id = 7;
    std::string text_;
    std::vector<long> offsets_;
    void Add(const char *s, size_t n)
    {
        offsets_.push_back((long)text_.size());
        text_.append(s, n);
    }
};

int main(int argc, char **)
{
    Journal j;
    char line[32];
    for (int i = 0; i < 20000; i++) {
        int n = std::snprintf(line, sizeof line, "entry %05d;", i * argc);
        j.Add(line, (size_t)n);
    }
    long s = 0;
    for (size_t i = 0; i < j.offsets_.size(); i++) s += j.text_[(size_t)j.offsets_[i] + 6];
    std::printf("%ld %zu %zu\n", s, j.text_.size(), j.offsets_.size());
    return 0;
}
