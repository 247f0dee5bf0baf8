/* Check-then-act on a shared pointer: a client checks under the lock that the
   connection is still open, releases the lock, then takes it again to use the
   connection. A closer thread clears the pointer under the same lock. Here the
   closer runs after the client is done; had it run between the check and the
   use, the client would dereference NULL (read-write-read on `conn`).
   seer-record: inproc
   seer-atomicity: stale read-write-read */
#include <pthread.h>
#include <stdlib.h>

#include "order.h"

struct connection {
  long requests;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct connection* conn;

static void* client(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  int open = conn != NULL;  // ATOMICITY(stale) first
  pthread_mutex_unlock(&lock);
  if (open) {
    pthread_mutex_lock(&lock);
    conn->requests++;  // ATOMICITY(stale) second
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static void* closer(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  conn = NULL;  // ATOMICITY(stale) remote
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  start_watchdog();
  /* main keeps its own pointer: it does not touch `conn` again after the threads. */
  struct connection* c = calloc(1, sizeof *c);
  if (c == NULL) return 1;
  conn = c;
  pthread_t t1, t2;
  pthread_create(&t1, NULL, client, NULL);
  pthread_create(&t2, NULL, closer, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  int served = c->requests == 1;
  free(c);
  return served ? 0 : 1;
}
