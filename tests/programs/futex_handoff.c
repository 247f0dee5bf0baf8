/* A custom futex handoff through syscall(SYS_futex) (built as
 * futex_handoff_insn: the syscall instruction itself, test_futex.h): three
 * rounds, in each the waiter sleeps in FUTEX_WAIT until main (50 ms later)
 * stores the round number and issues one FUTEX_WAKE. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_futex.h"

static _Atomic int word;

static void* waiter(void* arg) {
  (void)arg;
  for (int round = 1; round <= 3; round++) {
    int seen;
    while ((seen = atomic_load(&word)) != round)
      test_futex(&word, FUTEX_WAIT_PRIVATE, seen);
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  for (int round = 1; round <= 3; round++) {
    usleep(50000);
    atomic_store(&word, round);
    test_futex(&word, FUTEX_WAKE_PRIVATE, 1);
  }
  pthread_join(t, 0);
  return 0;
}
