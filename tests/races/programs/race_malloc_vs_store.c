/* main allocates a block and publishes its address with a relaxed store; a
   worker that loads the address stores into the block. main never writes the
   block itself, but an allocation writes its block (ThreadSanitizer's malloc
   does too): nothing orders the worker's store after the malloc, so the two
   race. With a release store and an acquire load they would not
   (norace_malloc_publish_release.c). */
// seer-relaxed-race: a the relaxed load that saw the address orders the store on a sequentially consistent schedule
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

_Atomic(int*) shared;

static void* worker(void* arg) {
  int* block;
  while ((block = atomic_load_explicit(&shared, memory_order_relaxed)) == NULL) sleep_ms(1);
  block[1] = 7;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(20);
  int* block = malloc(4 * sizeof *block);  // RACE(a)
  if (block == NULL) return 1;
  atomic_store_explicit(&shared, block, memory_order_relaxed);
  pthread_join(t, NULL);
  printf("%d\n", block[1]);
  free(block);
  return 0;
}
