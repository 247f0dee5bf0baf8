// Two threads fill disjoint halves of a std::vector; main sums it after the joins.
// seer-expect: none
#include <cstdio>
#include <numeric>
#include <thread>
#include <vector>

int main() {
  std::vector<long> data(64);
  auto fill = [&data](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) data[i] = static_cast<long>(i);
  };
  std::thread a(fill, 0, 32);
  std::thread b(fill, 32, 64);
  a.join();
  b.join();
  std::printf("%ld\n", std::accumulate(data.begin(), data.end(), 0L));
  return 0;
}
