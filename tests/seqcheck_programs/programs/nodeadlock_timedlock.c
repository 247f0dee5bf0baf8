/* The back-off server with timeouts: holding A it waits for B at most 50 ms
   (pthread_mutex_timedlock), holding C it waits for D likewise
   (pthread_mutex_clocklock); on a timeout it lets the outer lock go and starts
   over. A client takes B then A, and D then C, with blocking calls. A timed
   lock returns at its timeout, so no schedule deadlocks, though the lock orders
   are opposite.
   seer-record: ebpf inproc
   seer-expect: none */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "order.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t b = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t c = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t d = PTHREAD_MUTEX_INITIALIZER;
/* One counter per thread: a shared one would order the threads' sections
   through the writes its reads saw, and hide the inversions. */
static long server_done, client_done, timeouts;

/* `clock` now plus 50 ms. */
static struct timespec deadline(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  t.tv_nsec += 50 * 1000000L;
  if (t.tv_nsec >= 1000000000L) {
    t.tv_sec++;
    t.tv_nsec -= 1000000000L;
  }
  return t;
}

static void* server(void* arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&a);
    struct timespec t = deadline(CLOCK_REALTIME);
    if (pthread_mutex_timedlock(&b, &t) == 0) break;
    pthread_mutex_unlock(&a);
    timeouts++;
  }
  server_done++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  for (;;) {
    pthread_mutex_lock(&c);
    struct timespec t = deadline(CLOCK_MONOTONIC);
    if (pthread_mutex_clocklock(&d, CLOCK_MONOTONIC, &t) == 0) break;
    pthread_mutex_unlock(&c);
    timeouts++;
  }
  server_done++;
  pthread_mutex_unlock(&d);
  pthread_mutex_unlock(&c);
  return NULL;
}

static void* client(void* arg) {
  (void)arg;
  sleep_ms(STAGGER_MS);
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  client_done++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  pthread_mutex_lock(&d);
  pthread_mutex_lock(&c);
  client_done++;
  pthread_mutex_unlock(&c);
  pthread_mutex_unlock(&d);
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
