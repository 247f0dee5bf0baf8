/* A cache entry used in two steps and evicted by another thread: a worker takes
   the entry and reads its hit count under one hold of the lock, and writes the
   count back under the next; an evictor unlinks the entry and frees it under the
   same lock. Here the eviction comes after the worker is done; had it come
   between the worker's two holds, the worker would write into freed memory. A
   free writes every byte of its block, so it is the intruding write
   (read-write-write).
   seer-record: inproc
   seer-atomicity: evicted read-write-write */
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
  if (e == NULL) {
    pthread_mutex_unlock(&lock);
    return NULL;
  }
  long hits = e->hits;  // ATOMICITY(evicted) first
  pthread_mutex_unlock(&lock);
  hits += 1;
  pthread_mutex_lock(&lock);
  e->hits = hits;  // ATOMICITY(evicted) second
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* evictor(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  struct entry* e = cached;
  cached = NULL;
  free(e);  // ATOMICITY(evicted) remote
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
