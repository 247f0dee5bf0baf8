/* The twin of race_vectorized_copy.c: the vectorized copy (32-byte AVX moves at
   -O3 -mavx2) and main's read of one element hold the same mutex. */
// seer-expect: none
// seer-build-flags: -O3 -mavx2
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int table[64];
int source[64];
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  for (int i = 0; i < 64; ++i) table[i] = source[i] + 1;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  for (int i = 0; i < 64; ++i) source[i] = i;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  pthread_mutex_lock(&lock);
  printf("%d\n", table[37]);
  pthread_mutex_unlock(&lock);
  pthread_join(t, NULL);
  return 0;
}
