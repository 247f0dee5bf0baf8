/* atomicity_struct_copy_field.c done right: the tuner reads and writes its field
   under one hold of the lock, so the loader's whole-struct copy (a range that
   overlaps the field from another start address) comes before or after it.
   seer-record: ebpf inproc
   seer-expect: none */
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
  int threads = current.threads;
  threads += 1;
  current.threads = threads;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* loader(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  memcpy(&current, &loaded, sizeof current);
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
