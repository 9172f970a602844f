#include <map>
#include <vector>
#include <string>
#include <cstdio>
template <class K, class V> struct Index { std::map<K, std::vector<V>> m; void add(const K &k, const V &v) { m[k].push_back(v); } };
int main() {
    Index<std::string, std::pair<int, double>> idx;
    for (int i = 0; i < 20000; i++) idx.add(std::to_string(i % 500), {i, i * 0.5});
    double s = 0;
    for (auto &kv : idx.m) for (auto &p : kv.second) s += p.second;
    printf("%g\n", s);
}
