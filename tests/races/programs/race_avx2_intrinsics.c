/* A thread stores a 32-byte block with an explicit AVX2 intrinsic
   (_mm256_storeu_si256); main copies the whole block out (_mm256_loadu_si256 and
   a store). clang 14's ThreadSanitizer pass skips 32-byte accesses; seer-clang's
   pass plugin reports them as ranges (docs/runtime.md), as gcc does. */
// seer-build-flags: -O2 -mavx2
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int block[8] __attribute__((aligned(32)));
int snapshot[8] __attribute__((aligned(32)));

static void* worker(void* arg) {
  _mm256_storeu_si256((__m256i*)block, _mm256_set1_epi32(7));  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  _mm256_storeu_si256((__m256i*)snapshot, _mm256_loadu_si256((const __m256i*)block));  // RACE(a)
  printf("%d\n", snapshot[3]);
  pthread_join(t, NULL);
  return 0;
}
