/* A cycle through three threads and three mutexes: A->B, B->C, C->A. No two of
   the threads alone can deadlock; all three can, each holding one lock and
   waiting for the next. The threads lock one after another in time.
   seer-record: ebpf inproc
   seer-deadlock: ring threads=3 */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t c = PTHREAD_MUTEX_INITIALIZER;
static long moves[3];

static void* a_then_b(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);  // DEADLOCK(ring) held
  pthread_mutex_lock(&b);  // DEADLOCK(ring) blocked
  moves[0]++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* b_then_c(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);  // DEADLOCK(ring) held
  pthread_mutex_lock(&c);  // DEADLOCK(ring) blocked
  moves[1]++;
  pthread_mutex_unlock(&c);
  pthread_mutex_unlock(&b);
  return NULL;
}

static void* c_then_a(void* arg) {
  (void)arg;
  sleep_ms(2 * STAGGER_MS);
  pthread_mutex_lock(&c);  // DEADLOCK(ring) held
  pthread_mutex_lock(&a);  // DEADLOCK(ring) blocked
  moves[2]++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&c);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t[3];
  pthread_create(&t[0], NULL, a_then_b, NULL);
  pthread_create(&t[1], NULL, b_then_c, NULL);
  pthread_create(&t[2], NULL, c_then_a, NULL);
  for (int i = 0; i < 3; i++) pthread_join(t[i], NULL);
  return 0;
}
