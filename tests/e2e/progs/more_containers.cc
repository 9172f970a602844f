/* Heap objects kept in containers and smart pointers not yet named after them
 * (t_more_containers): a std::unique_ptr made into a local and moved into a member
 * (`member_ = std::move(p)`), `new T` stored through std::map's operator[] (`m[k] = new T`),
 * pushed into a std::list<T*> and emplaced into a std::unordered_map<K, T*>. */
#include <cstdio>
#include <cstdlib>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <utility>

struct Rec {
    double v[8];
    explicit Rec(int x)
    {
        for (int i = 0; i < 8; i++) v[i] = x + i;
    }
};

struct Holder {
    std::unique_ptr<Rec> member_;
    __attribute__((noinline)) void set(int i)
    {
        auto p = std::make_unique<Rec>(i);
        member_ = std::move(p);
    }
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 300;
    Holder h;
    h.set(7);
    std::map<int, Rec *> m;
    for (int i = 0; i < n; i++) m[i] = new Rec(i);
    std::list<Rec *> lst;
    for (int i = 0; i < n; i++) lst.push_back(new Rec(2 * i));
    std::unordered_map<int, Rec *> um;
    for (int i = 0; i < n; i++) um.emplace(i, new Rec(3 * i));
    double s = h.member_->v[1];
    for (int i = 0; i < n; i++) s += m[i]->v[2] + um[i]->v[3];
    for (Rec *r : lst) s += r->v[4];
    printf("%.0f\n", s);
    for (auto &kv : m) delete kv.second;
    for (Rec *r : lst) delete r;
    for (auto &kv : um) delete kv.second;
    return 0;
}
