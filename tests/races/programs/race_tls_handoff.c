/* main hands the address of its thread-local variable to a thread; both write it. */
#include <pthread.h>
#include <stdio.h>

__thread int tls_counter;

static void* worker(void* arg) {
  *(int*)arg = 1;  // RACE(a)
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, &tls_counter);
  tls_counter = 2;  // RACE(a)
  pthread_join(t, NULL);
  printf("%d\n", tls_counter);
  return 0;
}
