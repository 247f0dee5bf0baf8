/* Main makes a descriptor name another pipe with dup2(); a worker, later and
   with nothing ordering it after the dup2, closes that descriptor: the close
   may come first, and the dup2 then works on a closed number (or one another
   thread was given). ThreadSanitizer reports the pair (its fd_dup_race.cpp):
   dup2 leaves a read of the target behind its renewal, the close writes it. */
// seer-fuzz-unreachable: a both accesses are the runtime's own, inside the calls (seer fuzz postpones a thread only at
// the program's accesses)
#include <pthread.h>
#include <unistd.h>

#include "suite.h"

int fds[2];
int other[2];

static void* worker(void* arg) {
  (void)arg;
  sleep_ms(50);
  return (void*)(long)close(fds[1]);  // RACE(a)
}

int main(void) {
  if (pipe(fds) != 0 || pipe(other) != 0) return 1;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  if (dup2(other[1], fds[1]) != fds[1]) return 1;  // RACE(a)
  void* closed;
  pthread_join(t, &closed);
  return closed == NULL ? 0 : 2;
}
