// Fixture: C++ new/delete, virtual calls, std::vector and an exception; prints 102.
#include <cstdio>
#include <stdexcept>
#include <vector>

struct Base {
  virtual ~Base() {}
  virtual int value() { return 1; }
};
struct Derived : Base {
  int value() override { return 2; }
};

static int checked(int x) {
  if (x > 2)
    throw std::runtime_error("too big");
  return x;
}

int main() {
  Base *object = new Derived;
  std::vector<int> ones(100, 1);
  int total = 0;
  for (int x : ones)
    total += x;
  try {
    total += checked(3);
  } catch (const std::exception &) {
    total += object->value();
  }
  delete object;
  std::printf("%d\n", total);
  return 0;
}
