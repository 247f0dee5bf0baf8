// Report test program: a global raced with a lock held on one side only (through
// an inlinable helper), a heap block written by two threads, and a block read by
// one thread and freed by the other (20 bytes asked for, more usable). The MARK-*
// comments name the lines the tests expect in the report.
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

int counter;
int g; /* one letter: a C name, not a mangled type (would demangle to __float128) */
int* block;
int* victim;
volatile int sink;
pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
#ifdef CHANGED
int changed_build; /* a different build of the same source */
#endif

static void Bump(void) {
  counter++;  // MARK-BUMP
}

void* Worker(void* arg) {
  pthread_mutex_lock(&mu);
  Bump();  // MARK-CALL
  pthread_mutex_unlock(&mu);
  block[1] = 5;      // MARK-HEAP-WORKER
  g = 1;             // MARK-G-WORKER
  sink = victim[2];  // MARK-FREE-WORKER
  return arg;
}

int main(void) {
  block = malloc(16);  // MARK-ALLOC
  victim = malloc(20);
  pthread_t t;
  pthread_create(&t, 0, Worker, 0);
  counter++;     // MARK-MAIN
  block[1] = 3;  // MARK-HEAP-MAIN
  g = 2;         // MARK-G-MAIN
  usleep(50000); /* orders nothing: lets the worker read before the free */
  free(victim);  // MARK-FREE-MAIN
  pthread_join(t, 0);
#ifdef CHANGED
  changed_build = 1;
#endif
  return 0;
}
