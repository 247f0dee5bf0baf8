/* A payload published through relaxed atomics with a release fence before the
   store and an acquire fence after the load that saw it: the fences synchronise
   (C11 7.17.4), so the payload's write happens before its read. */
// seer-expect: none
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "suite.h"

atomic_int ready;
int payload;

static void* producer(void* arg) {
  payload = 42;
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) sleep_ms(1);
  atomic_thread_fence(memory_order_acquire);
  printf("%d\n", payload);
  pthread_join(t, NULL);
  return 0;
}
