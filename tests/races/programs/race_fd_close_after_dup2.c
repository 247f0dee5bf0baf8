/* Main makes a descriptor name another file with dup2(); a worker, ordered
   with main by nothing but time, then closes it. dup2's creation of the new
   descriptor reads it, as ThreadSanitizer's does, and close() writes it:
   unordered, a race (ThreadSanitizer's fd_dup_race.cpp). Before, the close
   wrote the fresh identity dup2 gave the number, which nothing had touched. */
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
int other[2];

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  close(fds[1]);  // RACE(a)
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0 || pipe(other) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  if (dup2(other[1], fds[1]) != fds[1]) return 1;  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
