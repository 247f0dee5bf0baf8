/* main keeps SIGUSR1 blocked but while it waits in ppoll(), which unblocks
   it; a worker sends it once main is waiting. The handler sets `stop`, a
   plain int that main reads before each wait: the handler runs during a
   ppoll, after main's reads before it and before its reads after, in the
   thread's context (ThreadSanitizer's model of a handler in a blocking call).
   No race. */
// seer-expect: none
#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

int stop;
int waiting;  // relaxed atomic accesses only
pthread_t main_thread;

static void handler(int sig) {
  (void)sig;
  stop = 1;
}

static void* worker(void* arg) {
  (void)arg;
  while (!__atomic_load_n(&waiting, __ATOMIC_RELAXED)) {
  }
  pthread_kill(main_thread, SIGUSR1);
  return NULL;
}

int main(void) {
  if (signal(SIGUSR1, handler) == SIG_ERR) return 1;
  sigset_t usr1, unblocked;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &usr1, &unblocked);
  main_thread = pthread_self();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  __atomic_store_n(&waiting, 1, __ATOMIC_RELAXED);
  const struct timespec ms = {0, 1000000};
  int waits = 0;
  while (!stop) {
    ppoll(NULL, 0, &ms, &unblocked);
    ++waits;
  }
  printf("stopped after %d waits\n", waits);
  pthread_join(t, NULL);
  return 0;
}
