/* Opposite lock orders (A then B, B then A), but both threads take a gate lock G
   first: whoever holds G runs both nested acquisitions alone, so no schedule
   deadlocks. A lock-order graph without the gate filter reports A<->B.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long transfers;

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  transfers++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&gate);
  return NULL;
}

static void* b_then_a(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&gate);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  transfers++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&gate);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, a_then_b, NULL);
  pthread_create(&t2, NULL, b_then_a, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
