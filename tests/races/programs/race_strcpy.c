/* A thread copies a string with strcpy; main measures it with strlen. Both are
   interposed libc calls. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "suite.h"

char name[32];
char new_name[32] = "worker-1";

static void* worker(void* arg) {
  strcpy(name, new_name);  // RACE(a)
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(10);
  printf("%zu\n", strlen(name));  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
