/* A SIGALRM handler (setitimer, every 100 us) that does an atomic add on the
   counter both threads add to in a loop of atomics: the handler often
   interrupts its thread inside the runtime's hook of an atomic on that very
   address, holding the address's stripe (runtime/hooks_atomic.cc). Prints
   "handled=H ops=N counter=C" (N: the threads' adds, H: the handlers') for
   reentry_test.cc, which checks C == N + H. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

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

static void* Worker(void* arg) {
  Loop();
  return arg;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnAlarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  if (sigaction(SIGALRM, &sa, NULL) != 0) return 1;
  const struct itimerval every = {{0, 100}, {0, 100}};
  setitimer(ITIMER_REAL, &every, NULL);
  pthread_t t;
  pthread_create(&t, NULL, Worker, NULL);
  Loop();
  pthread_join(t, NULL);
  const struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  /* Blocked from here: no handler runs between the counts and their print. */
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  sigprocmask(SIG_BLOCK, &alarm, NULL);
  printf("handled=%ld ops=%ld counter=%ld\n", (long)atomic_load(&handled), 2L * kIters, (long)atomic_load(&counter));
  return 0;
}
