// std::condition_variable hand-off: the worker fills a result, main waits for it.
// seer-expect: none
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

std::mutex mu;
std::condition_variable cv;
bool ready = false;
long result[4];

int main() {
  std::thread worker([] {
    // Late, so that main waits on the condition variable.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (int i = 0; i < 4; ++i) result[i] = i + 1;
    std::lock_guard<std::mutex> lock(mu);
    ready = true;
    cv.notify_one();
  });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [] { return ready; });
  }
  std::printf("%ld\n", result[0] + result[1] + result[2] + result[3]);
  worker.join();
  return 0;
}
