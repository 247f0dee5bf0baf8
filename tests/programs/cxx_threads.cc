// std::mutex, std::condition_variable and std::thread: two workers add 500 times
// each under a std::mutex, then main waits on a condition variable until the last
// worker announces it is done (the workers start 50 ms late, so main surely waits).
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace {
std::mutex mu;
std::condition_variable done_cv;
int total = 0;
int finished = 0;

void Work() {
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  for (int i = 0; i < 500; ++i) {
    std::lock_guard<std::mutex> hold(mu);
    ++total;
  }
  std::lock_guard<std::mutex> hold(mu);
  if (++finished == 2) done_cv.notify_one();
}
}  // namespace

int main() {
  std::thread a(Work), b(Work);
  {
    std::unique_lock<std::mutex> lock(mu);
    done_cv.wait(lock, [] { return finished == 2; });
  }
  a.join();
  b.join();
  return total == 1000 ? 0 : 1;
}
