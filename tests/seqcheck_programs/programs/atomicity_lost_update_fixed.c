/* atomicity_lost_update.c done right: the worker reads and writes the counter
   under one hold of the lock, so the reset can only come before or after it.
   seer-record: inproc
   seer-expect: none */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long hits;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  long seen = hits;
  seen += 5;
  hits = seen;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* reset(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  hits = 0;
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, reset, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
