/* A custom futex handoff through syscall(SYS_futex) (built as
 * futex_handoff_insn: the syscall instruction itself, test_futex.h): three
 * rounds, in each the waiter sleeps in FUTEX_WAIT until main (50 ms later)
 * stores the round number and issues one FUTEX_WAKE. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "test_futex.h"

static _Atomic int word;

static void* waiter(void* arg) {
  (void)arg;
  wait_rounds(&word, 1, 3);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  wake_rounds(&word, 1, 3, 50000);
  pthread_join(t, 0);
  return 0;
}
