/* The twin of race_free_vs_read.c: main frees the block only after joining the
   thread that read it, so the read happens before the free. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void* worker(void* arg) {
  const int* block = arg;
  printf("%d\n", block[2]);
  return NULL;
}

int main(void) {
  int* block = malloc(4 * sizeof *block);
  for (int i = 0; i < 4; ++i) block[i] = i;
  pthread_t t;
  pthread_create(&t, NULL, worker, block);
  pthread_join(t, NULL);
  free(block);
  return 0;
}
