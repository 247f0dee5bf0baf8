/* A worker blocks SIGUSR1, sets `blocked`, clears it and unblocks, over and
   over; main sends it SIGUSR1 all the while, and the handler reads `blocked`.
   The handler runs on the worker, only where the signal is unblocked: after
   the worker's pthread_sigmask(SIG_UNBLOCK) and before its next
   pthread_sigmask(SIG_BLOCK) returns. seer records a handler of a signal sent
   from elsewhere on a ring of its own, ordered with the thread it interrupts
   at the calls where signals are delivered (ThreadSanitizer's signal_block.cpp;
   it runs the handler in the worker's context). No race. */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int blocked;
int stop;     // relaxed atomic accesses only
int handled;  // the handlers' own: they run one at a time on the worker
int started;  // relaxed atomic accesses only

static void handler(int sig) {
  (void)sig;
  if (blocked) {
    fprintf(stderr, "handler ran while blocked\n");
    _exit(1);
  }
  handled++;
}

static void* worker(void* arg) {
  (void)arg;
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  __atomic_store_n(&started, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
    pthread_sigmask(SIG_BLOCK, &usr1, NULL);
    blocked = 1;
    for (volatile int i = 0; i < 100; i++) {
    }
    blocked = 0;
    pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
  }
  return NULL;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGUSR1, &act, NULL) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&started, __ATOMIC_RELAXED)) {
  }
  for (int i = 0; i < 2000; i++) pthread_kill(t, SIGUSR1);
  __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
  pthread_join(t, NULL);
  printf("%d handled\n", handled);
  return 0;
}
