/* Lock-order cycles through rwlocks in which a write lock is involved, so a
   request does block on the other thread's hold. Two cycles, one after another:
   - `upgrade`: rwlock A held for reading while taking mutex M; the other thread
     holds M and asks for A in write mode, which waits for the reader;
   - `writers`: rwlocks B and C, each held for writing by one thread while it asks
     for the other one for reading.
   seer-record: ebpf inproc
   seer-deadlock: upgrade threads=2
   seer-deadlock: writers threads=2 */
#include <pthread.h>

#include "order.h"

static pthread_rwlock_t a = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t b = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t c = PTHREAD_RWLOCK_INITIALIZER;
static long table_a, table_b, table_c, journal;

static void* read_a_then_m(void* arg) {
  (void)arg;
  pthread_rwlock_rdlock(&a);  // DEADLOCK(upgrade) held
  pthread_mutex_lock(&m);     // DEADLOCK(upgrade) blocked
  journal += table_a;
  pthread_mutex_unlock(&m);
  pthread_rwlock_unlock(&a);
  return NULL;
}

static void* m_then_write_a(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&m);     // DEADLOCK(upgrade) held
  pthread_rwlock_wrlock(&a);  // DEADLOCK(upgrade) blocked
  table_a = journal;
  pthread_rwlock_unlock(&a);
  pthread_mutex_unlock(&m);
  return NULL;
}

static void* write_b_read_c(void* arg) {
  (void)arg;
  sleep_ms(2 * STAGGER_MS);
  pthread_rwlock_wrlock(&b);  // DEADLOCK(writers) held
  pthread_rwlock_rdlock(&c);  // DEADLOCK(writers) blocked
  table_b = table_c + 1;
  pthread_rwlock_unlock(&c);
  pthread_rwlock_unlock(&b);
  return NULL;
}

static void* write_c_read_b(void* arg) {
  (void)arg;
  sleep_ms(3 * STAGGER_MS);
  pthread_rwlock_wrlock(&c);  // DEADLOCK(writers) held
  pthread_rwlock_rdlock(&b);  // DEADLOCK(writers) blocked
  table_c = table_b + 1;
  pthread_rwlock_unlock(&b);
  pthread_rwlock_unlock(&c);
  return NULL;
}

int main(void) {
  start_watchdog();
  void* (*bodies[4])(void*) = {read_a_then_m, m_then_write_a, write_b_read_c, write_c_read_b};
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, bodies[i], NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  return 0;
}
