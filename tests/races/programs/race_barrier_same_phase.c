/* Two threads add to one total in the same barrier phase; after the barrier their
   reads are ordered after both writes. */
#include <pthread.h>
#include <stdio.h>

pthread_barrier_t phase;
long total;
long seen[2];

static void* worker(void* arg) {
  long id = (long)arg;
  total += id + 1;  // RACE(a) self
  pthread_barrier_wait(&phase);
  seen[id] = total;
  return NULL;
}

int main(void) {
  pthread_barrier_init(&phase, NULL, 2);
  pthread_t t[2];
  for (long i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, (void*)i);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("%ld %ld\n", seen[0], seen[1]);
  return 0;
}
