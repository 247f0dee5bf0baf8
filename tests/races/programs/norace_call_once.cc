// std::call_once initialises a table once; both threads read it afterwards.
// seer-expect: none
#include <cstdio>
#include <mutex>
#include <thread>

std::once_flag once;
int table[16];

void Init() {
  for (int i = 0; i < 16; ++i) table[i] = i * i;
}

int Lookup(int i) {
  std::call_once(once, Init);
  return table[i];
}

int main() {
  int a = 0, b = 0;
  std::thread t([&a] { a = Lookup(3); });
  b = Lookup(4);
  t.join();
  std::printf("%d %d\n", a, b);
  return 0;
}
