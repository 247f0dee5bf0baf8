/* A thread writes a global; main reads it after pthread_join. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

int result;

static void* worker(void* arg) {
  result = 42;
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("%d\n", result);
  return 0;
}
