/* A detached thread writes a variable on its stack and finishes; later a second
   thread gets the same stack from glibc's cache and writes the same address.
   Nothing orders the two threads, but the first one's stack died with it.
   Exits 3 if the address was not reused. */
// seer-expect: none
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "suite.h"

uintptr_t addresses[2];

__attribute__((noinline)) static void fill(volatile int* slot, int v) {
  for (int i = 0; i < 4; ++i) slot[i] = v;
}

static void* worker(void* arg) {
  volatile int local[4];
  fill(local, (int)(long)arg);
  __atomic_store_n(&addresses[(long)arg], (uintptr_t)local, __ATOMIC_RELAXED);
  return NULL;
}

int main(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_t t;
  pthread_create(&t, &attr, worker, (void*)0L);
  sleep_ms(50);
  pthread_create(&t, &attr, worker, (void*)1L);
  sleep_ms(50);
  if (__atomic_load_n(&addresses[0], __ATOMIC_RELAXED) != __atomic_load_n(&addresses[1], __ATOMIC_RELAXED)) {
    printf("the stack was not reused\n");
    return 3;
  }
  return 0;
}
