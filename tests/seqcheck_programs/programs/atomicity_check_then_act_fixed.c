/* atomicity_check_then_act.c done right: the client checks the pointer and uses
   the connection under one hold of the lock, so the closer comes before or after.
   seer-record: inproc
   seer-expect: none */
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
  if (conn != NULL) conn->requests++;
  pthread_mutex_unlock(&lock);
  return NULL;
}

static void* closer(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&lock);
  conn = NULL;
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
