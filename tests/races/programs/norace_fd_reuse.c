/* A worker makes a pipe, uses it and closes both ends; main, ordered with the
   worker by nothing but the kernel, makes a pipe that gets the same numbers and
   uses it. A descriptor number reused after close() is a new variable: no race
   between the worker's close() and main's read() and write(). Exits 2 when the
   numbers were not reused. */
// seer-expect: none
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int first[2];

static void* worker(void* arg) {
  (void)arg;
  char c;
  if (pipe(first) != 0 || write(first[1], "x", 1) != 1 || read(first[0], &c, 1) != 1) return NULL;
  close(first[0]);
  close(first[1]);
  return NULL;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  int second[2];
  char c;
  if (pipe(second) != 0 || write(second[1], "y", 1) != 1 || read(second[0], &c, 1) != 1) return 1;
  close(second[0]);
  close(second[1]);
  pthread_join(t, NULL);
  return first[0] == second[0] && first[1] == second[1] ? 0 : 2;
}
