/* A SIGALRM handler (setitimer, every 100 us) that does an atomic add on the
   counter both threads add to in a loop of atomics: the handler often
   interrupts its thread inside the runtime's hook of an atomic on that very
   address, holding the address's stripe (runtime/hooks_atomic.cc). Prints
   "handled=H ops=N counter=C" (N: the threads' adds, H: the handlers') for
   reentry_test.cc, which checks C == N + H. */
#include <stdatomic.h>
#include <stdio.h>

#include "alarm_loops.h"

enum { kIters = 200000 };
static _Atomic long counter;
static _Atomic long handled;
/* Set while the thread runs its loop: a handler that runs while the thread
   starts or ends (the runtime records handlers only in a thread that is
   recording) does nothing. */
static __thread volatile sig_atomic_t in_loop;

static void OnAlarm(int sig) {
  (void)sig;
  if (!in_loop) return;
  atomic_fetch_add(&counter, 1);
  atomic_fetch_add(&handled, 1);
}

static void Loop(void) {
  in_loop = 1;
  for (int i = 0; i < kIters; ++i) atomic_fetch_add(&counter, 1);
  in_loop = 0;
}

int main(void) {
  if (RunLoopsUnderAlarms(Loop, OnAlarm) != 0) return 1;
  printf("handled=%ld ops=%ld counter=%ld\n", (long)atomic_load(&handled), 2L * kIters, (long)atomic_load(&counter));
  return 0;
}
