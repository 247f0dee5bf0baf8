/* Three readers read the same data under the read lock at the same time (read-read
   is no race, whatever the lock); the data was written before they started. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
pthread_barrier_t start;
long config[4];

static void* reader(void* arg) {
  pthread_barrier_wait(&start);
  pthread_rwlock_rdlock(&rw);
  long sum = config[0] + config[1] + config[2] + config[3];
  pthread_rwlock_unlock(&rw);
  return (void*)sum;
}

int main(void) {
  for (int i = 0; i < 4; ++i) config[i] = i;
  pthread_barrier_init(&start, NULL, 3);
  pthread_t t[3];
  for (int i = 0; i < 3; ++i) pthread_create(&t[i], NULL, reader, NULL);
  long total = 0;
  for (int i = 0; i < 3; ++i) {
    void* s;
    pthread_join(t[i], &s);
    total += (long)s;
  }
  printf("%ld\n", total);
  return 0;
}
