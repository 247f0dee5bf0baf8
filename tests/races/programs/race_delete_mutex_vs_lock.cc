// A worker locks a std::mutex that main deletes, nothing ordering the two.
// libstdc++'s std::mutex has a trivial destructor (no pthread_mutex_destroy):
// the delete frees, so writes, the whole block, and the lock and unlock read
// the mutex. The sleep only makes the recorded run lock first.
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include <mutex>

#include "suite.h"

static void* worker(void* arg) {
  auto* m = static_cast<std::mutex*>(arg);
  m->lock();
  m->unlock();  // RACE(a)
  return nullptr;
}

int main() {
  auto* m = new std::mutex;
  pthread_t t;
  pthread_create(&t, nullptr, worker, m);
  sleep_ms(50);
  delete m;  // RACE(a)
  pthread_join(t, nullptr);
  return 0;
}
