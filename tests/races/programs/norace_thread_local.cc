// thread_local counters: each thread updates its own copy; the totals are combined
// after the joins.
// seer-expect: none
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
