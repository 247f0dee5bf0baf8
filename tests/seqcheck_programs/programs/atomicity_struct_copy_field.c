/* A configuration that a loader replaces as a whole (one memcpy under the lock)
   while a tuner bumps one field of it in two steps: it reads the field under one
   hold of the lock and writes it back under the next. Here the loader comes
   after the tuner is done; had its copy come in between, the tuner would write a
   field of the old configuration into the new one (read-write-write). The copy is
   a 16-byte range that starts at the struct, the field a 4-byte access 4 bytes
   into it: they conflict on the field's bytes though they start apart.
   seer-record: inproc
   seer-atomicity: stale read-write-write */
#include <pthread.h>
#include <string.h>

#include "order.h"

struct config {
  int version;
  int threads;
  int timeout;
  int retries;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct config current = {1, 4, 30, 3};
static struct config loaded = {2, 8, 60, 5};

static void* tuner(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int threads = current.threads;  // ATOMICITY(stale) first
  pthread_mutex_unlock(&lock);
  threads += 1;
  pthread_mutex_lock(&lock);
  current.threads = threads;  // ATOMICITY(stale) second
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* loader(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  memcpy(&current, &loaded, sizeof current);  // ATOMICITY(stale) remote
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, tuner, NULL);
  pthread_create(&t2, NULL, loader, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return current.version == 2 ? 0 : 1;
}
