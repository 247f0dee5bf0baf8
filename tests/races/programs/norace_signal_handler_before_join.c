/* main sends a worker SIGUSR1; the worker's handler writes `value` and sets
   `got` (relaxed: no release), on which the worker spins before it returns.
   main joins the worker and reads `value`. The handler ended before the
   worker did, so the join orders it before main's read (a thread's end
   waits for its handlers). No race. */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

int value;
int got;      // relaxed atomic accesses only
int started;  // relaxed atomic accesses only

static void handler(int sig) {
  (void)sig;
  value = 42;
  __atomic_store_n(&got, 1, __ATOMIC_RELAXED);
}

static void* worker(void* arg) {
  (void)arg;
  __atomic_store_n(&started, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&got, __ATOMIC_RELAXED)) {
  }
  return NULL;
}

int main(void) {
  if (signal(SIGUSR1, handler) == SIG_ERR) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&started, __ATOMIC_RELAXED)) {
  }
  pthread_kill(t, SIGUSR1);
  pthread_join(t, NULL);
  printf("%d\n", value);
  return value == 42 ? 0 : 1;
}
