/* Lock-order cycles in which every rwlock is only ever taken for reading: read
   holds share, so none of the requests can block and no schedule deadlocks.
   Two cycles: rwlocks A and B read in opposite orders; rwlock C read and mutex M
   taken in opposite orders (the request for C is a read, C is only held for
   reading). glibc's default rwlocks prefer readers, so this holds at run time too.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>

#include "order.h"

static pthread_rwlock_t a = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t b = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t c = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long config[2] = {1, 2};
static long lookups[4];

static void* read_a_then_b(void* arg) {
  (void)arg;
  pthread_rwlock_rdlock(&a);
  pthread_rwlock_rdlock(&b);
  lookups[0] = config[0] + config[1];
  pthread_rwlock_unlock(&b);
  pthread_rwlock_unlock(&a);
  return NULL;
}

static void* read_b_then_a(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_rwlock_rdlock(&b);
  pthread_rwlock_rdlock(&a);
  lookups[1] = config[0] + config[1];
  pthread_rwlock_unlock(&a);
  pthread_rwlock_unlock(&b);
  return NULL;
}

static void* read_c_then_m(void* arg) {
  (void)arg;
  sleep_ms(2 * STAGGER_MS);
  pthread_rwlock_rdlock(&c);
  pthread_mutex_lock(&m);
  lookups[2] = config[0];
  pthread_mutex_unlock(&m);
  pthread_rwlock_unlock(&c);
  return NULL;
}

static void* m_then_read_c(void* arg) {
  (void)arg;
  sleep_ms(3 * STAGGER_MS);
  pthread_mutex_lock(&m);
  pthread_rwlock_rdlock(&c);
  lookups[3] = config[1];
  pthread_rwlock_unlock(&c);
  pthread_mutex_unlock(&m);
  return NULL;
}

int main(void) {
  start_watchdog();
  void* (*bodies[4])(void*) = {read_a_then_b, read_b_then_a, read_c_then_m, m_then_read_c};
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], NULL, bodies[i], NULL);
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  return 0;
}
