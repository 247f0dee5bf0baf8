/* A worker waits on a barrier of one thread (it returns at once) while main
   destroys the barrier, nothing ordering the two: the destroy writes the
   barrier, the wait reads it. The sleep only makes the recorded run wait first. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include "suite.h"

pthread_barrier_t b;

static void* worker(void* arg) {
  (void)arg;
  pthread_barrier_wait(&b);  // RACE(a)
  return NULL;
}

int main(void) {
  pthread_barrier_init(&b, NULL, 1);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  pthread_barrier_destroy(&b);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
