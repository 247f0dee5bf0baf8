/* main writes a heap block and frees it; later (no synchronisation in between) a
   thread's malloc returns the same block and the thread writes it. The free starts
   a new variable: no race. One arena and blocks above the tcache and fastbin sizes
   make glibc hand the block back (once the thread's
   own malloc state exists). Exits 3 if it did not. */
// seer-expect: none
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

enum { kSize = 4000 };
int warmed;

static void* worker(void* arg) {
  /* Sets up this thread's tcache now, not inside the block main frees (volatile:
     the compiler would drop a malloc/free pair). */
  void* volatile warm = malloc(16);
  free(warm);
  /* Tells main it may go on. This orders the thread's start before main's writes,
     and nothing orders main's writes before the thread's: the free alone must. */
  __atomic_store_n(&warmed, 1, __ATOMIC_RELEASE);
  sleep_ms(60);
  char* again = malloc(kSize);
  for (int i = 0; i < kSize; i += 64) again[i] = 2;
  free(again);
  return again; /* compared by main after the join, never dereferenced */
}

int main(void) {
  mallopt(M_ARENA_MAX, 1);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!__atomic_load_n(&warmed, __ATOMIC_ACQUIRE)) sleep_ms(1);
  char* first = malloc(kSize);
  for (int i = 0; i < kSize; i += 64) first[i] = 1;
  free(first);
  void* again;
  pthread_join(t, &again);
  if (again != first) {
    printf("the block was not reused\n");
    return 3;
  }
  return 0;
}
