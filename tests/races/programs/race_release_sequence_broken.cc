// A release store, then another thread's plain (relaxed, non-RMW) store to the
// same atomic: that store ends the release sequence (C++20), so an acquire load
// that reads it synchronises with nothing and the payload races.
// seer-relaxed-race: a the loads that saw each store order the read on a sequentially consistent schedule
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

std::atomic<int> stage{0};
std::atomic<bool> overwritten{false};  // relaxed: tells main when to look, orders nothing
int payload;

int main() {
  std::thread producer([] {
    payload = 42;  // RACE(a)
    stage.store(1, std::memory_order_release);
  });
  std::thread overwriter([] {
    while (stage.load(std::memory_order_relaxed) != 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    stage.store(2, std::memory_order_relaxed);
    overwritten.store(true, std::memory_order_relaxed);
  });
  // One acquire load, which reads the relaxed store: main never reads the
  // release store itself.
  while (!overwritten.load(std::memory_order_relaxed)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (stage.load(std::memory_order_acquire) != 2) return 1;
  std::printf("%d\n", payload);  // RACE(a)
  producer.join();
  overwriter.join();
  return 0;
}
