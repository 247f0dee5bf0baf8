/* An atomic store in one thread and a plain read of the same variable in the other:
   a data race (only atomic-atomic pairs are exempt). */
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

int flag;

static void* worker(void* arg) {
  __atomic_store_n(&flag, 1, __ATOMIC_RELEASE);  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  printf("%d\n", flag);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
