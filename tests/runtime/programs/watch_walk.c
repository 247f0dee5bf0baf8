// Code the access sampler's walk steps through (runtime/access_sampler.h),
// for seer record --watch on an unmodified build (tests/runtime/watch_test.cc):
// two threads each compute a while between two plain updates of a shared heap
// cell (a data race: the cell's address is in a register, not in the code),
// and every fourth request looks at its own flags through the stack (pushf)
// and sets them back (popf). A walk that stepped a pushf would have the
// program store the trap flag: counted in tf_seen, which must stay 0; a walk
// that stepped a popf could set it again behind the sampler, and the stray
// trap would end the program with SIGTRAP. Runs DURATION_MS (argv[1],
// default 1000).
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long duration_ms = 1000;
static long tf_seen;  // only ever bumped atomically

static double Now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

// A request: arithmetic, then one update of the shared cell.
static long Work(volatile long* cell, long request) {
  long h = request;
  for (int i = 0; i < 96; ++i) h = h * 31 + (i ^ request);
  if ((request & 3) == 0) {
    unsigned long flags;
    __asm__ volatile("pushfq\n\tpopq %0" : "=r"(flags));
    if (flags & 0x100) __atomic_fetch_add(&tf_seen, 1, __ATOMIC_RELAXED);
    __asm__ volatile("pushq %0\n\tpopfq" : : "r"(flags) : "cc");
  }
  *cell += h & 1;
  return h;
}

static void* Worker(void* arg) {
  volatile long* cell = arg;
  long served = 0, sum = 0;
  const double end = Now() + duration_ms / 1000.0;
  while (Now() < end) {
    for (int i = 0; i < 256; ++i) sum += Work(cell, served++);
  }
  return (void*)(served ^ (sum & 1));
}

int main(int argc, char** argv) {
  if (argc > 1) duration_ms = atol(argv[1]);
  long* cell = calloc(1, sizeof(long));
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, Worker, cell);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  printf("tf_seen=%ld cell=%ld\n", __atomic_load_n(&tf_seen, __ATOMIC_RELAXED), *cell);
  free(cell);
  return 0;
}
