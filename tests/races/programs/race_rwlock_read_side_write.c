/* Two threads update a counter while holding only the read side of an rwlock:
   read locks do not exclude each other. */
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
long hits;

static void* worker(void* arg) {
  pthread_rwlock_rdlock(&rw);
  hits++;  // RACE(a) self
  pthread_rwlock_unlock(&rw);
  return arg;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, worker, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("%ld\n", hits);
  return 0;
}
