// Entry blocks counted by their calls (ABI 7, t_entry_calls.sh), C++: an inline member function
// (a COMDAT function, visible outside the unit: counted by its counter) and a static function in
// an anonymous namespace (only called directly: counted by its calls), each called N times.
// usage: entry_calls_cc N
#include <cstdio>
#include <cstdlib>

namespace
{
volatile long sink;

__attribute__((noinline)) void hidden(long i)
{
    sink += i; // ENTRY_HIDDEN
}
} // namespace

struct Acc {
    long total = 0;
    __attribute__((noinline)) void add(long i)
    {
        total += i; // ENTRY_ADD
    }
};

int main(int argc, char **argv)
{
    volatile long n = argc > 1 ? std::atol(argv[1]) : 8;
    Acc a;
    for (long k = 0; k < n; k++) {
        hidden(k);
        a.add(k);
    }
    std::printf("%ld %ld\n", a.total, (long)sink);
    return 0;
}
