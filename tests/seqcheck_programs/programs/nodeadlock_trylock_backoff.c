/* A server's back-off: it holds A and only tries B (pthread_mutex_trylock); when
   B is busy it lets A go and starts over. A client takes B and then A with
   blocking calls. The lock orders are opposite, but the server never waits for
   B, so no schedule deadlocks: when the client holds B the server's trylock
   fails and it releases A. deadlock_backoff_blocking.c is the twin that blocks.
   seer-record: ebpf inproc
   seer-expect: none */
#include <pthread.h>
#include <sched.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static long served, backoffs;

static void* server(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&a);
    if (pthread_mutex_trylock(&b) == 0) break;
    pthread_mutex_unlock(&a);
    backoffs++;
    sched_yield();
  }
  served++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  return NULL;
}

static void* client(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
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
