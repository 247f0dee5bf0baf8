/* main initialises a barrier again (for a second round) while a worker still
   waits on the first round's barrier, nothing ordering the two: the init
   writes the barrier, the wait reads it. A barrier of one thread, so the
   wait returns at once; the sleep only makes the recorded run wait first. */
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
  pthread_barrier_init(&b, NULL, 1);  // RACE(a)
  pthread_join(t, NULL);
  pthread_barrier_destroy(&b);
  return 0;
}
