/* main sends a busy worker SIGUSR1; the worker's handler writes `value`. The
   worker makes no call where signals are delivered: it only loops on the
   clock for 200 ms and returns. main joins it and reads `value`. The handler
   ended before the worker did, so the join orders it before main's read (a
   thread's end waits for its handlers, as its next synchronisation). No
   race. */
// seer-expect: none
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

int value;
int started;  // relaxed atomic accesses only

static void handler(int sig) {
  (void)sig;
  value = 42;
}

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void* worker(void* arg) {
  (void)arg;
  const long long end = now_ns() + 200000000LL;
  __atomic_store_n(&started, 1, __ATOMIC_RELAXED);
  while (now_ns() < end) {
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
