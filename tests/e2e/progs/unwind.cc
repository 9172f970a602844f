// C++: operator new attributed to the user's statement; exceptions keep the shadow stack.
#include <cstdio>
#include <stdexcept>
#include <vector>

struct Node {
    double v[8];
};

namespace stats {
// A member function: its code bin is named with class and namespace.
struct Accumulator {
    double bucket[16];
    __attribute__((noinline)) void add(int i, double v) { bucket[i & 15] = bucket[i & 15] * 0.5 + v; }
};
} // namespace stats

__attribute__((noinline)) static void thrower(int d)
{
    if (d == 0)
        throw std::runtime_error("unwind");
    thrower(d - 1);
}

__attribute__((noinline)) static Node *make_node()
{
    Node *made = new Node();
    for (int i = 0; i < 8; i++)
        made->v[i] = i;
    return made;
}

int main()
{
    try {
        thrower(30);
    } catch (const std::exception &) {
    }
    Node *n = make_node();
    std::vector<double> samples(1000);
    for (int i = 0; i < 1000; i++)
        samples[i] = i * n->v[3];
    double s = 0;
    for (double x : samples)
        s += x;
    static stats::Accumulator acc;
    for (int i = 0; i < 100; i++)
        acc.add(i, samples[i]);
    s += acc.bucket[3];
    std::printf("%.0f\n", s);
    delete n;
    return 0;
}
