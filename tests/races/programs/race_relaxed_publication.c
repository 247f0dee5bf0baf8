/* A payload published with a relaxed store and read after a relaxed load that saw
   the store: relaxed atomics order nothing, so the payload's write and read race
   (C11 7.17.3; ThreadSanitizer reports it too). */
// seer-relaxed-race: a the relaxed load that saw the flag orders the read on a sequentially consistent schedule
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "suite.h"

atomic_int ready;
int payload;

static void* producer(void* arg) {
  payload = 42;  // RACE(a)
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) sleep_ms(1);
  printf("%d\n", payload);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
