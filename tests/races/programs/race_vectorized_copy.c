/* A thread copies an array in a loop that the compiler vectorizes into 32-byte
   AVX moves (-O3 -mavx2); main reads one element. clang 14's ThreadSanitizer pass
   leaves 32-byte accesses uninstrumented, so seer-clang asks for 16-byte vectors
   (-mprefer-vector-width=128), which it instruments; gcc reports wide accesses as
   ranges. */
// seer-build-flags: -O3 -mavx2
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int table[64];
int source[64];

static void* worker(void* arg) {
  for (int i = 0; i < 64; ++i) table[i] = source[i] + 1;  // RACE(a)
  return arg;
}

int main(void) {
  for (int i = 0; i < 64; ++i) source[i] = i;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  printf("%d\n", table[37]);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
