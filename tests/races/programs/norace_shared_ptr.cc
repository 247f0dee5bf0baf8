// A std::shared_ptr shared by two threads: whichever drops the last reference runs
// the destructor, which writes the object; the atomic reference count orders it
// after the other thread's reads.
// seer-expect: none
#include <cstdio>
#include <memory>
#include <thread>

struct Node {
  ~Node() { value = -1; }
  long value = 5;
};

long seen[2];

int main() {
  auto node = std::make_shared<Node>();
  std::thread t([copy = node]() mutable {
    seen[1] = copy->value;
    copy.reset();
  });
  seen[0] = node->value;
  node.reset();
  t.join();
  std::printf("%ld %ld\n", seen[0], seen[1]);
  return 0;
}
