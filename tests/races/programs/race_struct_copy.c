/* A thread assigns a whole struct (the compiler copies it as a block); main reads
   one field of it. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

struct sample {
  long values[8];
};
struct sample latest;

static void* worker(void* arg) {
  struct sample s;
  for (int i = 0; i < 8; ++i) s.values[i] = i * (long)arg;
  latest = s;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, (void*)3L);
  sleep_ms(10);
  printf("%ld\n", latest.values[5]);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
