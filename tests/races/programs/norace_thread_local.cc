// thread_local counters: each thread updates its own copy; the totals are combined
// after the joins.
// seer-expect: none
// seer-std: lossy main may build the second std::thread in the block the first one freed; STD keeps no free size, so when that happens the reuse races
#include <cstdio>
#include <thread>

thread_local long calls;
long totals[2];

void Work(int id) {
  for (int i = 0; i < 50; ++i) calls++;
  totals[id] = calls;
}

int main() {
  std::thread a(Work, 0);
  std::thread b(Work, 1);
  a.join();
  b.join();
  std::printf("%ld %ld\n", totals[0], totals[1]);
  return 0;
}
