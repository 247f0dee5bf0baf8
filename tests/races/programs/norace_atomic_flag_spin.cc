// A spinlock built from std::atomic_flag (test_and_set acquire, clear release)
// protects a counter.
// seer-expect: none
#include <atomic>
#include <cstdio>
#include <thread>

std::atomic_flag busy = ATOMIC_FLAG_INIT;
long counter;

void Work() {
  for (int i = 0; i < 50; ++i) {
    while (busy.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
    counter++;
    busy.clear(std::memory_order_release);
  }
}

int main() {
  std::thread t(Work);
  Work();
  t.join();
  std::printf("%ld\n", counter);
  return 0;
}
