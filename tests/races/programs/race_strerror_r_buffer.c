/* Two threads ask strerror_r for the message of an error glibc has no string
   for, in one shared buffer: glibc writes "Unknown error -1" into it in both,
   nothing ordering them. ThreadSanitizer records strerror_r's write of the
   buffer (its strerror_r.cpp); seer too. The sleep only makes the recorded run
   ask in the worker first. */
// seer-fuzz-unreachable: a both writes are libc's, inside the calls (seer fuzz postpones a thread only at the
// program's accesses)
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

#include "suite.h"

char buffer[64];

static void* worker(void* arg) {
  (void)arg;
  return strerror_r(-1, buffer, sizeof buffer);  // RACE(a)
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  sleep_ms(50);
  const char* mine = strerror_r(-1, buffer, sizeof buffer);  // RACE(a)
  void* theirs;
  pthread_join(t, &theirs);
  return mine == buffer && theirs == buffer ? 0 : 2;
}
