/* norace_annotate_happens_before.c without its annotations: the relaxed counter
   orders nothing, so each producer's write races with main's read of it (one
   pair of lines for both). */
// seer-relaxed-race: a the relaxed load that saw the counter orders the read on a sequentially consistent schedule
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int done;
int slot[2];

static void* producer(void* arg) {
  int* mine = arg;
  *mine = 42;  // RACE(a)
  __atomic_fetch_add(&done, 1, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, producer, &slot[i]);
  while (__atomic_load_n(&done, __ATOMIC_RELAXED) != 2) sleep_ms(1);
  printf("%d %d\n", slot[0], slot[1]);  // RACE(a)
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  return 0;
}
