/* The twin of race_malloc_vs_store.c: the block's address is published with a
   release store and loaded with an acquire load, which orders the worker's
   store after the malloc that wrote the block. No race. */
// seer-expect: none
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

_Atomic(int*) shared;

static void* worker(void* arg) {
  int* block;
  while ((block = atomic_load_explicit(&shared, memory_order_acquire)) == NULL) sleep_ms(1);
  block[1] = 7;
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(20);
  int* block = malloc(4 * sizeof *block);
  if (block == NULL) return 1;
  atomic_store_explicit(&shared, block, memory_order_release);
  pthread_join(t, NULL);
  printf("%d\n", block[1]);
  free(block);
  return 0;
}
