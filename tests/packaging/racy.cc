// The C++ twin of racy.c, for seer-c++ (libseer_rt_cxx.a) and seer-clang++ (the
// pass plugin): two std::threads add to `total` without a lock.
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

static long total;
static std::mutex lock;
static std::vector<int>* seen;

static void Work() {
  for (int i = 0; i < 1000; i++) {
    total++;  // seer: race
    std::lock_guard<std::mutex> hold(lock);
    seen->push_back(i);
  }
}

int main() {
  seen = new std::vector<int>;
  std::thread a(Work), b(Work);
  a.join();
  b.join();
  std::printf("seen=%zu\n", seen->size());
  delete seen;
  return 0;
}
