// A function-local static counter (constant-initialised, so no guard) incremented
// by two threads.
#include <cstdio>
#include <thread>

int NextId() {
  static int next = 0;
  return ++next;  // RACE(a) self
}

int main() {
  int x = 0, y = 0;
  std::thread a([&x] { x = NextId(); });
  std::thread b([&y] { y = NextId(); });
  a.join();
  b.join();
  std::printf("%d %d\n", x, y);
  return 0;
}
