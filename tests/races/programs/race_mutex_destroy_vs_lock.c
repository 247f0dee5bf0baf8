/* A worker locks and unlocks a mutex while main destroys it, nothing ordering
   the two: ThreadSanitizer reports the destroy against the lock, and so does
   seer (a destroy writes the mutex's first byte, a lock or unlock reads it).
   The worker's unlock is its last use, the one reported. The sleep only
   makes the recorded run lock first. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include "suite.h"

pthread_mutex_t m;
long counter;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);  // RACE(a)
  return NULL;
}

int main(void) {
  pthread_mutex_init(&m, NULL);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  pthread_mutex_destroy(&m);  // RACE(a)
  pthread_join(t, NULL);
  return counter == 1 ? 0 : 2;
}
