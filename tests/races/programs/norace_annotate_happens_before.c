/* Two producers each write their own slot, annotate a happens-before edge on the
   counter and bump it with a relaxed atomic; main spins on the counter (relaxed)
   until both did, annotates the matching happens-after and reads both slots. The
   relaxed atomics order nothing: the annotations alone order each write before
   the read (every HappensBefore on an address reaches a later HappensAfter on
   it). race_annotate_happens_before_missing.c is the same without them. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

void AnnotateHappensBefore(const char* file, int line, const volatile void* addr);
void AnnotateHappensAfter(const char* file, int line, const volatile void* addr);

int done;
int slot[2];

static void* producer(void* arg) {
  int* mine = arg;
  *mine = 42;
  AnnotateHappensBefore(__FILE__, __LINE__, &done);
  __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, producer, &slot[i]);
  while (__atomic_load_n(&done, __ATOMIC_RELAXED) != 2) sleep_ms(1);
  AnnotateHappensAfter(__FILE__, __LINE__, &done);
  printf("%d %d\n", slot[0], slot[1]);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  return 0;
}
