/* A worker writes to a descriptor while main makes it name another file with
   dup2(): dup2's target is closed and replaced, a write of the descriptor,
   unordered with the worker's write(). */
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
int other[2];

static void* worker(void* arg) {
  (void)arg;
  if (write(fds[1], "x", 1) != 1) return NULL;  // RACE(a)
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0 || pipe(other) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  if (dup2(other[1], fds[1]) != fds[1]) return 1;  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
