// A thread writes a member of a heap object that main deletes later, with
// nothing ordering the write before the delete: the delete frees (writes) the
// whole object, so the two race. The sleep only makes the recorded run write
// first; the race does not depend on it.
#include <pthread.h>

#include <cstdio>

#include "suite.h"

struct Account {
  long id = 1;
  long balance = 0;
};

static void* worker(void* arg) {
  auto* account = static_cast<Account*>(arg);
  account->balance = 100;  // RACE(a)
  return nullptr;
}

int main() {
  auto* account = new Account;
  pthread_t t;
  pthread_create(&t, nullptr, worker, account);
  sleep_ms(30);
  delete account;  // RACE(a)
  pthread_join(t, nullptr);
  std::puts("done");
  return 0;
}
