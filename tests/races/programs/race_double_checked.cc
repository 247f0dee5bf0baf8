// Double-checked locking with a plain pointer: the unlocked first check races with
// the locked store of the pointer, and the object's fields, read through that
// pointer, race with the constructor that wrote them.
// seer-after-race: b thread b reads `value` through the pointer it read from the write that follows the constructor
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

struct Config {
  Config() : value(42) {}  // RACE(b)
  int value;
};

Config* instance;
std::mutex mu;

Config* Get() {
  Config* p = instance;  // RACE(a)
  if (p == nullptr) {
    std::lock_guard<std::mutex> guard(mu);
    p = instance;
    if (p == nullptr) {
      p = new Config;
      instance = p;  // RACE(a)
    }
  }
  return p;
}

int main() {
  int first = 0, second = 0;
  std::thread a([&first] { first = Get()->value; });
  std::thread b([&second] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // after a's Get(), in time only
    second = Get()->value;                                       // RACE(b)
  });
  a.join();
  b.join();
  std::printf("%d %d\n", first, second);
  return 0;
}
