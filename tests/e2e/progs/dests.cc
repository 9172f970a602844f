// C++ heap data named from the plugin's records with the source deleted (tests/e2e/t_dests.sh):
// a std::vector declared in main, an arena object whose constructor allocates its members (a
// vector and a block from new[]), a node made by a function that fills it before returning it,
// a vector member that grows by push_back (Graph::edges), an object built by its constructor
// from new (new Vec3(...)), and a new[] in main whose debug
// bindings g++ -O2 drops (raw: named from the variable the compiler still declares).
#include <cstdio>
#include <vector>

struct Node {
    double v[8];
};

struct Arena {
    std::vector<double> cells_;
    double *block_;
    explicit Arena(int n) : cells_(n) { block_ = new double[n]; }
    ~Arena() { delete[] block_; }
};

struct Graph {
    std::vector<int> edges;
    void add(int e) { edges.push_back(e); }
};

struct Vec3 {
    double x, y, z;
    Vec3(double a, double b, double c) : x(a), y(b), z(c) {}
};

__attribute__((noinline)) static Node *make_node()
{
    Node *made = new Node();
    for (int i = 0; i < 8; i++)
        made->v[i] = i;
    return made;
}

int main(int argc, char **)
{
    std::vector<double> samples(1000);
    for (int i = 0; i < 1000; i++)
        samples[i] = i;
    Node *n = make_node();
    Arena a(500);
    for (int i = 0; i < 500; i++) {
        a.cells_[i] = i;
        a.block_[i] = 2 * i;
    }
    Graph g;
    for (int i = 0; i < 3000; i++)
        g.add(i);
    double *raw = new double[100 + argc];
    for (int i = 0; i < 100 + argc; i++)
        raw[i] = i;
    Vec3 *vec = new Vec3(argc, 2.0, 3.0);
    asm volatile("" : : "r"(vec) : "memory"); // escapes: not elided with its delete
    std::printf("%.0f %.0f %.0f %.0f %.0f %d\n", samples[999], n->v[7], a.cells_[3] + a.block_[4], raw[99], vec->x,
                g.edges[2999]);
    delete vec;
    delete[] raw;
    delete n;
    return 0;
}
