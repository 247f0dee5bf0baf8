/* The twin of race_avx2_intrinsics.c: the 32-byte AVX2 store and main's 32-byte
   load of the block (copied out) hold the same mutex. */
// seer-expect: none
// seer-build-flags: -O2 -mavx2
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int block[8] __attribute__((aligned(32)));
int snapshot[8] __attribute__((aligned(32)));
pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* worker(void* arg) {
  pthread_mutex_lock(&lock);
  _mm256_storeu_si256((__m256i*)block, _mm256_set1_epi32(7));
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  pthread_mutex_lock(&lock);
  _mm256_storeu_si256((__m256i*)snapshot, _mm256_loadu_si256((const __m256i*)block));
  pthread_mutex_unlock(&lock);
  printf("%d\n", snapshot[3]);
  pthread_join(t, NULL);
  return 0;
}
