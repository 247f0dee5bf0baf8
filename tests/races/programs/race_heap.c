/* A heap block handed to a thread at creation, then updated by both. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void* worker(void* arg) {
  int* p = arg;
  *p += 1;  // RACE(a)
  return NULL;
}

int main(void) {
  int* p = malloc(sizeof *p);
  *p = 0;
  pthread_t t;
  pthread_create(&t, NULL, worker, p);
  *p = 5;  // RACE(a)
  pthread_join(t, NULL);
  printf("%d\n", *p);
  free(p);
  return 0;
}
