// A lambda captures a local by reference and updates it on another thread while
// main updates it too.
#include <cstdio>
#include <thread>

int main() {
  int hits = 0;
  std::thread t([&hits] {
    hits++;  // RACE(a)
  });
  hits += 10;  // RACE(a)
  t.join();
  std::printf("%d\n", hits);
  return 0;
}
