/* C11 <stdatomic.h> and the __atomic builtins: a counter, an exchange, a
   compare-and-swap, and a payload published with release/acquire. */
// seer-expect: none
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "suite.h"

atomic_long counter;
long last_owner;
int published;
long payload;

static void* worker(void* arg) {
  for (int i = 0; i < 100; ++i) atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
  long expected = 0;
  __atomic_compare_exchange_n(&last_owner, &expected, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
  payload = 99;
  __atomic_store_n(&published, 1, __ATOMIC_RELEASE);
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  for (int i = 0; i < 100; ++i) atomic_fetch_add(&counter, 1);
  __atomic_exchange_n(&last_owner, 2, __ATOMIC_SEQ_CST);
  while (!__atomic_load_n(&published, __ATOMIC_ACQUIRE)) sleep_ms(1);
  printf("%ld %ld %ld\n", payload, atomic_load(&counter), __atomic_load_n(&last_owner, __ATOMIC_RELAXED));
  pthread_join(t, NULL);
  return 0;
}
