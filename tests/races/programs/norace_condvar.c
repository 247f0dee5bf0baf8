/* Producer/consumer over a one-slot buffer with a mutex and two condition variables. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
int full;
long slot;
long message[4];

static void* producer(void* arg) {
  for (long i = 1; i <= 20; ++i) {
    message[i % 4] = i;
    pthread_mutex_lock(&mu);
    while (full) pthread_cond_wait(&not_full, &mu);
    slot = i % 4;
    full = 1;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mu);
    pthread_mutex_lock(&mu);
    while (full) pthread_cond_wait(&not_full, &mu);
    pthread_mutex_unlock(&mu);
  }
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  long sum = 0;
  for (int n = 0; n < 20; ++n) {
    pthread_mutex_lock(&mu);
    while (!full) pthread_cond_wait(&not_empty, &mu);
    long s = slot;
    pthread_mutex_unlock(&mu);
    sum += message[s];
    pthread_mutex_lock(&mu);
    full = 0;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mu);
  }
  pthread_join(t, NULL);
  printf("%ld\n", sum);
  return 0;
}
