/* atomicity_free_between.c done right: the worker reads and writes the entry's
   count under one hold of the lock, so the evictor's free (a write of the whole
   entry) comes before or after both.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>
#include <stdlib.h>

#include "order.h"

struct entry {
  long hits;
  char key[16];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry* cached;

static void* worker(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  struct entry* e = cached;
  if (e != NULL) {
    long hits = e->hits;
    e->hits = hits + 1;
  }
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* evictor(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  struct entry* e = cached;
  cached = NULL;
  free(e);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  start_watchdog();
  cached = calloc(1, sizeof *cached);
  if (cached == NULL) return 1;
  pthread_t t1, t2;
  pthread_create(&t1, NULL, worker, NULL);
  pthread_create(&t2, NULL, evictor, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
