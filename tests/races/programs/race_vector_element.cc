// Two threads write the same element of a std::vector; the elements each thread
// writes alone do not race.
// seer-std: lossy main may build the second std::thread in the block the first one freed; STD keeps no free size, so when that happens the reuse races
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  std::vector<int> slots(8, 0);
  std::thread a([&slots] {
    slots[0] = 1;
    slots[3] = 1; // RACE(a)
  });
  std::thread b([&slots] {
    slots[1] = 2;
    slots[3] = 2; // RACE(a)
  });
  a.join();
  b.join();
  std::printf("%d %d %d\n", slots[0], slots[1], slots[3]);
  return 0;
}
