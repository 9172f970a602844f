// OpenMP in a C++ member function and a nested parallel (tests/e2e/t_omp_names.sh): the regions
// are "ns::Grid::fill: omp parallel for @11", "main: omp parallel @21", "main: omp parallel for @23".
#include <cstdio>
#include <vector>
namespace ns {
struct Grid {
    std::vector<double> v;
    explicit Grid(int n) : v(n) {}
    void fill()
    {
#pragma omp parallel for
        for (int i = 0; i < (int)v.size(); i++) v[i] = i;
    }
};
}
int main()
{
    ns::Grid g(100000);
    g.fill();
    double s = 0;
#pragma omp parallel
    {
#pragma omp parallel for reduction(+ : s)
        for (int i = 0; i < 100000; i++) s += g.v[i];
    }
    std::printf("%g\n", s);
}
