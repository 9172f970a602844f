/* Heap objects kept in containers by pointer (t_vector_names): `new T` pushed into a
 * std::vector<T*> (push_back and emplace_back take the pointer by reference: it reaches the
 * vector through a temporary), into a member vector, and std::unique_ptr<T> from make_unique
 * stored into a vector and into a member. Each is named after its container. */
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

struct Node {
    double v[8];
    explicit Node(int x)
    {
        for (int i = 0; i < 8; i++) v[i] = x + i;
    }
};

struct Pool {
    std::vector<Node *> items_;
    std::vector<std::unique_ptr<Node>> owned_;
    std::unique_ptr<Node> head_;
    void add(int i) { items_.push_back(new Node(i)); }
    void own(int i) { owned_.push_back(std::make_unique<Node>(i)); }
    void top(int i) { head_ = std::make_unique<Node>(i); }
};

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    std::vector<Node *> nodes;
    for (int i = 0; i < n; i++) nodes.push_back(new Node(i));
    std::vector<Node *> more;
    for (int i = 0; i < n; i++) more.emplace_back(new Node(2 * i));
    std::vector<std::unique_ptr<Node>> uniq;
    for (int i = 0; i < n; i++) uniq.push_back(std::make_unique<Node>(3 * i));
    Pool pool;
    for (int i = 0; i < n; i++) pool.add(i);
    for (int i = 0; i < n; i++) pool.own(i);
    pool.top(5);
    double s = 0;
    for (int i = 0; i < n; i++)
        s += nodes[i]->v[1] + more[i]->v[2] + uniq[i]->v[3] + pool.items_[i]->v[4] + pool.owned_[i]->v[5];
    s += pool.head_->v[6];
    printf("%.0f\n", s);
    for (int i = 0; i < n; i++) {
        delete nodes[i];
        delete more[i];
        delete pool.items_[i];
    }
    return 0;
}
