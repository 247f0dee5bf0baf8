// Two std::threads call a member function that updates a data member without a lock.
#include <cstdio>
#include <thread>

class Counter {
 public:
  void Add(int n) { total_ += n; }  // RACE(a) self
  int total() const { return total_; }

 private:
  int total_ = 0;
};

int main() {
  Counter counter;
  std::thread a([&counter] { counter.Add(1); });
  std::thread b([&counter] { counter.Add(2); });
  a.join();
  b.join();
  std::printf("%d\n", counter.total());
  return 0;
}
