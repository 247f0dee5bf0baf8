// Globals of every shape SetAsideAtomicWatchHits must tell apart by their
// DWARF types (tests/predictor/report/watch_atomics_test.cc): C11-style
// _Atomic is C only, so the C++ ones are std::atomic; the test compiles it
// once as C++ and reads the C file (atomic_globals_c.c) for _Atomic.
#include <atomic>

std::atomic<long> whole_atomic;
struct Mixed {
  long plain;
  std::atomic<int> counter;
  int after;
};
Mixed mixed;
std::atomic<int> atomic_array[4];
long plain_global;
Mixed mixed_array[2];

int main() {
  whole_atomic.store(1, std::memory_order_relaxed);
  mixed.plain = 2;
  mixed.counter.store(3, std::memory_order_relaxed);
  mixed.after = 4;
  atomic_array[2].store(5, std::memory_order_relaxed);
  plain_global = 6;
  mixed_array[1].counter.store(7, std::memory_order_relaxed);
  return 0;
}
