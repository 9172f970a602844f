// The counting copy's count register (docs/plugin.md): a loop whose callee throws every third
// call, caught in the loop (the landing pad reloads the count the callee advanced), and a loop
// of 50 n iterations without a call (its block words fill the buffer: the flush from the
// register).
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

__attribute__((noinline)) static int work(int i, double *a)
{
    double s = 0;
    for (int k = 0; k < (i & 7) + 1; k++) s += a[k] * k;
    if (i % 3 == 0) throw std::runtime_error("three");
    return (int)s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
    long t = 0, caught = 0;
    for (int i = 0; i < n; i++) {
        try {
            t += work(i, a);
        } catch (const std::exception &) {
            for (int k = 0; k < (i & 3); k++) caught += k;
            caught++;
        }
    }
    double acc = 0;
    for (int i = 0; i < 50 * n; i++) acc = acc * 0.999 + a[i & 7]; // a recurrence: not vectorised
    std::printf("%ld %ld %.1f\n", t, caught, acc);
    return 0;
}
