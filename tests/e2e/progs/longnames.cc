// Issue 11 (t_result_names): a small C++ workload whose names are long. The namespace NS is
// chosen by the build (-DNS=...) and every template below carries it (the tag types are in
// it), so every frame of every allocation's call path -- std::map and std::vector internals
// included -- names it: the same bins with names as long as the build likes.
#include <cstdio>
#include <map>
#include <string>
#include <vector>
#ifndef NS
#define NS ns
#endif
namespace NS {
template <int N> struct Tag {
    double x;
};
template <class T> struct Index {
    std::map<std::string, std::vector<std::pair<int, T>>> m;
    void add(const std::string &k, int i, T v) { m[k].push_back({ i, v }); }
    double sum() const
    {
        double s = 0;
        for (auto &kv : m)
            for (auto &p : kv.second) s += p.second.x;
        return s;
    }
};
template <class T> double fill(int n)
{
    Index<T> idx;
    for (int i = 0; i < n; i++) idx.add(std::to_string(i % 300), i, T{ i * 0.5 });
    return idx.sum();
}
} // namespace NS
int main()
{
    double s = NS::fill<NS::Tag<1>>(4000) + NS::fill<NS::Tag<2>>(4000) + NS::fill<NS::Tag<3>>(4000);
    printf("%g\n", s);
}
