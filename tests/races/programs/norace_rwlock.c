/* Readers read a table under the read lock (read-read is no race); a writer updates
   it under the write lock. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
long table[4] = {1, 2, 3, 4};

static void* reader(void* arg) {
  long sum = 0;
  for (int n = 0; n < 20; ++n) {
    pthread_rwlock_rdlock(&rw);
    for (int i = 0; i < 4; ++i) sum += table[i];
    pthread_rwlock_unlock(&rw);
  }
  return (void*)sum;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, reader, NULL);
  for (int n = 0; n < 20; ++n) {
    pthread_rwlock_wrlock(&rw);
    table[n % 4] += 1;
    pthread_rwlock_unlock(&rw);
  }
  void* sum;
  pthread_join(t, &sum);
  printf("%ld\n", (long)sum);
  return 0;
}
