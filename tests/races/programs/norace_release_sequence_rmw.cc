// A release store heads a release sequence that another thread's relaxed
// read-modify-write continues: an acquire load that reads the RMW's value
// synchronises with the release store (C++20 [intro.races] 5), so the payload
// written before the store is read without a race.
// seer-expect: none
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

std::atomic<int> stage{0};
std::atomic<bool> bumped{false};  // relaxed: tells main when to look, orders nothing
int payload;

int main() {
  std::thread producer([] {
    payload = 42;
    stage.store(1, std::memory_order_release);
  });
  std::thread bumper([] {
    int expected = 1;
    while (!stage.compare_exchange_weak(expected, 2, std::memory_order_relaxed)) {
      expected = 1;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    bumped.store(true, std::memory_order_relaxed);
  });
  // One acquire load, which reads the RMW's value: main never reads the release
  // store itself.
  while (!bumped.load(std::memory_order_relaxed)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (stage.load(std::memory_order_acquire) != 2) return 1;
  std::printf("%d\n", payload);
  producer.join();
  bumper.join();
  return 0;
}
