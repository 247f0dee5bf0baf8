/* Main starts a worker, then initialises a mutex and takes it once; the worker,
   later, takes the same mutex. Only the mutex orders the two threads, and a
   lock reads the mutex before it acquires it: the worker's lock races with the
   init (it could have come first, on an uninitialised mutex). ThreadSanitizer
   reports this pair (its race_on_mutex.c); seer too. The sleep only makes the
   recorded run initialise first. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include "suite.h"

pthread_mutex_t m;
long counter;

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  pthread_mutex_lock(&m);  // RACE(a)
  counter++;
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_init(&m, NULL);  // RACE(a)
  pthread_mutex_lock(&m);
  counter++;
  pthread_mutex_unlock(&m);
  pthread_join(t, NULL);
  pthread_mutex_destroy(&m);
  return counter == 2 ? 0 : 2;
}
