/* Main waits on a condition variable; a worker sets the flag under the mutex,
   unlocks, and only then signals. Main's wait returns and it destroys the
   condition variable. The signal orders the wait it wakes, but glibc's signal
   still touches the variable after the waiter can return, and nothing but
   the signal orders that use with the destroy: a race, ThreadSanitizer's
   cond_race.cpp. Its twin signalling under the mutex does not race. The
   sleeps only make the recorded run wait, and signal before the destroy. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include "suite.h"

pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t c = PTHREAD_COND_INITIALIZER;
int done;

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  pthread_mutex_lock(&m);
  done = 1;
  pthread_mutex_unlock(&m);
  pthread_cond_signal(&c);  // RACE(a)
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&m);
  while (!done) pthread_cond_wait(&c, &m);
  pthread_mutex_unlock(&m);
  sleep_ms(50);
  pthread_cond_destroy(&c);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
