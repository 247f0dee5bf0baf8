/* A payload published with a release store and read after an acquire load, with
   clang's C11 builtins (__c11_atomic_*) when clang compiles it and GNU's __atomic
   builtins under gcc: both lower to the same instrumented atomics. */
// seer-expect: none
#include <pthread.h>
#include <stdio.h>

#include "suite.h"

#ifdef __clang__
static _Atomic int ready;
#define STORE_RELEASE(p, v) __c11_atomic_store(p, v, __ATOMIC_RELEASE)
#define LOAD_ACQUIRE(p) __c11_atomic_load(p, __ATOMIC_ACQUIRE)
#define FETCH_ADD_RELAXED(p, v) __c11_atomic_fetch_add(p, v, __ATOMIC_RELAXED)
#else
static int ready;
#define STORE_RELEASE(p, v) __atomic_store_n(p, v, __ATOMIC_RELEASE)
#define LOAD_ACQUIRE(p) __atomic_load_n(p, __ATOMIC_ACQUIRE)
#define FETCH_ADD_RELAXED(p, v) __atomic_fetch_add(p, v, __ATOMIC_RELAXED)
#endif

#ifdef __clang__
static _Atomic int counter;
#else
static int counter;
#endif
int payload;

static void* producer(void* arg) {
  for (int i = 0; i < 50; ++i) FETCH_ADD_RELAXED(&counter, 1);
  payload = 42;
  STORE_RELEASE(&ready, 1);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, producer, NULL);
  for (int i = 0; i < 50; ++i) FETCH_ADD_RELAXED(&counter, 1);
  while (!LOAD_ACQUIRE(&ready)) sleep_ms(1);
  printf("%d\n", payload);
  pthread_join(t, NULL);
  return 0;
}
