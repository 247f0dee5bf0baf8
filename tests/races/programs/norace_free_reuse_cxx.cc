// new/delete: a thread deletes an object it wrote; later (no synchronisation in
// between) main's new returns the same memory and main writes it. Exits 3 if the
// memory was not reused.
// seer-expect: none
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <thread>

struct Big {
  long fields[500];
};
Big* first;

int main() {
  mallopt(M_ARENA_MAX, 1);
  std::thread t([] {
    first = new Big;
    for (long& f : first->fields) f = 1;
    delete first;
    // Stays alive while main allocates: a finished thread's tcache would be freed
    // and merged with the block.
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(60));
  // Main's malloc state already exists (the program's start-up allocated).
  Big* again = new Big;
  for (long& f : again->fields) f = 2;
  delete again;
  t.join();  // orders the thread's write of `first` before main's read
  if (again != first) {
    std::printf("the memory was not reused\n");
    return 3;
  }
  return 0;
}
