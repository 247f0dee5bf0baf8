// The twin of race_delete_vs_write.cc: the thread writes the object and hands
// it back through a mutex-protected slot; main deletes it only once it took it
// from the slot, so the write happens before the delete.
// seer-expect: none
#include <pthread.h>

#include <cstdio>

#include "suite.h"

struct Account {
  long id = 1;
  long balance = 0;
};

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static Account* done_slot = nullptr;

static void* worker(void* arg) {
  auto* account = static_cast<Account*>(arg);
  account->balance = 100;
  pthread_mutex_lock(&slot_lock);
  done_slot = account;
  pthread_mutex_unlock(&slot_lock);
  return nullptr;
}

int main() {
  auto* account = new Account;
  pthread_t t;
  pthread_create(&t, nullptr, worker, account);
  pthread_detach(t);
  Account* back = nullptr;
  while (back == nullptr) {
    pthread_mutex_lock(&slot_lock);
    back = done_slot;
    pthread_mutex_unlock(&slot_lock);
    if (back == nullptr) sleep_ms(1);
  }
  delete back;
  std::puts("done");
  return 0;
}
