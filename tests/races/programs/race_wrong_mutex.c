/* Each thread takes a mutex around the update, but not the same one. */
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
long shared;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock_a);
  shared += 1;  // RACE(a)
  pthread_mutex_unlock(&lock_a);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_mutex_lock(&lock_b);
  shared += 2;  // RACE(a)
  pthread_mutex_unlock(&lock_b);
  pthread_join(t, NULL);
  printf("%ld\n", shared);
  return 0;
}
