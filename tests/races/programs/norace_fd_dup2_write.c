/* A worker writes to a descriptor while main makes it name another file with
   dup2(). dup2 reads its target, as ThreadSanitizer's does, and so does the
   write: no race. Programs dup /dev/null or a closed pipe over a descriptor
   other threads still use, to end that use safely (ThreadSanitizer's
   fd_dup_norace2.cpp); a close there is a race (race_fd_close_after_dup2.c). */
// seer-expect: none
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
int other[2];

static void* worker(void* arg) {
  (void)arg;
  if (write(fds[1], "x", 1) != 1) return NULL;
  return NULL;
}

int main(void) {
  if (pipe(fds) != 0 || pipe(other) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  if (dup2(other[1], fds[1]) != fds[1]) return 1;
  pthread_join(t, NULL);
  return 0;
}
