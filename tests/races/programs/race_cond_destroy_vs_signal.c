/* A worker signals a condition variable nobody waits on while main destroys
   it, nothing ordering the two: the destroy writes the condition variable,
   the signal reads it. The sleep only makes the recorded run signal first. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>

#include "suite.h"

pthread_cond_t c;

static void* worker(void* arg) {
  (void)arg;
  pthread_cond_signal(&c);  // RACE(a)
  return NULL;
}

int main(void) {
  pthread_cond_init(&c, NULL);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  pthread_cond_destroy(&c);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
