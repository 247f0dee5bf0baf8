/* Opposite lock orders (A then B, B then A) in two threads, but main joins the
   first before it creates the second: the two never run at the same time, so no
   schedule deadlocks. Lock-graph tools without happens-before (BCC's `deadlock`)
   report the A<->B inversion anyway.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long transfers;

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  transfers++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* b_then_a(void* arg) {
  (void)arg;
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  transfers++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t;
  pthread_create(&t, NULL, a_then_b, NULL);
  pthread_join(t, NULL);
  pthread_create(&t, NULL, b_then_a, NULL);
  pthread_join(t, NULL);
  return 0;
}
