/* The twin of nodeadlock_trylock_backoff.c with the server's trylock turned into
   a blocking pthread_mutex_lock: it holds A and waits for B while the client
   holds B and waits for A. The recorded run is staggered and completes; another
   schedule deadlocks.
   seer-record: ebpf inproc
   seer-deadlock: backoff threads=2 */
#include <pthread.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long served;

static void* server(void* arg) {
  (void)arg;
  pthread_mutex_lock(&a);  // DEADLOCK(backoff) held
  pthread_mutex_lock(&b);  // DEADLOCK(backoff) blocked
  served++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* client(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);  // DEADLOCK(backoff) held
  pthread_mutex_lock(&a);  // DEADLOCK(backoff) blocked
  served++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return NULL;
}

int main(void) {
  start_watchdog();
  pthread_t t1, t2;
  pthread_create(&t1, NULL, server, NULL);
  pthread_create(&t2, NULL, client, NULL);
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  return 0;
}
