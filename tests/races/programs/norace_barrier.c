/* Phase 1: each thread writes its own slot. Barrier. Phase 2: each reads the other's. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_barrier_t phase;
long slots[2];
long sums[2];

static void* worker(void* arg) {
  long id = (long)arg;
  slots[id] = (id + 1) * 10;
  pthread_barrier_wait(&phase);
  sums[id] = slots[0] + slots[1];
  return NULL;
}

int main(void) {
  pthread_barrier_init(&phase, NULL, 2);
  pthread_t t;
  pthread_create(&t, NULL, worker, (void*)1L);
  worker((void*)0L);
  pthread_join(t, NULL);
  printf("%ld %ld\n", sums[0], sums[1]);
  return 0;
}
