/* norace_pipe_handoff.c with the variable written after the byte: the pipe
   orders the worker's write() before main's read(), not what follows it. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
int data;

static void* worker(void* arg) {
  (void)arg;
  if (write(fds[1], "x", 1) != 1) return NULL;
  data = 42;  // RACE(a)
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  char c;
  if (read(fds[0], &c, 1) != 1) return 1;
  sleep_ms(50);
  printf("%d\n", data);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
