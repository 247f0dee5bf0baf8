/* A detached thread writes a global and finishes; main reads it later. Nothing
   orders the two: the thread is never joined. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int result;

static void* worker(void* arg) {
  result = 42;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  pthread_create(&t, &attr, worker, NULL);
  sleep_ms(30);
  printf("%d\n", result);  // RACE(a)
  return 0;
}
