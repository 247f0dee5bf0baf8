/* A thread reads a heap block that main frees later, with nothing ordering the
   read before the free: a free writes the whole block, so the two race
   (ThreadSanitizer: "data race" with the free). The sleep only makes the
   recorded run read first; the race does not depend on it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "suite.h"

static void* worker(void* arg) {
  const int* block = arg;
  printf("%d\n", block[2]);  // RACE(a)
  return NULL;
}

int main(void) {
  int* block = malloc(4 * sizeof *block);
  for (int i = 0; i < 4; ++i) block[i] = i;
  pthread_t t;
  pthread_create(&t, NULL, worker, block);
  sleep_ms(30);
  free(block);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
