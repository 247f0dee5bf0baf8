/* norace_annotate_new_memory.c without AnnotateNewMemory: the allocator's relaxed
   free list orders nothing, so the worker's writes to the recycled block race
   with main's writes to the object that was there before. */
// seer-relaxed-race: a the relaxed exchange that saw the block orders the worker's writes on a sequentially consistent
// schedule
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

enum { kWords = 16 };
struct block {
  struct block* next;
  long words[kWords];
};
struct block arena[1];
struct block* free_list;

static struct block* block_get(void) {
  struct block* b;
  while ((b = __atomic_exchange_n(&free_list, NULL, __ATOMIC_RELAXED)) == NULL) sleep_ms(1);
  return b;
}

static void block_put(struct block* b) { __atomic_store_n(&free_list, b, __ATOMIC_RELAXED); }

static void* worker(void* arg) {
  struct block* b = block_get();
  for (int i = 0; i < kWords; ++i) b->words[i] = 2;  // RACE(a)
  return b;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct block* b = &arena[0];
  for (int i = 0; i < kWords; ++i) b->words[i] = 1;  // RACE(a)
  block_put(b);
  void* again;
  pthread_join(t, &again);
  if (again != b) {
    printf("the block was not recycled\n");
    return 3;
  }
  return 0;
}
