/* main waits for a worker's SIGUSR1 in a usleep() loop; the handler writes
   `value` and sets `got` (relaxed: no release), and main reads `value` once
   it sees `got`, before it joins the worker. The handler ran on main during
   a sleep, or between two: either way a sleep came after it and before main's
   read. A sleep is a point where the thread runs its handlers, ordered with
   them as the calls that unblock or wait for signals are. No race. */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int value;
int got;      // relaxed atomic accesses only
int waiting;  // relaxed atomic accesses only
pthread_t main_thread;

static void handler(int sig) {
  (void)sig;
  value = 42;
  __atomic_store_n(&got, 1, __ATOMIC_RELAXED);
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
  main_thread = pthread_self();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  __atomic_store_n(&waiting, 1, __ATOMIC_RELAXED);
  while (!__atomic_load_n(&got, __ATOMIC_RELAXED)) usleep(1000);
  printf("%d\n", value);
  pthread_join(t, NULL);
  return value == 42 ? 0 : 1;
}
