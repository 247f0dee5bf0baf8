/* A thread writes a global; main reads it before joining, later in time but
   without synchronisation. */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int value;

static void* writer(void* arg) {
  value = 42;  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  sleep_ms(10);
  printf("%d\n", value);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
