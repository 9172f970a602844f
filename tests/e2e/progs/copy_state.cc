/* A small copy helper called from many places (leveldb's Status::CopyState, which Status's copy
 * constructor and assignment call, inlined into each caller; issue 12, t_names_helpers): the
 * blocks of two callers that keep the copy in their return value share the name `state_` and are
 * told apart by the first caller outside the class, `state_@Get` and `state_@Write`, not by
 * the class's own constructor and operator= (`state_@Status::Status`); a caller that keeps it in
 * a local of its own names it, `s.state_`. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
class Status {
 public:
  Status() noexcept : state_(nullptr) {}
  ~Status() { delete[] state_; }
  Status(const Status& rhs) { state_ = (rhs.state_ == nullptr) ? nullptr : CopyState(rhs.state_); }
  Status& operator=(const Status& rhs) {
    if (state_ != rhs.state_) { delete[] state_; state_ = (rhs.state_ == nullptr) ? nullptr : CopyState(rhs.state_); }
    return *this;
  }
  static Status Error(const char* msg) { return Status(msg); }
  bool ok() const { return state_ == nullptr; }
  const char* state_;
 private:
  explicit Status(const char* msg) {
    uint32_t size = (uint32_t)strlen(msg);
    char* result = new char[size + 5];
    memcpy(result, &size, sizeof(size));
    result[4] = 1;
    memcpy(result + 5, msg, size);
    state_ = result;
  }
  static const char* CopyState(const char* s);
};
__attribute__((noinline)) const char* Status::CopyState(const char* state) {
  uint32_t size;
  memcpy(&size, state, sizeof(size));
  char* result = new char[size + 5];
  memcpy(result, state, size + 5);
  return result;
}
static Status bg_error = Status::Error("background error");
static long total;
__attribute__((noinline)) static Status Get(int i) { Status s = bg_error; total += s.state_[5 + i % 4]; return s; }
__attribute__((noinline)) static Status Write(int i) { Status s; if (i >= 0) s = bg_error; total += s.state_[6]; return s; }
__attribute__((noinline)) static void Compact(int i) { Status s(bg_error); total += s.state_[7 + i % 2]; }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  for (int i = 0; i < n; i++) { Status a = Get(i); Status b = Write(i); Compact(i); total += a.ok() + b.ok(); }
  printf("%ld\n", total);
}
