// Lambdas capturing by reference, every access under std::mutex (lock_guard and
// unique_lock).
// seer-expect: none
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

int main() {
  std::mutex mu;
  std::vector<int> log;
  long sum = 0;
  std::thread t([&] {
    for (int i = 0; i < 20; ++i) {
      std::lock_guard<std::mutex> guard(mu);
      log.push_back(i);
      sum += i;
    }
  });
  for (int i = 0; i < 20; ++i) {
    std::unique_lock<std::mutex> lock(mu);
    sum -= i;
    if (!log.empty()) log.pop_back();
  }
  t.join();
  std::printf("%ld %zu\n", sum, log.size());
  return 0;
}
