/* Two threads take the same two mutexes in opposite orders (A then B, B then A).
   The second thread starts its locking after the first is done, so this run
   completes; another schedule deadlocks with each thread holding one lock.
   seer-record: ebpf inproc
   seer-deadlock: abba threads=2 */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long transfers;

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);  // DEADLOCK(abba) held
  pthread_mutex_lock(&b);  // DEADLOCK(abba) blocked
  transfers++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* b_then_a(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);  // DEADLOCK(abba) held
  pthread_mutex_lock(&a);  // DEADLOCK(abba) blocked
  transfers++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
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
