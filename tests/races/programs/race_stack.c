/* A variable on main's stack handed to a thread, written by both. */
#include <pthread.h>
#include <stdio.h>

static void* worker(void* arg) {
  *(int*)arg = 3;  // RACE(a)
  return NULL;
}

int main(void) {
  int local = 0;
  pthread_t t;
  pthread_create(&t, NULL, worker, &local);
  local = 7;  // RACE(a)
  pthread_join(t, NULL);
  printf("%d\n", local);
  return 0;
}
