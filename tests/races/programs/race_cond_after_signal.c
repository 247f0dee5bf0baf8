/* The producer publishes "ready" correctly under the mutex, but writes the data
   after unlocking: the consumer's read of the data races with it. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
int ready;
int data;

static void* producer(void* arg) {
  sleep_ms(20); /* late, so that main waits on the condition variable */
  pthread_mutex_lock(&mu);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  data = 5;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  pthread_mutex_lock(&mu);
  while (!ready) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  printf("%d\n", data);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
