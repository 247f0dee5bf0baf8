/* A release fence before the flag's relaxed store, but the reader has no acquire
   fence after its relaxed load: half a fence pair orders nothing, so the payload's
   write and read race. */
// seer-relaxed-race: a the relaxed load that saw the flag orders the read on a sequentially consistent schedule
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "suite.h"

atomic_int ready;
int payload;

static void* producer(void* arg) {
  payload = 42;  // RACE(a)
  atomic_thread_fence(memory_order_release);
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
