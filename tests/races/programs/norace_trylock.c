/* Updates only when pthread_mutex_trylock succeeds; a failed trylock protects
   nothing and the code does not touch the data then. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
long counter;
long misses[2];

static void* worker(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < 200; ++i) {
    if (pthread_mutex_trylock(&mu) == 0) {
      counter++;
      pthread_mutex_unlock(&mu);
    } else {
      misses[id]++;
    }
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, (void*)1L);
  worker((void*)0L);
  pthread_join(t, NULL);
  printf("%ld %ld %ld\n", counter, misses[0], misses[1]);
  return 0;
}
