/* seq_cst is acquire plus release: a payload published with a seq_cst store
   (the default of atomic_store) is read without a race after a seq_cst load
   that saw it. */
// seer-expect: none
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "suite.h"

atomic_int ready;
int payload;

static void* producer(void* arg) {
  payload = 42;
  atomic_store(&ready, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  while (!atomic_load(&ready)) sleep_ms(1);
  printf("%d\n", payload);
  pthread_join(t, NULL);
  return 0;
}
