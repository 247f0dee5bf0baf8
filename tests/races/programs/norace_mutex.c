/* Two threads update a counter, always under the same mutex. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
long counter;

static void* worker(void* arg) {
  for (int i = 0; i < 100; ++i) {
    pthread_mutex_lock(&mu);
    counter++;
    pthread_mutex_unlock(&mu);
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  worker(NULL);
  pthread_join(t, NULL);
  printf("%ld\n", counter);
  return 0;
}
