/* A worker reads from a pipe while main closes the pipe's read end: close()
   against read() on the same descriptor, nothing ordering them (the byte was
   written before the worker started). ThreadSanitizer reports it; seer models
   a descriptor as a byte written by close() and read by every I/O call. */
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];

static void* worker(void* arg) {
  (void)arg;
  char c;
  if (read(fds[0], &c, 1) != 1) return NULL;  // RACE(a)
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0) return 1;
  if (write(fds[1], "x", 1) != 1) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  close(fds[0]);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
