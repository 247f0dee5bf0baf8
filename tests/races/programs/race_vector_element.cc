// Two threads write the same element of a std::vector; the elements each thread
// writes alone do not race.
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  std::vector<int> slots(8, 0);
  std::thread a([&slots] {
    slots[0] = 1;
    slots[3] = 1;  // RACE(a)
  });
  std::thread b([&slots] {
    slots[1] = 2;
    slots[3] = 2;  // RACE(a)
  });
  a.join();
  b.join();
  std::printf("%d %d %d\n", slots[0], slots[1], slots[3]);
  return 0;
}
