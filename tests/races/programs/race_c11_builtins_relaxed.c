/* The twin of norace_c11_builtins.c with a relaxed store and load (clang's
   __c11_atomic_* under clang, GNU's __atomic_* under gcc): relaxed atomics order
   nothing, so the payload races. */
// seer-relaxed-race: a the relaxed load that saw the flag orders the read on a sequentially consistent schedule
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

#ifdef __clang__
static _Atomic int ready;
#define STORE_RELAXED(p, v) __c11_atomic_store(p, v, __ATOMIC_RELAXED)
#define LOAD_RELAXED(p) __c11_atomic_load(p, __ATOMIC_RELAXED)
#else
static int ready;
#define STORE_RELAXED(p, v) __atomic_store_n(p, v, __ATOMIC_RELAXED)
#define LOAD_RELAXED(p) __atomic_load_n(p, __ATOMIC_RELAXED)
#endif
int payload;

static void* producer(void* arg) {
  payload = 42;  // RACE(a)
  STORE_RELAXED(&ready, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  while (!LOAD_RELAXED(&ready)) sleep_ms(1);
  printf("%d\n", payload);  // RACE(a)
  pthread_join(t, NULL);
  return 0;
}
