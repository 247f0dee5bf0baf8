/* futex_waitv(2) through syscall(): a waiter sleeps on two futex words at once,
 * three rounds; in each, main (50 ms later) stores the round number into one of
 * the words (word 1, 0, 1) and wakes that word with FUTEX_WAKE. The kernel tells
 * the waiter which word woke it. */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449 /* x86-64; glibc headers before 2.35 lack it */
#endif
#ifndef FUTEX_32
#define FUTEX_32 2
#endif

static _Atomic uint32_t words[2];
static int woken_by[4];

static void* waiter(void* arg) {
  (void)arg;
  for (int round = 1; round <= 3; round++) {
    _Atomic uint32_t* expect = &words[round % 2];
    while (atomic_load(expect) != (uint32_t)round) {
      struct futex_waitv w[2] = {0};
      for (int i = 0; i < 2; i++) {
        w[i].val = atomic_load(&words[i]);
        w[i].uaddr = (uintptr_t)&words[i];
        w[i].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
      }
      if (atomic_load(expect) == (uint32_t)round) break;
      long index = syscall(SYS_futex_waitv, w, 2, 0, (void*)0, 0);
      if (index >= 0) woken_by[round] = (int)index;
    }
  }
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, waiter, 0);
  for (int round = 1; round <= 3; round++) {
    usleep(50000);
    atomic_store(&words[round % 2], (uint32_t)round);
    syscall(SYS_futex, &words[round % 2], FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
  }
  pthread_join(t, 0);
  return woken_by[1] == 1 && woken_by[2] == 0 && woken_by[3] == 1 ? 0 : 1;
}
