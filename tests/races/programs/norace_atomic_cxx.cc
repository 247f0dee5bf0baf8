// std::atomic: a shared counter updated by two threads, and a payload published with
// a release store and read after an acquire load.
// seer-expect: none
#include <atomic>
#include <cstdio>
#include <thread>

std::atomic<int> counter{0};
std::atomic<bool> published{false};
int payload;

int main() {
  std::thread producer([] {
    for (int i = 0; i < 100; ++i) counter.fetch_add(1, std::memory_order_relaxed);
    payload = 7;
    published.store(true, std::memory_order_release);
  });
  for (int i = 0; i < 100; ++i) counter.fetch_add(1);
  while (!published.load(std::memory_order_acquire)) std::this_thread::yield();
  std::printf("%d %d\n", payload, counter.load());
  producer.join();
  return 0;
}
