// Memory freed after main returns, while a detached thread that wrote it is
// still running: a static object's destructor deletes its buffer (pair a) and
// an atexit handler frees another block (pair b), both inside exit(), with
// nothing ordering the thread's writes before them. Recording goes on through
// the exit handlers to see it. The thread then sleeps past the process's end
// (exit kills it); the sleeps only make the recorded run write first.
#include <pthread.h>

#include <cstdio>
#include <cstdlib>

#include "suite.h"

struct Cache {
  int* slots = new int[8]();
  ~Cache() {
    delete[] slots;  // RACE(a)
  }
};

static Cache cache;
static long* counters;

static void FreeCounters() {
  std::free(counters);  // RACE(b)
}

static void* worker(void*) {
  cache.slots[3] = 7;  // RACE(a)
  counters[1] = 1;     // RACE(b)
  sleep_ms(5000);
  return nullptr;
}

int main() {
  counters = static_cast<long*>(std::calloc(4, sizeof *counters));
  std::atexit(FreeCounters);
  pthread_t t;
  pthread_create(&t, nullptr, worker, nullptr);
  pthread_detach(t);
  sleep_ms(30);
  std::puts("done");
  return 0;
}
