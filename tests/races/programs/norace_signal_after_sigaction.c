/* A worker fills a variable, installs a SIGUSR1 handler that reads it, then
   sends SIGUSR1 to main, which waits for the handler's flag (an atomic). The
   handler runs in main, which has no order with the worker; what orders the
   worker's write before the handler's read is sigaction(): a handler runs only
   after it was installed (ThreadSanitizer models it the same way). No race. */
// seer-expect: none
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>

int config;
int seen;
int handled;  // atomic accesses only
pthread_t main_thread;

static void handler(int sig) {
  (void)sig;
  seen = config;
  __atomic_store_n(&handled, 1, __ATOMIC_RELEASE);
}

static void* worker(void* arg) {
  (void)arg;
  config = 42;
  struct sigaction act = {0};
  act.sa_handler = handler;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGUSR1, &act, NULL) != 0) return NULL;
  pthread_kill(main_thread, SIGUSR1);
  return NULL;
}

int main(void) {
  main_thread = pthread_self();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&handled, __ATOMIC_ACQUIRE)) sched_yield();
  pthread_join(t, NULL);
  printf("%d\n", seen);
  return seen == 42 ? 0 : 1;
}
