/* A thread clears a heap block with memset; main writes one byte in its middle. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suite.h"

char* block;
size_t block_len = 128;

static void* worker(void* arg) {
  memset(block, 0, block_len);  // RACE(a)
  return arg;
}

int main(void) {
  block = malloc(block_len);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  block[77] = 'x';  // RACE(a)
  pthread_join(t, NULL);
  printf("%d\n", block[77]);
  free(block);
  return 0;
}
