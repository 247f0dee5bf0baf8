// A function-local static object with a constructor: C++ guarantees one thread-safe
// initialisation (the __cxa_guard protocol); both threads then read it.
// seer-expect: none
#include <chrono>
#include <cstdio>
#include <thread>

struct Registry {
  Registry() {
    for (int i = 0; i < 8; ++i) ids[i] = 100 + i;
  }
  int ids[8];
};

Registry& Instance() {
  static Registry registry;
  return registry;
}

int main() {
  int a = 0, b = 0;
  std::thread t([&a] { a = Instance().ids[2]; });
  std::this_thread::sleep_for(std::chrono::milliseconds(10));
  b = Instance().ids[5];
  t.join();
  std::printf("%d %d\n", a, b);
  return 0;
}
