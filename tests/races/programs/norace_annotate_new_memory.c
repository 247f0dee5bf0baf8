/* A free-list allocator of the program's own recycles one block between two
   threads: main takes it, fills it and puts it back; the worker takes it when it
   shows up on the list (relaxed atomics, which order nothing: the allocator
   relies on its own protocol) and annotates it new (AnnotateNewMemory, as for
   Valgrind's VALGRIND_HG_CLEAN_MEMORY) before it writes its own object there.
   The block is a fresh variable from then on: no race with main's old object.
   race_custom_allocator_reuse.c is the same without the annotation. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

void AnnotateNewMemory(const char* file, int line, const volatile void* addr, long size);

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
  AnnotateNewMemory(__FILE__, __LINE__, b, sizeof *b);
  return b;
}

static void block_put(struct block* b) { __atomic_store_n(&free_list, b, __ATOMIC_RELAXED); }

static void* worker(void* arg) {
  struct block* b = block_get();
  for (int i = 0; i < kWords; ++i) b->words[i] = 2;
  return b;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  struct block* b = &arena[0];
  for (int i = 0; i < kWords; ++i) b->words[i] = 1;
  block_put(b);
  void* again;
  pthread_join(t, &again);
  if (again != b) {
    printf("the block was not recycled\n");
    return 3;
  }
  return 0;
}
