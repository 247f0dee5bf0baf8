/* A lock taken with pthread_mutex_trylock is held like any other: a thread that
   got A by trylock and then blocks on B closes a cycle with a thread that holds
   B and blocks on A. Both requests block, so this is a deadlock; the held
   acquisition of the first thread is the trylock.
   seer-record: ebpf inproc
   seer-deadlock: tryheld threads=2 */
#include <pthread.h>
#include <sched.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long moved;

static void* try_a_then_b(void* arg) {
  (void)arg;
  while (pthread_mutex_trylock(&a) != 0)  // DEADLOCK(tryheld) held
    sched_yield();
  pthread_mutex_lock(&b);  // DEADLOCK(tryheld) blocked
  moved++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* b_then_a(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);  // DEADLOCK(tryheld) held
  pthread_mutex_lock(&a);  // DEADLOCK(tryheld) blocked
  moved++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, try_a_then_b, NULL);
  pthread_create(&t2, NULL, b_then_a, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
