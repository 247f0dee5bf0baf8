/* A worker sends main a stream of signals while main spins on an atomic (a
   scheduling point at every load) and then waits in pthread_join: under seer
   fuzz most of them interrupt main inside the scheduler, waiting for the token
   or holding the scheduler's lock. The handler makes scheduling points of its
   own (atomics). Before the scheduler knew handlers, such a handler waited on
   the lock or the token its own thread held, and the run hung until the
   timeout; now it runs unscheduled (runtime/fuzz_scheduler.h). Prints the
   number of signals sent. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>

enum { kSignals = 200 };

atomic_int handled;
atomic_int sent;
pthread_t main_thread;

static void handler(int sig) {
  (void)sig;
  atomic_fetch_add(&handled, 1);
}

static void* worker(void* arg) {
  for (int i = 0; i < kSignals; ++i) {
    if (pthread_kill(main_thread, SIGUSR1) != 0) return NULL;
    atomic_fetch_add(&sent, 1);
  }
  return arg;
}

int main(void) {
  struct sigaction act = {0};
  act.sa_handler = handler;
  act.sa_flags = SA_RESTART;
  sigemptyset(&act.sa_mask);
  if (sigaction(SIGUSR1, &act, NULL) != 0) return 1;
  main_thread = pthread_self();
  pthread_t t;
  if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
  while (atomic_load(&sent) < kSignals) {
  }
  pthread_join(t, NULL);
  printf("%d\n", atomic_load(&sent));
  return atomic_load(&handled) > 0 ? 0 : 1;
}
