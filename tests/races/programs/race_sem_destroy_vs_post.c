/* A worker posts a semaphore while main destroys it, nothing ordering the two:
   the destroy writes the semaphore, the post reads it. The sleep only makes
   the recorded run post first. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>
#include <semaphore.h>

#include "suite.h"

sem_t s;

static void* worker(void* arg) {
  (void)arg;
  sem_post(&s);  // RACE(a)
  return NULL;
}

int main(void) {
  sem_init(&s, 0, 0);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  sem_destroy(&s);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
