/* A thread writes a result, then sets a plain (volatile, not atomic) flag; main
   polls the flag and reads the result before joining. Both the flag and the
   result race: volatile orders nothing between threads. */
// seer-after-race: a main reads `result` only after its read of `done` saw the write that follows the write of `result`
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int result;
volatile int done;

static void* worker(void* arg) {
  result = 42;  // RACE(a)
  done = 1;     // RACE(b)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!done) sleep_ms(1);  // RACE(b)
  printf("%d\n", result);     // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
