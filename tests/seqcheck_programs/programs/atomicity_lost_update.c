/* A lost update: a worker adds its hits to a shared counter in two steps, reading
   it under one hold of the lock and writing the sum under the next. A reset
   thread zeroes the counter under the same lock. Here the reset comes after the
   worker is done; had it come between the worker's read and write, the worker
   would write back the old total and the reset would be lost (read-write-write).
   seer-record: inproc
   seer-atomicity: lost read-write-write */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long hits;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  long seen = hits;  // ATOMICITY(lost) first
  pthread_mutex_unlock(&lock);
  seen += 5;
  pthread_mutex_lock(&lock);
  hits = seen;  // ATOMICITY(lost) second
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* reset(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  hits = 0;  // ATOMICITY(lost) remote
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
